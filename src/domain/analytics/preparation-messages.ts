import type { CrawlerRangeSet } from './crawler-ranges.ts';
import type { SaltRotation } from './identity.ts';
import type { PreparationSettings } from './ingest.ts';
import type { PreparedBatch } from './prepared-batch.ts';

/** What a preparation thread starts with (its `workerData`). */
export interface PreparationThreadData {
  rotation: SaltRotation;
  identityCacheLimit: number;
  crawlerRanges: readonly CrawlerRangeSet[];
}

/** From the pool to a preparation thread. */
export type PoolRequest =
  | {
      kind: 'prepare';
      id: number;
      projectId: string;
      /** The request body as received: UTF-8 bytes, copied to the thread (a structured clone). */
      body: Uint8Array;
      settings: PreparationSettings;
      /** The server's clock (epoch ms): timestamps more than a day past it are rejected. */
      now: number;
      maxBatch: number;
    }
  /** The answer to a thread's salt request; no salt when it could not be read. */
  | { kind: 'salt'; period: string; salt: Uint8Array | null }
  | { kind: 'forget'; periods: string[] }
  /** Refreshed crawler ranges: bodies prepared after this message are verified with them. */
  | { kind: 'ranges'; crawlerRanges: readonly CrawlerRangeSet[] };

/** From a preparation thread to the pool. */
export type PoolReply =
  | { kind: 'prepared'; id: number; batch: PreparedBatch }
  /** Not a plain `{ events: [...] }` body: the caller parses and validates it itself. */
  | { kind: 'unparsed'; id: number }
  | { kind: 'failed'; id: number; message: string }
  | { kind: 'salt'; period: string };

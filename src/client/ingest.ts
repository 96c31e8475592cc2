import { DocwrightApiError } from './api-error.ts';
import { sleep } from './sleep.ts';

/** One page view for `analytics.ingest`; the server validates each and says why it rejects one. */
export interface PageViewEvent {
  /** Makes sending it again harmless: an event whose id is stored counts once. */
  id?: string;
  /** ISO 8601 with an offset, or epoch milliseconds. */
  timestamp: string | number;
  path: string;
  userAgent: string;
  /** The reader's address; this or visitorId is required. */
  ip?: string;
  visitorId?: string;
  /** The request's Accept header (a Markdown fetch is an AI agent's). */
  accept?: string;
  referrer?: string;
  /** The HTTP status the docs site answered. */
  status?: number;
}

export interface IngestResult {
  accepted: number;
  duplicates: number;
  /** Per rejected event, its index in the events given to `ingest`, and why. */
  rejected: { index: number; reason: string }[];
}

export interface IngestOptions {
  /** Events per request (default 1,000, the server's default limit). */
  batchSize?: number;
  /**
   * Times a batch is sent again after an answer that says "not now" (429, 502–504) or a broken
   * connection, waiting Retry-After or 1, 2, 4… s (default 3). Only batches whose events all
   * have an `id`: without one, a batch the server stored before the failure would count twice.
   */
  retries?: number;
  signal?: AbortSignal;
}

/** Sends one batch; resolves with the server's answer or rejects with a DocwrightApiError. */
export type SendBatch = (events: readonly PageViewEvent[], signal?: AbortSignal) => Promise<IngestResult>;

const MAX_WAIT_MS = 30_000;

/** Sends `events` in batches, one after another, and adds up the answers. */
export async function ingestEvents(
  send: SendBatch,
  events: readonly PageViewEvent[],
  options: IngestOptions = {},
): Promise<IngestResult> {
  const size = options.batchSize ?? 1000;
  if (!Number.isInteger(size) || size < 1) throw new RangeError('batchSize must be a whole number from 1');
  const total: IngestResult = { accepted: 0, duplicates: 0, rejected: [] };
  for (let start = 0; start < events.length; start += size) {
    const batch = events.slice(start, start + size);
    const result = await sendWithRetries(send, batch, options);
    total.accepted += result.accepted;
    total.duplicates += result.duplicates;
    for (const r of result.rejected) total.rejected.push({ index: start + r.index, reason: r.reason });
  }
  return total;
}

async function sendWithRetries(
  send: SendBatch,
  batch: readonly PageViewEvent[],
  options: IngestOptions,
): Promise<IngestResult> {
  const retries = options.retries ?? 3;
  const idempotent = batch.every((e) => typeof e.id === 'string' && e.id.length > 0);
  for (let attempt = 0; ; attempt++) {
    try {
      return await send(batch, options.signal);
    } catch (error) {
      const again = attempt < retries && idempotent && !options.signal?.aborted && isTransient(error);
      if (!again) throw error;
      const told = error instanceof DocwrightApiError ? error.retryAfterSeconds : undefined;
      await sleep(
        Math.min(MAX_WAIT_MS, told !== undefined ? told * 1000 : 1000 * 2 ** attempt),
        options.signal,
      );
    }
  }
}

/**
 * An answer that says "not now", or no answer at all: fetch's "fetch failed" (refused, reset,
 * timed out), not its other TypeErrors (a malformed URL fails the same way every time).
 */
function isTransient(error: unknown): boolean {
  if (error instanceof DocwrightApiError) return error.transient;
  return error instanceof TypeError && error.message === 'fetch failed';
}

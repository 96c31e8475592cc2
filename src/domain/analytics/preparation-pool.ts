import { Worker } from 'node:worker_threads';
import type { CrawlerRanges } from './crawler-ranges.ts';
import type { SaltRotation, SaltSource } from './identity.ts';
import type { PreparationSettings } from './ingest.ts';
import type { PoolReply, PoolRequest, PreparationThreadData } from './preparation-messages.ts';
import type { PreparedBatch } from './prepared-batch.ts';

export interface PreparationPoolOptions {
  /** Threads at most; each starts when the load first needs it. */
  threads: number;
  rotation: SaltRotation;
  identityCacheLimit: number;
  crawlerRanges: CrawlerRanges;
  /** The salts, read on the pool's thread: the threads ask for each period once. */
  salts: SaltSource;
  /** A thread failed (it is replaced; its batches are prepared by the caller instead). */
  onThreadError?: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, (result: PreparedBatch | null) => void>;
}

/**
 * Worker threads that turn ingestion request bodies into prepared events: JSON parsing,
 * validation, classification and the visitor HMACs are most of ingestion's CPU, and here they
 * run beside the thread that serves HTTP and stores views, rather than on it. The answers are
 * those of `EventPreparer` on this thread: the threads run the same code with the same salts,
 * page rules and clock.
 */
export class PreparationPool {
  private options: PreparationPoolOptions;
  private readonly threads: Thread[] = [];
  private nextId = 1;
  private closed = false;
  /** Batches the threads prepared (not those handed back to the caller). */
  batchesPrepared = 0;

  constructor(options: PreparationPoolOptions) {
    this.options = options;
  }

  /**
   * The body's events, prepared, as the thread sent them (columns: see PreparedColumns; decode
   * them with `decodePreparedBatch`); null when the body is not a plain `{ "events": [...] }` of
   * at most `maxBatch` events, or a thread failed: the caller then parses and prepares it itself.
   */
  prepare(
    projectId: string,
    body: Uint8Array,
    settings: PreparationSettings,
    now: number,
    maxBatch: number,
  ): Promise<PreparedBatch | null> {
    if (this.closed) return Promise.resolve(null);
    const thread = this.leastBusy();
    const id = this.nextId++;
    return new Promise((resolve) => {
      thread.pending.set(id, resolve);
      const request: PoolRequest = {
        kind: 'prepare',
        id,
        projectId,
        body,
        settings: { pageRules: settings.pageRules, saltRotation: settings.saltRotation },
        now,
        maxBatch,
      };
      thread.worker.postMessage(request);
    });
  }

  /** Salts deleted by retention: the threads drop them too. */
  forget(periods: string[]): void {
    if (periods.length === 0) return;
    for (const thread of this.threads) thread.worker.postMessage({ kind: 'forget', periods } as PoolRequest);
  }

  /** Refreshed crawler ranges: running threads switch to them, and new threads start with them. */
  setCrawlerRanges(ranges: CrawlerRanges): void {
    this.options = { ...this.options, crawlerRanges: ranges };
    const message: PoolRequest = { kind: 'ranges', crawlerRanges: ranges.sets };
    for (const thread of this.threads) thread.worker.postMessage(message);
  }

  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads.splice(0);
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
    for (const thread of threads) handBackPending(thread);
  }

  /** A thread with nothing to do, else a new one while below the limit, else the least busy. */
  private leastBusy(): Thread {
    let best: Thread | null = null;
    for (const thread of this.threads) {
      if (best === null || thread.pending.size < best.pending.size) best = thread;
    }
    if (best !== null && (best.pending.size === 0 || this.threads.length >= this.options.threads))
      return best;
    return this.start();
  }

  private start(): Thread {
    const data: PreparationThreadData = {
      rotation: this.options.rotation,
      identityCacheLimit: this.options.identityCacheLimit,
      crawlerRanges: this.options.crawlerRanges.sets,
    };
    const worker = new Worker(new URL('./preparation-worker.ts', import.meta.url), { workerData: data });
    // Idle threads must not keep a process alive that has nothing else to do.
    worker.unref();
    const thread: Thread = { worker, pending: new Map() };
    this.threads.push(thread);
    worker.on('message', (reply: PoolReply) => this.receive(thread, reply));
    worker.on('error', (error) => {
      this.options.onThreadError?.(error);
      this.drop(thread);
    });
    worker.on('exit', () => this.drop(thread));
    return thread;
  }

  private receive(thread: Thread, reply: PoolReply): void {
    if (reply.kind === 'salt') {
      this.options.salts.salt(reply.period).then(
        (salt) => thread.worker.postMessage({ kind: 'salt', period: reply.period, salt } as PoolRequest),
        (error: unknown) => {
          this.options.onThreadError?.(error instanceof Error ? error : new Error(String(error)));
          thread.worker.postMessage({ kind: 'salt', period: reply.period, salt: null } as PoolRequest);
        },
      );
      return;
    }
    const resolve = thread.pending.get(reply.id);
    if (!resolve) return;
    thread.pending.delete(reply.id);
    if (reply.kind === 'prepared') {
      this.batchesPrepared++;
      resolve(reply.batch);
    } else {
      if (reply.kind === 'failed') this.options.onThreadError?.(new Error(reply.message));
      resolve(null);
    }
  }

  private drop(thread: Thread): void {
    const at = this.threads.indexOf(thread);
    if (at >= 0) this.threads.splice(at, 1);
    handBackPending(thread);
  }
}

/** A thread that is gone answers nothing more: its waiting bodies are prepared by the caller. */
function handBackPending(thread: Thread): void {
  const waiting = [...thread.pending.values()];
  thread.pending.clear();
  for (const resolve of waiting) resolve(null);
}

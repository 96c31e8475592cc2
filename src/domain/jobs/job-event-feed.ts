import type { Listening, Storage } from '../../storage/database.ts';
import { JOB_EVENTS_CHANNEL, latestJobEventIds } from '../../storage/queries/job-events.ts';
import type { JobEventLog } from './job-events.ts';

export interface JobEventFeedOptions {
  log: JobEventLog;
  /**
   * How often open streams look for new events in one query for all of them: how SQLite hears
   * of other processes (default 250 ms), a safety net under LISTEN/NOTIFY on PostgreSQL
   * (default 5 s).
   */
  pollMs?: number;
  /** A poll or the listening connection failed (they retry by themselves). */
  onError?: (error: unknown) => void;
}

export interface Wake {
  /** Resolves when the job may have events after the position armed with, or when `signal` aborts. */
  wait(signal: AbortSignal): Promise<void>;
  cancel(): void;
}

interface Waiter {
  after: number;
  wake: () => void;
}

const SQLITE_POLL_MS = 250;
const POSTGRES_SAFETY_POLL_MS = 5000;
/** Jobs asked about in one poll query. */
const POLL_CHUNK = 500;

/**
 * Tells this process's open event streams that their job has new events: at once when this
 * process wrote them, through LISTEN/NOTIFY when another process did on PostgreSQL, and by
 * polling (one query per process for every waiting stream) on SQLite and as PostgreSQL's
 * safety net. It only wakes streams; each reads its job's events itself. Nothing runs while
 * no stream waits, and a process that never streams never opens a listening connection.
 */
export class JobEventFeed {
  private readonly storage: Storage;
  private readonly pollMs: number;
  private readonly onError: (error: unknown) => void;
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly stopSignal: () => void;
  private listening: Listening | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private stopped = false;

  constructor(options: JobEventFeedOptions) {
    this.storage = options.log.storage;
    this.pollMs =
      options.pollMs ?? (this.storage.dialect === 'sqlite' ? SQLITE_POLL_MS : POSTGRES_SAFETY_POLL_MS);
    this.onError = options.onError ?? (() => {});
    this.stopSignal = options.log.onCommit((jobIds) => {
      for (const jobId of jobIds) this.wakeJob(jobId);
    });
  }

  /**
   * Starts waiting for the job's events after `after`. Arm before reading the job's events,
   * then wait only if the read found none: whatever commits in between wakes it.
   */
  arm(jobId: string, after: number): Wake {
    let resolve = () => {};
    const woken = new Promise<void>((r) => {
      resolve = r;
    });
    const waiter: Waiter = { after, wake: resolve };
    let set = this.waiters.get(jobId);
    if (!set) {
      set = new Set();
      this.waiters.set(jobId, set);
    }
    set.add(waiter);
    this.start();
    const cancel = () => {
      const current = this.waiters.get(jobId);
      current?.delete(waiter);
      if (current?.size === 0) this.waiters.delete(jobId);
    };
    return {
      cancel,
      wait: (signal) => {
        if (signal.aborted || this.stopped) return Promise.resolve();
        return new Promise<void>((done) => {
          const finish = () => {
            signal.removeEventListener('abort', finish);
            cancel();
            done();
          };
          signal.addEventListener('abort', finish, { once: true });
          void woken.then(finish);
        });
      },
    };
  }

  /** True once closed: streams end instead of waiting. */
  get closed(): boolean {
    return this.stopped;
  }

  /** Streams waiting now, over all jobs (for tests and diagnostics). */
  get waiting(): number {
    let count = 0;
    for (const set of this.waiters.values()) count += set.size;
    return count;
  }

  /** Wakes every waiting stream (so it can end) and stops listening and polling. */
  async close(): Promise<void> {
    this.stopped = true;
    this.stopSignal();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const jobId of [...this.waiters.keys()]) this.wakeJob(jobId);
    await this.listening?.close();
    this.listening = null;
  }

  private wakeJob(jobId: string, newest?: number): void {
    const set = this.waiters.get(jobId);
    if (!set) return;
    for (const waiter of [...set]) {
      if (newest !== undefined && newest <= waiter.after) continue;
      set.delete(waiter);
      waiter.wake();
    }
    if (set.size === 0) this.waiters.delete(jobId);
  }

  private start(): void {
    if (this.stopped) return;
    if (this.storage.listen && !this.listening) {
      this.listening = this.storage.listen(JOB_EVENTS_CHANNEL, {
        notification: (jobId) => this.wakeJob(jobId),
        // Notifications sent while the connection was down are lost: look now.
        listening: () => void this.poll(),
        error: (error) => this.onError(error),
      });
    }
    if (!this.timer) this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.poll().finally(() => {
        if (this.waiters.size > 0 && !this.stopped && !this.timer) this.schedule();
      });
    }, this.pollMs);
    this.timer.unref();
  }

  /** One query for every job a stream waits on: wakes those with newer events. */
  private async poll(): Promise<void> {
    if (this.polling || this.waiters.size === 0 || this.stopped) return;
    this.polling = true;
    try {
      const jobIds = [...this.waiters.keys()];
      for (let i = 0; i < jobIds.length; i += POLL_CHUNK) {
        const latest = await latestJobEventIds(this.storage.db, jobIds.slice(i, i + POLL_CHUNK));
        for (const [jobId, newest] of latest) this.wakeJob(jobId, newest);
      }
    } catch (error) {
      this.onError(error);
    } finally {
      this.polling = false;
    }
  }
}

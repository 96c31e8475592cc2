import type { Logger } from 'pino';
import type {
  AnalyticsSettings,
  AnalyticsSettingsStore,
  AnalyticsStore,
  AppendResult,
  Breakdown,
  BreakdownQuery,
  PageQuery,
  PageReport,
  PreparedColumns,
  PreparedEvent,
  Reclassifier,
  ReclassifyResult,
  SaltStore,
  SeriesPoint,
  SeriesQuery,
  ViewScan,
  ViewScanner,
} from '../../../domain/analytics/store.ts';
import { type Clock, systemClock } from '../../../domain/clock.ts';
import { AnalyticsDatabase } from './analytics-database.ts';
import { type EncodedBatch, encodeBatch } from './chunk-encoding.ts';
import { dayId, EventKeyCache } from './event-keys.ts';
import { ProjectIndexes } from './project-indexes.ts';
import { RangeQueries } from './range-queries.ts';
import { reclassifyViews } from './reclassify.ts';
import { countProjectViews, scanViews } from './scan.ts';
import { type PendingAppend, WriteQueue } from './write-queue.ts';

export interface EmbeddedStoreOptions {
  /** The analytics SQLite file, e.g. `<data dir>/analytics.sqlite`. */
  file: string;
  synchronous?: 'full' | 'normal';
  /** Shared with the other threads of this process writing the same file (import workers). */
  threadLock?: SharedArrayBuffer;
  /** Which visitor keys to load before the first write (see AnalyticsDatabaseOptions). */
  visitorKeys?: 'recent' | 'all';
  /** How often the in-memory index is checkpointed to the file; 0 only on close. */
  checkpointIntervalMs?: number;
  /** Most buckets one time series may have. */
  maxSeriesBuckets?: number;
  /** Most idempotency keys kept in memory across days (10–12 bytes each). */
  keyCacheLimit?: number;
  clock?: Clock;
  logger?: Logger;
}

/** The parts that exist once the file is open. */
interface Opened {
  db: AnalyticsDatabase;
  indexes: ProjectIndexes;
  keys: EventKeyCache;
}

/**
 * The embedded analytics engine. Views are appended to the SQLite event log (group-committed:
 * concurrent requests share one transaction and one sync; see write-queue.ts); each project's
 * index lives in memory once queried — per-day visitor sets over dense visitor numbers — and is
 * rebuilt on start from per-day checkpoints plus the log after them (project-indexes.ts).
 * Events written by another process (an import) are picked up from the log, in seq order,
 * before each query and each write.
 *
 * Implements the salts and settings too, from the analytics file (legacy-metadata.ts), until
 * they have moved to the main database; a store holding views only is the target.
 */
export class EmbeddedAnalyticsStore
  implements AnalyticsStore, ViewScanner, SaltStore, AnalyticsSettingsStore
{
  private readonly options: EmbeddedStoreOptions;
  private readonly clock: Clock;
  private state: Opened | null = null;
  private readonly projectNos = new Map<string, number>();
  private readonly queue = new WriteQueue((batch) => this.commit(batch));
  private readonly queries: RangeQueries;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(options: EmbeddedStoreOptions) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.queries = new RangeQueries(
      {
        database: () => this.open().db,
        currentIndex: (projectId) => {
          const projectNo = this.projectNo(projectId);
          this.catchUp();
          return this.open().indexes.get(projectNo);
        },
        tailSeq: () => this.open().indexes.tailSeq,
        yesterday: () => this.open().indexes.yesterday(),
        addQuarters: (projectNo, day) => this.open().indexes.addQuarters(projectNo, day),
      },
      options.maxSeriesBuckets,
    );
  }

  append(projectId: string, events: readonly PreparedEvent[]): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('The analytics store is closed'));
    if (events.length === 0) return Promise.resolve({ accepted: 0, duplicates: 0 });
    return this.queue.push(projectId, events);
  }

  appendColumns(projectId: string, columns: PreparedColumns): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('The analytics store is closed'));
    if (columns.count === 0) return Promise.resolve({ accepted: 0, duplicates: 0 });
    return this.queue.push(projectId, columns);
  }

  async pages(projectId: string, query: PageQuery): Promise<PageReport> {
    return this.queries.pages(projectId, query);
  }

  async timeSeries(projectId: string, query: SeriesQuery): Promise<SeriesPoint[]> {
    return this.queries.timeSeries(projectId, query);
  }

  async breakdown(projectId: string, query: BreakdownQuery): Promise<Breakdown> {
    return this.queries.breakdown(projectId, query);
  }

  async salt(period: string): Promise<Buffer> {
    return this.open().db.legacy.salt(period);
  }

  async forgetSalts(expired: (period: string) => boolean): Promise<string[]> {
    return this.open().db.legacy.forgetSalts(expired);
  }

  async settings(projectId: string): Promise<AnalyticsSettings> {
    return this.open().db.legacy.settings(projectId);
  }

  async saveSettings(projectId: string, settings: AnalyticsSettings): Promise<void> {
    this.open().db.legacy.saveSettings(projectId, settings);
  }

  async deleteSettings(projectId: string): Promise<void> {
    this.open().db.legacy.deleteSettings(projectId);
  }

  async deleteProject(projectId: string): Promise<void> {
    const { db, indexes, keys } = this.open();
    const projectNo = this.projectNo(projectId);
    db.write(() => db.deleteProject(projectNo, projectId));
    indexes.forget(projectNo);
    this.queries.cache.clear();
    // Event ids are cached per (project, day); the project id is never used again, so other
    // processes' caches may keep its entries until they are evicted.
    keys.clear();
  }

  async scan(projectId: string, cursor: string | null, limit: number): Promise<ViewScan> {
    const { db } = this.open();
    const projectNo = db.projects.find(projectId);
    return projectNo === undefined ? { views: [], next: null } : scanViews(db, projectNo, cursor, limit);
  }

  async countViews(projectId: string): Promise<number> {
    const { db } = this.open();
    const projectNo = db.projects.find(projectId);
    return projectNo === undefined ? 0 : countProjectViews(db, projectNo);
  }

  async reclassify(projectId: string, classifier: Reclassifier): Promise<ReclassifyResult> {
    const { db, indexes } = this.open();
    const projectNo = this.projectNo(projectId);
    const { examined, changed, rewritten } = reclassifyViews(db, projectNo, classifier);
    if (rewritten) {
      indexes.forget(projectNo);
      // Build the new index and checkpoint it, so a server reloads it from the checkpoint
      // rather than replaying every view on its next query.
      indexes.get(projectNo);
      indexes.checkpoint();
    }
    return { examined, changed };
  }

  /** Writes checkpoints of every loaded index (also runs on a timer and on close). */
  checkpoint(): void {
    this.state?.indexes.checkpoint();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.queue.flush();
    if (!this.state) return;
    try {
      this.checkpoint();
    } finally {
      this.state.db.close();
      this.state = null;
    }
  }

  private open(): Opened {
    if (this.state) return this.state;
    if (this.closed) throw new Error('The analytics store is closed');
    const db = new AnalyticsDatabase({
      file: this.options.file,
      ...(this.options.synchronous ? { synchronous: this.options.synchronous } : {}),
      ...(this.options.threadLock ? { threadLock: this.options.threadLock } : {}),
      ...(this.options.visitorKeys ? { visitorKeys: this.options.visitorKeys } : {}),
    });
    this.state = {
      db,
      indexes: new ProjectIndexes(db, this.clock, this.options.logger),
      keys: new EventKeyCache(db, this.options.keyCacheLimit),
    };
    const interval = this.options.checkpointIntervalMs ?? 60_000;
    if (interval > 0) {
      this.timer = setInterval(() => {
        try {
          this.checkpoint();
        } catch (error) {
          this.options.logger?.warn({ err: error }, 'analytics checkpoint failed; will retry');
        }
      }, interval);
      this.timer.unref();
    }
    return this.state;
  }

  private projectNo(projectId: string): number {
    let no = this.projectNos.get(projectId);
    if (no === undefined) {
      no = this.open().db.projectNo(projectId);
      this.projectNos.set(projectId, no);
    }
    return no;
  }

  /** Stores a batch of appends in one write transaction, then settles each append. */
  private commit(batch: PendingAppend[]): void {
    let encoded: EncodedBatch;
    let opened: Opened;
    try {
      opened = this.open();
      const { db, keys } = opened;
      const projectNos = batch.map((p) => this.projectNo(p.projectId));
      encoded = db.write(() => {
        // Under the write lock: first take in what other processes committed, so the
        // duplicate check sees every stored key and our chunks follow on from tailSeq.
        this.catchUp();
        return encodeBatch(db, keys, batch, projectNos);
      });
    } catch (error) {
      // `encodeBatch` put the batch's keys into the cached sets: they were never stored.
      this.state?.keys.clear();
      for (const pending of batch) pending.reject(error);
      return;
    }
    const { indexes, keys, db } = opened;
    try {
      for (const chunk of encoded.written) {
        keys.apply(chunk, encoded.touched.get(dayId(chunk.project, chunk.day)));
        indexes.apply(chunk);
      }
      const last = encoded.written[encoded.written.length - 1];
      if (last) indexes.tailSeq = last.seq;
    } catch (error) {
      // The views are stored; a broken index is rebuilt from the log on the next query.
      this.options.logger?.error({ err: error }, 'analytics index update failed; reloading');
      indexes.clear();
      this.queries.cache.clear();
      keys.clear();
      indexes.tailSeq = db.chunks.maxSeq();
    }
    batch.forEach((pending, i) => {
      pending.resolve(encoded.results[i] as AppendResult);
    });
  }

  /** Reads chunks other processes appended since `tailSeq` into the loaded indexes and key sets. */
  private catchUp(): void {
    const { db, indexes, keys } = this.open();
    const max = db.chunks.maxSeq();
    if (max <= indexes.tailSeq) return;
    if (indexes.size > 0 || keys.size > 0) {
      indexes.replay(db.chunks.after(indexes.tailSeq, max), (chunk) => keys.apply(chunk));
    }
    indexes.tailSeq = max;
  }
}

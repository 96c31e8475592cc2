import type { Logger } from 'pino';
import {
  CATEGORY_CODES,
  type Category,
  categoryFromCode,
  PURPOSE_CODES,
} from '../../../domain/analytics/categories.ts';
import {
  type AnalyticsSettings,
  type AnalyticsSettingsStore,
  type AnalyticsStore,
  type AppendResult,
  type Breakdown,
  type BreakdownQuery,
  type Counts,
  DEFAULT_ANALYTICS_SETTINGS,
  EVENT_FLAGS_MASK,
  type PageQuery,
  type PageReport,
  type PageRow,
  type PreparedEvent,
  type Reclassifier,
  type ReclassifyResult,
  type SaltStore,
  type SeriesPoint,
  type SeriesQuery,
  type TimeRange,
} from '../../../domain/analytics/store.ts';
import { type Clock, systemClock } from '../../../domain/clock.ts';
import { invalid } from '../../../domain/errors.ts';
import { AnalyticsDatabase, type Chunk, RECORD_WORDS } from './analytics-database.ts';
import { countClipped, EdgeCollector, type EdgeViews } from './clipped-count.ts';
import {
  aiCodes,
  countPages,
  countTotals,
  distinctCount,
  Marks,
  type Members,
  unionCounts,
  viewCounts,
} from './counting.ts';
import { CATEGORY_COUNT, COUNTED_CATEGORIES, DAY_MS, DayIndex, type DayOwner, HOUR_MS } from './day-index.ts';
import { KeySet } from './key-set.ts';
import { LastSeen } from './prev-list.ts';
import { rebuildPrevs } from './prev-rebuild.ts';
import { deserializeDay, serializeDay } from './snapshot.ts';
import type { VisitorSet } from './visitor-set.ts';

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
  /** Most idempotency keys kept in memory across days (16 bytes each at most). */
  keyCacheLimit?: number;
  clock?: Clock;
  logger?: Logger;
}

interface PendingAppend {
  projectId: string;
  events: readonly PreparedEvent[];
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

interface RangeContext {
  index: ProjectIndex;
  from: number;
  to: number;
  /** Each day touched, ascending, with the part of it inside the range. */
  parts: RangePart[];
  /** True when every part is a whole day of the index (no clipped edge). */
  wholeDays: boolean;
  /** One DayIndex per day touched, clipped to the range at its edges (built on first use). */
  segments: () => DayIndex[];
  /** The newest event in any day touched: a cached answer with the same value is current. */
  fingerprint: number;
}

interface RangePart {
  day: DayIndex;
  /** The part of the day inside the range: [from, to) in epoch ms. */
  from: number;
  to: number;
  whole: boolean;
}

interface CachedPages {
  fingerprint: number;
  totals: Counts;
  rows: PageRow[];
}

const CACHE_ENTRIES = 64;
const DEFAULT_KEY_CACHE = 4_000_000;
const BULK_TRIM_THRESHOLD = 100_000;

/**
 * The embedded analytics engine. Views are appended to the SQLite event log (group-committed:
 * concurrent requests share one transaction and one sync); each project's index lives in
 * memory once queried — per-day visitor sets over dense visitor numbers — and is rebuilt on
 * start from per-day snapshots plus the log after them. Events written by another process
 * (an import) are picked up from the log, in seq order, before each query.
 */
/**
 * Implements the salts and settings too, until they move to the main database; a store
 * holding views only is the target (see SaltStore).
 */
export class EmbeddedAnalyticsStore implements AnalyticsStore, SaltStore, AnalyticsSettingsStore {
  private readonly options: EmbeddedStoreOptions;
  private readonly clock: Clock;
  private opened: AnalyticsDatabase | null = null;
  /** Every loaded index reflects exactly the events with seq ≤ tailSeq. */
  private tailSeq = 0;
  private readonly loaded = new Map<number, ProjectIndex>();
  private readonly projectNos = new Map<string, number>();
  private queue: PendingAppend[] = [];
  private flushScheduled = false;
  private readonly marks = new Marks();
  private flags = new Uint8Array(0);
  private readonly pageCache = new Map<string, CachedPages>();
  /** Idempotency keys of recent (project, day)s, loaded from the chunks on first need. */
  private readonly keySets = new Map<number, KeySet>();
  private cachedKeys = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(options: EmbeddedStoreOptions) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
  }

  append(projectId: string, events: readonly PreparedEvent[]): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('The analytics store is closed'));
    if (events.length === 0) return Promise.resolve({ accepted: 0, duplicates: 0 });
    return new Promise((resolve, reject) => {
      this.queue.push({ projectId, events, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // Requests parsed in the same turn of the event loop share one transaction.
        setImmediate(() => this.flush());
      }
    });
  }

  async pages(projectId: string, query: PageQuery): Promise<PageReport> {
    const context = this.rangeContext(projectId, query.range);
    if (!context) return { totals: { human: 0, ai: 0, total: 0 }, rows: [], hasMore: false };
    const key = `${context.index.projectNo}|${context.from}|${context.to}|${query.measure}|${query.countAiCrawlersAsAi}`;
    let cached = this.pageCache.get(key);
    if (!cached || cached.fingerprint !== context.fingerprint) {
      cached = this.computePages(context, query);
      this.remember(key, cached);
    }
    const rows = cached.rows.slice(query.offset, query.offset + query.limit);
    return { totals: cached.totals, rows, hasMore: query.offset + query.limit < cached.rows.length };
  }

  async timeSeries(projectId: string, query: SeriesQuery): Promise<SeriesPoint[]> {
    const context = this.rangeContext(projectId, query.range);
    if (!context) return [];
    const step = query.interval === 'day' ? DAY_MS : HOUR_MS;
    const firstBucket = Math.floor(context.from / step) * step;
    const buckets = Math.ceil((context.to - firstBucket) / step);
    const max = this.options.maxSeriesBuckets ?? 10_000;
    if (buckets > max) {
      throw invalid(
        `A time series may have at most ${max} buckets; narrow the range or use a longer interval`,
      );
    }
    const ai = aiCodes(query.countAiCrawlersAsAi);
    const universe = this.database().visitorUniverse();
    const byDay = new Map(context.segments().map((s) => [s.day, s]));
    const points: SeriesPoint[] = [];
    for (let start = firstBucket; start < context.to; start += step) {
      const segment = byDay.get(Math.floor(start / DAY_MS));
      const human: VisitorSet[] = [];
      const aiSets: VisitorSet[] = [];
      if (segment) {
        const pick = (code: number) =>
          query.interval === 'day'
            ? segment.categories[code]
            : segment.hours[Math.floor((start % DAY_MS) / HOUR_MS) * COUNTED_CATEGORIES + code];
        const h = pick(0);
        if (h) human.push(h);
        for (const code of ai) {
          const set = pick(code);
          if (set) aiSets.push(set);
        }
      }
      points.push({
        start: Math.max(start, context.from),
        visitors: unionCounts(this.marks, universe, human, aiSets),
        views: viewCounts(human, aiSets),
      });
    }
    return points;
  }

  async breakdown(projectId: string, query: BreakdownQuery): Promise<Breakdown> {
    const context = this.rangeContext(projectId, query.range);
    const categories: Breakdown['categories'] = [];
    const agents: Breakdown['agents'] = [];
    if (!context) {
      for (let code = 0; code < CATEGORY_COUNT; code++) {
        categories.push({ category: categoryFromCode(code), visitors: 0, views: 0 });
      }
      return { categories, agents };
    }
    const db = this.database();
    const universe = db.visitorUniverse();
    for (let code = 0; code < CATEGORY_COUNT; code++) {
      const sets = context.segments().flatMap((s) => s.categories[code] ?? []);
      categories.push({
        category: categoryFromCode(code),
        visitors: distinctCount(this.marks, universe, sets),
        views: sets.reduce((sum, set) => sum + set.views, 0),
      });
    }
    const byAgent = new Map<number, VisitorSet[]>();
    for (const segment of context.segments()) {
      for (const [key, set] of segment.agents) {
        const list = byAgent.get(key);
        if (list) list.push(set);
        else byAgent.set(key, [set]);
      }
    }
    for (const [key, sets] of byAgent) {
      agents.push({
        agent: db.agents.nameOf(Math.floor(key / 8)),
        category: categoryFromCode(key % 8) as Category,
        visitors: distinctCount(this.marks, universe, sets),
        views: sets.reduce((sum, set) => sum + set.views, 0),
      });
    }
    agents.sort(
      (a, b) =>
        b.visitors - a.visitors || compareText(a.agent, b.agent) || compareText(a.category, b.category),
    );
    return { categories, agents };
  }

  async salt(period: string): Promise<Buffer> {
    return this.database().salt(period);
  }

  async forgetSalts(expired: (period: string) => boolean): Promise<string[]> {
    return this.database().forgetSalts(expired);
  }

  async settings(projectId: string): Promise<AnalyticsSettings> {
    const raw = this.database().settings(projectId);
    if (raw === null) return { ...DEFAULT_ANALYTICS_SETTINGS };
    const parsed = JSON.parse(raw) as Partial<AnalyticsSettings>;
    return { ...DEFAULT_ANALYTICS_SETTINGS, ...parsed };
  }

  async saveSettings(projectId: string, settings: AnalyticsSettings): Promise<void> {
    this.database().saveSettings(projectId, JSON.stringify(settings));
    this.pageCache.clear();
  }

  async deleteSettings(projectId: string): Promise<void> {
    this.database().deleteSettings(projectId);
  }

  async deleteProject(projectId: string): Promise<void> {
    const db = this.database();
    const projectNo = this.projectNo(projectId);
    db.write(() => db.deleteProject(projectNo, projectId));
    this.loaded.delete(projectNo);
    this.pageCache.clear();
    // Event ids are cached per (project, day); the project id is never used again, so other
    // processes' caches may keep its entries until they are evicted.
    this.keySets.clear();
    this.cachedKeys = 0;
  }

  async reclassify(projectId: string, classifier: Reclassifier): Promise<ReclassifyResult> {
    const db = this.database();
    const projectNo = this.projectNo(projectId);
    const userAgents = new Map<number, string>();
    const result: ReclassifyResult = { examined: 0, changed: 0 };
    let after = 0;
    let rewritten = false;
    for (;;) {
      // A short write transaction per page of chunks: appends from other processes interleave.
      const last = db.write(() => {
        const chunks = db.projectChunkPage(projectNo, after, 64);
        for (const chunk of chunks) {
          const w = chunk.words;
          let dirty = false;
          for (let r = 0; r < chunk.count * RECORD_WORDS; r += RECORD_WORDS) {
            if ((w[r + 7] as number) >= classifier.version) continue;
            const ua = w[r + 4] as number;
            let userAgent = userAgents.get(ua);
            if (userAgent === undefined) {
              userAgent = db.userAgents.nameOf(ua);
              userAgents.set(ua, userAgent);
            }
            const packed = w[r + 6] as number;
            const flags = (packed >>> 24) & EVENT_FLAGS_MASK;
            const { category, purpose, agent } = classifier.classify(userAgent, flags);
            const code = CATEGORY_CODES[category];
            const byte = flagsByte(flags, purpose === null ? 0 : PURPOSE_CODES[purpose]);
            const agentNo = db.agents.idFor(agent);
            result.examined++;
            if (code !== ((packed >>> 16) & 0xff) || byte !== packed >>> 24 || agentNo !== w[r + 3])
              result.changed++;
            w[r + 3] = agentNo;
            w[r + 6] = ((packed & 0xffff) | (code << 16) | (byte << 24)) >>> 0;
            w[r + 7] = classifier.version;
            dirty = true;
          }
          if (dirty) db.rewriteChunk(chunk.seq, w.subarray(0, chunk.count * RECORD_WORDS));
          rewritten ||= dirty;
        }
        return chunks.length === 0 ? null : (chunks[chunks.length - 1] as Chunk).seq;
      });
      if (last === null) break;
      after = last;
    }
    if (rewritten) {
      db.write(() => db.invalidateIndex(projectNo));
      this.loaded.delete(projectNo);
      this.pageCache.clear();
      // Build the new index and snapshot it, so a server reloads it from the snapshots rather
      // than replaying every view on its next query.
      this.index(projectNo);
      this.checkpoint();
    }
    return result;
  }

  /** Writes snapshots of every loaded index (also runs on a timer and on close). */
  checkpoint(): void {
    if (!this.opened) return;
    const db = this.opened;
    const today = Math.floor(this.clock().getTime() / DAY_MS);
    for (const index of this.loaded.values()) {
      db.saveSnapshots(index.projectNo, this.tailSeq, index.generation, function* (stored) {
        for (const day of index.days.values()) {
          if (day.lastSeq <= stored) continue;
          if (day.day < today - 1) day.trim();
          yield { day: day.day, data: serializeDay(day) };
        }
      });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.queue.length > 0) this.flush();
    if (!this.opened) return;
    try {
      this.checkpoint();
    } finally {
      this.opened.close();
      this.opened = null;
    }
  }

  private database(): AnalyticsDatabase {
    if (this.opened) return this.opened;
    if (this.closed) throw new Error('The analytics store is closed');
    const db = new AnalyticsDatabase({
      file: this.options.file,
      ...(this.options.synchronous ? { synchronous: this.options.synchronous } : {}),
      ...(this.options.threadLock ? { threadLock: this.options.threadLock } : {}),
      ...(this.options.visitorKeys ? { visitorKeys: this.options.visitorKeys } : {}),
    });
    this.opened = db;
    this.tailSeq = db.maxSeq();
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
    return db;
  }

  private projectNo(projectId: string): number {
    let no = this.projectNos.get(projectId);
    if (no === undefined) {
      no = this.database().projectNo(projectId);
      this.projectNos.set(projectId, no);
    }
    return no;
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    let written: Chunk[];
    let results: AppendResult[];
    let touched: Map<number, KeySet>;
    try {
      const db = this.database();
      const projectNos = batch.map((p) => this.projectNo(p.projectId));
      ({ written, results, touched } = db.write(() => {
        // Under the write lock: first take in what other processes committed, so the
        // duplicate check sees every stored key and our chunks follow on from tailSeq.
        this.catchUp();
        return this.encode(batch, projectNos);
      }));
    } catch (error) {
      // `encode` put the batch's keys into the cached sets: they were never stored.
      this.keySets.clear();
      this.cachedKeys = 0;
      for (const pending of batch) pending.reject(error);
      return;
    }
    try {
      for (const chunk of written) this.applyChunk(chunk, touched.get(dayId(chunk.project, chunk.day)));
      const last = written[written.length - 1];
      if (last) this.tailSeq = last.seq;
    } catch (error) {
      // The events are stored; a broken index is rebuilt from the log on the next query.
      this.options.logger?.error({ err: error }, 'analytics index update failed; reloading');
      this.loaded.clear();
      this.pageCache.clear();
      this.keySets.clear();
      this.cachedKeys = 0;
      this.tailSeq = this.database().maxSeq();
    }
    batch.forEach((pending, i) => {
      pending.resolve(results[i] as AppendResult);
    });
  }

  /** Packs the queued views into one chunk per (project, day) and stores them (inside `write`). */
  private encode(
    batch: PendingAppend[],
    projectNos: number[],
  ): { written: Chunk[]; results: AppendResult[]; touched: Map<number, KeySet> } {
    const db = this.database();
    const chunks = new Map<number, ChunkWriter>();
    // New keys go straight into the day's key set (held here even if the cache evicts it, so
    // the batch is checked against itself); if the transaction fails, `flush` drops every
    // cached set, so none of them outlives a rollback.
    const touched = new Map<number, KeySet>();
    let chunk: ChunkWriter | null = null;
    let keys: KeySet | null = null;
    const results = batch.map((pending, i): AppendResult => {
      const project = projectNos[i] as number;
      let accepted = 0;
      let duplicates = 0;
      for (const event of pending.events) {
        const day = Math.floor(event.timestamp / DAY_MS);
        // Views come in time order: the (project, day) rarely changes from one view to the next.
        if (chunk === null || chunk.day !== day || chunk.project !== project) {
          const id = dayId(project, day);
          chunk = chunks.get(id) ?? null;
          if (!chunk) {
            chunk = new ChunkWriter(project, day);
            chunks.set(id, chunk);
          }
          keys = null;
        }
        let lo = 0;
        let hi = 0;
        if (event.eventKey) {
          const k = event.eventKey;
          // Little-endian words of the digest's first 8 bytes (latin1: one char per byte).
          lo =
            (k.charCodeAt(0) | (k.charCodeAt(1) << 8) | (k.charCodeAt(2) << 16) | (k.charCodeAt(3) << 24)) >>>
            0;
          hi =
            (k.charCodeAt(4) | (k.charCodeAt(5) << 8) | (k.charCodeAt(6) << 16) | (k.charCodeAt(7) << 24)) >>>
            0;
          if (lo === 0 && hi === 0) lo = 1; // (0, 0) means "no key"
          if (keys === null) {
            const id = dayId(project, day);
            keys = touched.get(id) ?? this.keysOf(project, day);
            touched.set(id, keys);
          }
          if (!keys.add(lo, hi)) {
            duplicates++;
            continue;
          }
          this.cachedKeys++;
        }
        chunk.push(
          event.timestamp - day * DAY_MS,
          db.paths.idFor(event.path),
          db.visitors.idFor(event.visitorKey),
          db.agents.idFor(event.agent),
          db.userAgents.idFor(event.userAgent),
          event.referrer === null ? 0 : db.referrers.idFor(event.referrer),
          event.status ?? 0,
          CATEGORY_CODES[event.category],
          flagsByte(event.flags, event.purpose === null ? 0 : PURPOSE_CODES[event.purpose]),
          event.classifierVersion,
          lo,
          hi,
        );
        accepted++;
      }
      return { accepted, duplicates };
    });
    const written: Chunk[] = [];
    for (const c of chunks.values()) {
      const seq = db.insertChunk(c.project, c.day, c.count, c.words, c);
      written.push({ seq, project: c.project, day: c.day, count: c.count, words: c.words });
    }
    return { written, results, touched };
  }

  /** The stored keys of a (project, day), read from its chunks the first time. */
  private keysOf(project: number, day: number): KeySet {
    const id = dayId(project, day);
    const cached = this.keySets.get(id);
    if (cached) {
      // Most recently used last: eviction takes the oldest first.
      this.keySets.delete(id);
      this.keySets.set(id, cached);
      return cached;
    }
    const keys = new KeySet();
    for (const chunk of this.database().dayChunks(project, day, Number.MAX_SAFE_INTEGER))
      addKeys(keys, chunk);
    this.keySets.set(id, keys);
    this.cachedKeys += keys.size;
    const limit = this.options.keyCacheLimit ?? DEFAULT_KEY_CACHE;
    for (const [oldId, old] of this.keySets) {
      if (this.cachedKeys <= limit || oldId === id) break;
      this.keySets.delete(oldId);
      this.cachedKeys -= old.size;
    }
    return keys;
  }

  /**
   * Takes a stored chunk into the loaded index of its project and the cached keys of its day
   * (unless those are `hasKeys`, which `encode` filled already).
   */
  private applyChunk(chunk: Chunk, hasKeys?: KeySet): void {
    const keys = this.keySets.get(dayId(chunk.project, chunk.day));
    if (keys && keys !== hasKeys) {
      const before = keys.size;
      addKeys(keys, chunk);
      this.cachedKeys += keys.size - before;
    }
    const index = this.loaded.get(chunk.project);
    if (index) index.addChunk(chunk);
  }

  /** Reads chunks other processes appended since `tailSeq` into the loaded indexes and key sets. */
  private catchUp(): void {
    const db = this.database();
    const max = db.maxSeq();
    if (max <= this.tailSeq) return;
    if (this.loaded.size > 0 || this.keySets.size > 0) {
      let applied = 0;
      for (const chunk of db.chunksAfter(this.tailSeq, max)) {
        this.applyChunk(chunk);
        applied += chunk.count;
      }
      if (applied >= BULK_TRIM_THRESHOLD) this.trimOldDays();
    }
    this.tailSeq = max;
  }

  private index(projectNo: number): ProjectIndex {
    const db = this.database();
    const generation = db.generation(projectNo);
    const existing = this.loaded.get(projectNo);
    if (existing) {
      if (existing.generation === generation) return existing;
      // The views were rewritten (reclassified) since this index was built: build it again.
      this.loaded.delete(projectNo);
      this.pageCache.clear();
    }
    let index = new ProjectIndex(projectNo);
    const snapshot = db.loadSnapshots(projectNo);
    let covered = snapshot.covered;
    for (const data of snapshot.days) {
      const day = deserializeDay(data, index);
      if (!day || day.lastSeq > covered) {
        // An unreadable snapshot: rebuild this project from the log alone.
        this.options.logger?.warn({ projectNo }, 'analytics snapshot unreadable; rebuilding from events');
        index = new ProjectIndex(projectNo);
        covered = 0;
        break;
      }
      index.setDay(day);
    }
    // Snapshots hold the lists with their previous visits; the last-seen table is rebuilt.
    if (index.days.size > 0) index.reorder(db.visitorUniverse(), this.yesterday());
    let replayed = 0;
    for (const chunk of db.projectChunksAfter(projectNo, covered, this.tailSeq)) {
      index.addChunk(chunk);
      replayed += chunk.count;
    }
    index.generation = generation;
    this.loaded.set(projectNo, index);
    if (replayed >= BULK_TRIM_THRESHOLD) this.trimOldDays();
    return index;
  }

  /** Days before yesterday (UTC) rarely change: they are kept packed. */
  private yesterday(): number {
    return Math.floor(this.clock().getTime() / DAY_MS) - 1;
  }

  private trimOldDays(): void {
    const yesterday = this.yesterday();
    for (const index of this.loaded.values()) {
      for (const day of index.days.values()) if (day.day < yesterday) day.trim();
    }
  }

  private rangeContext(projectId: string, range: TimeRange): RangeContext | null {
    const projectNo = this.projectNo(projectId);
    this.catchUp();
    const index = this.index(projectNo);
    const days = index.sortedDays();
    const firstDay = days[0];
    const lastDay = days[days.length - 1];
    if (firstDay === undefined || lastDay === undefined) return null;
    // A range that starts before the project's first day starts there: nothing is earlier. It
    // also must: first visits are counted as entries whose previous visit is before the
    // range's first day, and "no previous visit" is day 0 (1970-01-01), so a range starting
    // on or before the epoch would count no one.
    const from = Math.max(range.from ?? Number.NEGATIVE_INFINITY, firstDay * DAY_MS);
    const to = range.to ?? (lastDay + 1) * DAY_MS;
    if (from >= to) return null;
    const parts: RangePart[] = [];
    let fingerprint = 0;
    let wholeDays = true;
    const fromDay = Math.floor(from / DAY_MS);
    const toDay = Math.floor((to - 1) / DAY_MS);
    for (let i = lowerBound(days, fromDay); i < days.length; i++) {
      const d = days[i] as number;
      if (d > toDay) break;
      const day = index.days.get(d);
      if (!day) continue;
      if (day.lastSeq > fingerprint) fingerprint = day.lastSeq;
      const dayStart = d * DAY_MS;
      const dayEnd = dayStart + DAY_MS;
      const whole = from <= dayStart && dayEnd <= to;
      if (!whole) wholeDays = false;
      parts.push({ day, from: Math.max(from, dayStart), to: Math.min(to, dayEnd), whole });
    }
    let segments: DayIndex[] | null = null;
    const built = () => {
      segments ??= parts.map((p) => (p.whole ? p.day : this.partialDay(projectNo, p.day.day, p.from, p.to)));
      return segments;
    };
    return { index, from, to, parts, wholeDays, segments: built, fingerprint };
  }

  /** A range edge inside a day is counted from the raw events of that part of the day. */
  private partialDay(projectNo: number, day: number, from: number, to: number): DayIndex {
    const segment = new DayIndex(day);
    const start = from - day * DAY_MS;
    const end = to - day * DAY_MS;
    for (const chunk of this.database().dayChunksInSpan(projectNo, day, this.tailSeq, start, end)) {
      const w = chunk.words;
      for (let r = 0; r < chunk.count * RECORD_WORDS; r += RECORD_WORDS) {
        const ms = w[r] as number;
        if (ms < start || ms >= end) continue;
        const packed = w[r + 6] as number;
        segment.addView(
          chunk.seq,
          day * DAY_MS + ms,
          w[r + 1] as number,
          w[r + 2] as number,
          (packed >>> 16) & 0xff,
          w[r + 3] as number,
        );
      }
    }
    return segment;
  }

  private computePages(context: RangeContext, query: PageQuery): CachedPages {
    const db = this.database();
    const universe = db.visitorUniverse();
    const ai = aiCodes(query.countAiCrawlersAsAi);
    if (!context.wholeDays && query.measure === 'visitors' && ai.length === 1) {
      const clipped = this.computeClipped(context);
      if (clipped) return clipped;
    }
    let firstDay: number | null = null;
    if (context.wholeDays) {
      context.index.ensureInOrder(universe, this.yesterday());
      firstDay = Math.floor(context.from / DAY_MS);
    }
    const counted = countPages(this.marks, universe, context.segments(), query.measure, ai, firstDay);
    const rows: PageRow[] = counted.map((c) => ({
      path: db.paths.nameOf(c.path),
      human: c.human,
      ai: c.ai,
      total: c.total,
    }));
    rows.sort((a, b) => b.total - a.total || compareText(a.path, b.path));
    const totals = countTotals(this.marks, universe, context.segments(), query.measure, ai);
    return { fingerprint: context.fingerprint, totals, rows };
  }

  /**
   * Visitors per page over a range with clipped edge days, ai without crawlers: the whole days
   * by the previous-visit scan, the edges from their raw views (see countClipped). Null when
   * the range has no whole day boundary to work from (one day clipped at both ends).
   */
  private computeClipped(context: RangeContext): CachedPages | null {
    const parts = context.parts;
    const first = parts[0];
    const last = parts[parts.length - 1];
    if (!first || !last) return null;
    const leftPart = first.whole ? null : first;
    const rightPart = last.whole || last === first ? null : last;
    if (leftPart && leftPart === last) return null;
    const db = this.database();
    const universe = db.visitorUniverse();
    context.index.ensureInOrder(universe, this.yesterday());
    const edges = new Map<number, EdgeCollector>();
    for (const part of [leftPart, rightPart]) {
      if (part) edges.set(part.day.day, new EdgeCollector(part.day.day, part.from, part.to));
    }
    for (const [day, edge] of edges) {
      // Chunks outside the edge's part of the day are skipped: a clipped first day of a range
      // at +02:00 keeps its last two hours and reads about a twelfth of that day.
      const chunks = db.dayChunksInSpan(context.index.projectNo, day, this.tailSeq, edge.start, edge.end);
      for (const chunk of chunks) {
        const w = chunk.words;
        for (let r = 0; r < chunk.count * RECORD_WORDS; r += RECORD_WORDS) {
          edge.add(
            w[r] as number,
            w[r + 1] as number,
            w[r + 2] as number,
            ((w[r + 6] as number) >>> 16) & 0xff,
          );
        }
      }
    }
    const left = leftPart ? (edges.get(leftPart.day.day)?.edge ?? null) : null;
    const rightEdge = rightPart ? edges.get(rightPart.day.day)?.edge : undefined;
    const whole = parts.filter((p) => p.whole).map((p) => p.day);
    const firstWhole = Math.floor(context.from / DAY_MS) + (leftPart ? 1 : 0);
    const [human, ai, total] = countClipped(
      {
        whole,
        firstWhole,
        left,
        right: rightPart && rightEdge ? { edge: rightEdge, index: rightPart.day } : null,
      },
      this.visitorFlags(universe),
    ) as [Int32Array, Int32Array, Int32Array];
    const rows: PageRow[] = [];
    for (let path = 0; path < total.length; path++) {
      const t = total[path] as number;
      if (t > 0)
        rows.push({
          path: db.paths.nameOf(path),
          human: human[path] as number,
          ai: ai[path] as number,
          total: t,
        });
    }
    rows.sort((a, b) => b.total - a.total || compareText(a.path, b.path));
    // Totals: the whole days' category sets and the edges' views, unioned.
    const humanSets: Members[] = [];
    const aiSets: Members[] = [];
    for (const day of whole) {
      const h = day.categories[0];
      if (h) humanSets.push(h);
      const a = day.categories[1];
      if (a) aiSets.push(a);
    }
    for (const edge of [left, rightEdge]) {
      if (!edge) continue;
      const split = splitByCategory(edge);
      humanSets.push(split.human);
      aiSets.push(split.ai);
    }
    const totals = unionCounts(this.marks, universe, humanSets, aiSets);
    return { fingerprint: context.fingerprint, totals, rows };
  }

  /** One zeroed byte per visitor number, reused across queries (countClipped leaves it zeroed). */
  private visitorFlags(universe: number): Uint8Array {
    if (this.flags.length < universe) this.flags = new Uint8Array(universe + 65_536);
    return this.flags;
  }

  private remember(key: string, value: CachedPages): void {
    this.pageCache.delete(key);
    this.pageCache.set(key, value);
    if (this.pageCache.size > CACHE_ENTRIES) {
      const oldest = this.pageCache.keys().next().value;
      if (oldest !== undefined) this.pageCache.delete(oldest);
    }
  }
}

/** One project's in-memory index: a DayIndex per UTC day with views. */
class ProjectIndex implements DayOwner {
  readonly projectNo: number;
  /** The project's index generation (see AnalyticsDatabase.generation) it was built at. */
  generation = 0;
  readonly days = new Map<number, DayIndex>();
  lastSeen = new LastSeen();
  /** The earliest day a view arrived for out of time order; previous visits after it are stale. */
  private disorderFrom = Number.POSITIVE_INFINITY;
  private sorted: number[] | null = null;

  constructor(projectNo: number) {
    this.projectNo = projectNo;
  }

  outOfOrder(day: number): void {
    if (day < this.disorderFrom) this.disorderFrom = day;
  }

  /** Makes every list's previous visits exact again, if views arrived out of order. */
  ensureInOrder(universe: number, packBefore: number): void {
    if (this.disorderFrom !== Number.POSITIVE_INFINITY) this.reorder(universe, packBefore);
  }

  /** Rebuilds every previous visit and the last-seen table; packs the days before `packBefore`. */
  reorder(universe: number, packBefore = Number.NEGATIVE_INFINITY): void {
    const days = this.sortedDays().map((d) => this.days.get(d) as DayIndex);
    this.lastSeen = rebuildPrevs(days, universe);
    this.disorderFrom = Number.POSITIVE_INFINITY;
    for (const day of days) if (day.day < packBefore) day.trim();
  }

  addChunk(chunk: Chunk): void {
    let day = this.days.get(chunk.day);
    if (!day) {
      day = new DayIndex(chunk.day, this);
      this.setDay(day);
    }
    const base = chunk.day * DAY_MS;
    const w = chunk.words;
    for (let r = 0; r < chunk.count * RECORD_WORDS; r += RECORD_WORDS) {
      const packed = w[r + 6] as number;
      day.addView(
        chunk.seq,
        base + (w[r] as number),
        w[r + 1] as number,
        w[r + 2] as number,
        (packed >>> 16) & 0xff,
        w[r + 3] as number,
      );
    }
  }

  setDay(day: DayIndex): void {
    this.days.set(day.day, day);
    this.sorted = null;
  }

  sortedDays(): number[] {
    if (!this.sorted) this.sorted = [...this.days.keys()].sort((a, b) => a - b);
    return this.sorted;
  }
}

/** An edge's visitors, human and ai apart (repeats kept: unions do not mind). */
function splitByCategory(edge: EdgeViews): { human: Members; ai: Members } {
  const { visitors, codes, length } = edge.views;
  const human = new Uint32Array(length);
  const ai = new Uint32Array(length);
  let h = 0;
  let a = 0;
  for (let i = 0; i < length; i++) {
    const visitor = visitors[i] as number;
    if (codes[i] === 0) human[h++] = visitor;
    else ai[a++] = visitor;
  }
  return { human: { values: human, length: h, views: 0 }, ai: { values: ai, length: a, views: 0 } };
}

/** Code-point order: stable and locale-independent, so paging is deterministic. */
function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function lowerBound(values: number[], target: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((values[mid] as number) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Builds one chunk: RECORD_WORDS u32 per view. */
class ChunkWriter {
  readonly project: number;
  readonly day: number;
  words = new Uint32Array(RECORD_WORDS * 64);
  count = 0;
  /** The earliest and latest ms of day of the views in the chunk. */
  firstMs = Number.POSITIVE_INFINITY;
  lastMs = Number.NEGATIVE_INFINITY;

  constructor(project: number, day: number) {
    this.project = project;
    this.day = day;
  }

  /**
   * Layout: [0] ms of day, [1] path, [2] visitor, [3] agent, [4] user agent, [5] referrer (0:
   * none), [6] status | category << 16 | flags << 24 (see flagsByte), [7] classifier version,
   * [8..9] key (0, 0: none).
   */
  push(
    msOfDay: number,
    path: number,
    visitor: number,
    agent: number,
    userAgent: number,
    referrer: number,
    status: number,
    category: number,
    flags: number,
    classifier: number,
    keyLo: number,
    keyHi: number,
  ): void {
    if ((this.count + 1) * RECORD_WORDS > this.words.length) {
      const grown = new Uint32Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
    }
    const w = this.words;
    const r = this.count * RECORD_WORDS;
    if (msOfDay < this.firstMs) this.firstMs = msOfDay;
    if (msOfDay > this.lastMs) this.lastMs = msOfDay;
    w[r] = msOfDay;
    w[r + 1] = path;
    w[r + 2] = visitor;
    w[r + 3] = agent;
    w[r + 4] = userAgent;
    w[r + 5] = referrer;
    w[r + 6] = ((status & 0xffff) | ((category & 0xff) << 16) | ((flags & 0xff) << 24)) >>> 0;
    w[r + 7] = classifier;
    w[r + 8] = keyLo;
    w[r + 9] = keyHi;
    this.count++;
  }
}

/**
 * A view's flags byte: how it was fetched (EVENT_FLAGS, bits 0–2) and its purpose code (bits
 * 3–5; 0 for none). Views stored before purposes existed have 0 there until reclassified.
 */
function flagsByte(fetchFlags: number, purposeCode: number): number {
  return (fetchFlags & EVENT_FLAGS_MASK) | (purposeCode << 3);
}

function addKeys(keys: KeySet, chunk: Chunk): void {
  const w = chunk.words;
  for (let r = 0; r < chunk.count * RECORD_WORDS; r += RECORD_WORDS) {
    const lo = w[r + 8] as number;
    const hi = w[r + 9] as number;
    if (lo !== 0 || hi !== 0) keys.add(lo, hi);
  }
}

/** One number per (project, day), for maps keyed by both. */
function dayId(project: number, day: number): number {
  return project * 1_000_000 + day;
}

import type { Logger } from 'pino';
import type { Clock } from '../../../domain/clock.ts';
import type { AnalyticsDatabase } from './analytics-database.ts';
import { DAY_MS, type DayIndex } from './day-index.ts';
import { quartersOf } from './edge-quarters.ts';
import { dayId } from './event-keys.ts';
import type { PackedPages } from './packed-pages.ts';
import { ProjectIndex } from './project-index.ts';
import type { Chunk } from './record.ts';
import { daySerializer, deserializeDay } from './snapshot.ts';

/** The old days are packed again every this many views applied (see `apply`). */
export const BULK_TRIM_THRESHOLD = 100_000;

/**
 * The projects' in-memory indexes, loaded on first query from their checkpoints plus the chunks
 * after them, then kept up to date chunk by chunk; and their checkpoints, written on a timer
 * and on close.
 */
export class ProjectIndexes {
  /** Every loaded index reflects exactly the views with seq ≤ tailSeq. */
  tailSeq = 0;
  private readonly loaded = new Map<number, ProjectIndex>();
  /** Views applied since the old days were last packed (see `apply`). */
  private sinceTrim = 0;
  /** The last two distinct (project, day)s views were applied to, newest first (see `apply`). */
  private recentDays: [number, number] = [-1, -1];
  private readonly db: AnalyticsDatabase;
  private readonly clock: Clock;
  private readonly logger: Logger | undefined;

  private readonly universe = (): number => this.db.visitorUniverse();
  /** Packed days whose quarters could not be computed (see addQuarters): not tried again. */
  private readonly withoutQuarters = new WeakSet<PackedPages>();

  constructor(db: AnalyticsDatabase, clock: Clock, logger: Logger | undefined) {
    this.db = db;
    this.clock = clock;
    this.logger = logger;
    this.tailSeq = db.chunks.maxSeq();
  }

  get size(): number {
    return this.loaded.size;
  }

  /**
   * Takes a stored chunk into its project's index, if loaded. Every BULK_TRIM_THRESHOLD views
   * so taken, the old days are packed again, all but the last two days views went to: a replay
   * from the log, or a backfill through the API, opens one old day after another, and an open
   * day takes several times its packed size (a month of them open at once was most of a
   * server's peak memory). The day before the current one stays open too: a backfill's batches
   * in flight straddle a day boundary, and packing that day made its stragglers unpack it again
   * (a quarter of the server's allocations in the benchmark's HTTP phase were that round trip).
   */
  apply(chunk: Chunk): void {
    const index = this.loaded.get(chunk.project);
    if (!index) return;
    index.addChunk(chunk);
    const id = dayId(chunk.project, chunk.day);
    if (id !== this.recentDays[0]) this.recentDays = [id, this.recentDays[0]];
    this.sinceTrim += chunk.count;
    if (this.sinceTrim >= BULK_TRIM_THRESHOLD) {
      this.trimOldDays(this.recentDays);
      this.sinceTrim = 0;
    }
  }

  forget(projectNo: number): void {
    this.loaded.delete(projectNo);
  }

  clear(): void {
    this.loaded.clear();
  }

  /** The project's index as of `tailSeq`: loaded (or rebuilt, if its views were rewritten). */
  get(projectNo: number): ProjectIndex {
    const generation = this.db.checkpoints.generation(projectNo);
    const existing = this.loaded.get(projectNo);
    if (existing) {
      if (existing.generation === generation) return existing;
      // The views were rewritten (reclassified) since this index was built: build it again.
      this.loaded.delete(projectNo);
    }
    let index = new ProjectIndex(projectNo, this.universe);
    const days: DayIndex[] = [];
    let unreadable = false;
    let covered = this.db.checkpoints.load(projectNo, (data) => {
      const day = deserializeDay(data, index);
      if (day) days.push(day);
      else unreadable = true;
      return !unreadable;
    });
    if (unreadable || days.some((day) => day.lastSeq > covered)) {
      // An unreadable snapshot: rebuild this project from the log alone.
      this.logger?.warn({ projectNo }, 'analytics snapshot unreadable; rebuilding from events');
      index = new ProjectIndex(projectNo, this.universe);
      covered = 0;
    } else {
      for (const day of days) index.setDay(day);
    }
    index.generation = generation;
    this.loaded.set(projectNo, index);
    // The log after the snapshots is taken in without previous visits, then every previous
    // visit and the last-seen tables are rebuilt once (snapshots do not hold the tables). An
    // import's parallel workers commit days out of order: followed view by view, nearly every
    // view came late, and the rebuild then unpacked every day at once (the server's peak memory).
    index.deferPrevs = true;
    try {
      this.replay(this.db.chunks.projectAfter(projectNo, covered, this.tailSeq));
    } finally {
      index.deferPrevs = false;
    }
    if (index.days.size > 0) index.reorder(this.yesterday());
    for (const day of index.days.values()) this.addQuarters(index.projectNo, day);
    return index;
  }

  /**
   * Gives a packed day without quarters its quarters, from its views: ranges clipped on a
   * quarter hour then read its lists instead of its views. About 30 ms for a day of 330,000
   * views. Called when an index is loaded (for the days read from a format 3 snapshot, saved
   * open, or replayed from the log) and by a query for an edge day packed since; not by
   * checkpoints, which run while views arrive: reading a month of days' views there was ~80 MB
   * of garbage at a server's memory peak. Snapshots keep the quarters a day has.
   */
  addQuarters(projectNo: number, day: DayIndex): void {
    const packed = day.packed;
    if (!packed || packed.quarters || this.withoutQuarters.has(packed)) return;
    packed.quarters = quartersOf(
      packed,
      this.db.chunks.day(projectNo, day.day, day.lastSeq),
      this.universe(),
    );
    if (packed.quarters) return;
    // Its lists and its views disagree: its edges are read from the views, as off the quarter hours.
    this.withoutQuarters.add(packed);
    this.logger?.warn({ projectNo, day: day.day }, 'analytics day index does not match its views');
  }

  /**
   * Takes chunks, in seq order, into the loaded indexes (and hands each to `also`); after a
   * long replay (an index built from the log, an import caught up with) every old day is packed.
   */
  replay(chunks: Iterable<Chunk>, also?: (chunk: Chunk) => void): void {
    let replayed = 0;
    for (const chunk of chunks) {
      also?.(chunk);
      this.apply(chunk);
      replayed += chunk.count;
    }
    if (replayed >= BULK_TRIM_THRESHOLD) this.trimOldDays();
  }

  /** Writes snapshots of the days of every loaded index changed since its last checkpoint. */
  checkpoint(): void {
    const today = Math.floor(this.clock().getTime() / DAY_MS);
    // One buffer for every day's snapshot: each is stored before the next is written.
    const serialize = daySerializer();
    for (const index of this.loaded.values()) {
      this.db.checkpoints.save(index.projectNo, this.tailSeq, index.generation, function* (stored) {
        for (const day of index.days.values()) {
          if (day.lastSeq <= stored) continue;
          if (day.day < today - 1) day.trim();
          yield { day: day.day, data: serialize(day) };
        }
      });
    }
  }

  /** Days before yesterday (UTC) rarely change: they are kept packed. */
  yesterday(): number {
    return Math.floor(this.clock().getTime() / DAY_MS) - 1;
  }

  /** Packs the open days before yesterday, but the (project, day)s in `spare` (see `dayId`). */
  trimOldDays(spare: readonly number[] = []): void {
    const yesterday = this.yesterday();
    for (const index of this.loaded.values()) {
      for (const day of index.days.values()) {
        if (day.day < yesterday && !day.packed && !spare.includes(dayId(index.projectNo, day.day)))
          day.trim();
      }
    }
  }
}

import { DAY_MS, DayIndex, type DayOwner } from './day-index.ts';
import type { Seen } from './prev-list.ts';
import { buildLastSeen, rebuildPrevs } from './prev-rebuild.ts';
import { type Chunk, ViewCursor } from './record.ts';

/** One project's in-memory index: a DayIndex per UTC day with views. */
export class ProjectIndex implements DayOwner {
  readonly projectNo: number;
  /** The project's index generation (see CheckpointStore.generation) it was built at. */
  generation = 0;
  readonly days = new Map<number, DayIndex>();
  /**
   * The last-seen tables (about a quarter of an index's memory), built when a view first needs
   * them: an index loaded for queries, or for a project that gets no views, holds none.
   */
  private tables: Seen | null = null;
  /** Visitor numbers are below this (the analytics file's universe), for the rebuilds' scratch. */
  private readonly universe: () => number;
  /** See DayOwner.deferPrevs: set while ProjectIndexes replays the log into a new index. */
  deferPrevs = false;
  /** The earliest day a view arrived for out of time order; previous visits after it are stale. */
  private disorderFrom = Number.POSITIVE_INFINITY;
  private sorted: number[] | null = null;

  constructor(projectNo: number, universe: () => number) {
    this.projectNo = projectNo;
    this.universe = universe;
  }

  seen(): Seen {
    if (this.tables) return this.tables;
    const days = this.sortedDays().map((d) => this.days.get(d) as DayIndex);
    if (this.disorderFrom !== Number.POSITIVE_INFINITY || days.some((day) => day.repeats)) {
      this.tables = rebuildPrevs(days, this.universe(), true);
      this.disorderFrom = Number.POSITIVE_INFINITY;
    } else this.tables = buildLastSeen(days, this.universe());
    return this.tables;
  }

  /** The tables' size in bytes (0 while not built). */
  get tableBytes(): number {
    return this.tables ? this.tables.lastSeen.bytes + this.tables.purposeSeen.bytes : 0;
  }

  outOfOrder(day: number): void {
    if (day < this.disorderFrom) this.disorderFrom = day;
  }

  /** Makes every list's previous visits exact again, if views arrived out of order. */
  ensureInOrder(packBefore: number): void {
    if (this.disorderFrom !== Number.POSITIVE_INFINITY) this.reorder(packBefore);
  }

  /**
   * Rebuilds every previous visit, and the last-seen tables if views have needed them since
   * the index was loaded; packs the days before `packBefore`.
   */
  reorder(packBefore = Number.NEGATIVE_INFINITY): void {
    const universe = this.universe();
    const days = this.sortedDays().map((d) => this.days.get(d) as DayIndex);
    // The tables only if views have needed them since the index was loaded: see `seen`.
    if (this.tables) this.tables = rebuildPrevs(days, universe, true);
    else rebuildPrevs(days, universe, false);
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
    for (const v = new ViewCursor(chunk); v.next(); ) {
      day.addView(
        chunk.seq,
        base + v.msOfDay,
        v.path,
        v.visitor,
        v.category,
        v.agent,
        v.purposeCode,
        v.verified,
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

import { DAY_MS, DayIndex, type DayOwner } from './day-index.ts';
import { LastSeen } from './prev-list.ts';
import { rebuildPrevs } from './prev-rebuild.ts';
import { type Chunk, ViewCursor } from './record.ts';

/** One project's in-memory index: a DayIndex per UTC day with views. */
export class ProjectIndex implements DayOwner {
  readonly projectNo: number;
  /** The project's index generation (see CheckpointStore.generation) it was built at. */
  generation = 0;
  readonly days = new Map<number, DayIndex>();
  lastSeen = new LastSeen();
  purposeSeen = new LastSeen(4);
  /** See DayOwner.deferPrevs: set while ProjectIndexes replays the log into a new index. */
  deferPrevs = false;
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
    ({ lastSeen: this.lastSeen, purposeSeen: this.purposeSeen } = rebuildPrevs(days, universe));
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

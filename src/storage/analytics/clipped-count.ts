import { DAY_MS, type DayIndex } from './day-index.ts';
import { SIDE_AI, SIDE_HUMAN, SIDE_TOTAL } from './prev-list.ts';

/** The views of one UTC day that fall inside a range's clipped edge, as parallel columns. */
export interface EdgeViews {
  /** The UTC day (days since the epoch). */
  day: number;
  length: number;
  paths: Uint32Array;
  visitors: Uint32Array;
  /** Category codes; only 0 (human) and 1 (ai) are counted here. */
  categories: Uint8Array;
}

export interface ClippedRange {
  /** The days wholly inside the range, ascending, with exact previous visits. */
  whole: readonly DayIndex[];
  /** The first whole day of the range (the day after a clipped first day). */
  firstWhole: number;
  /** The clipped first day's views inside the range. */
  left: EdgeViews | null;
  /** The clipped last day's views inside the range, and that whole day's index. */
  right: { views: EdgeViews; index: DayIndex | undefined } | null;
}

/**
 * Exact distinct visitors per page (human, ai, human ∪ ai) over a range whose first and/or last
 * day is clipped, without building indexes for the clipped days. The whole days are counted by
 * the previous-visit scan (entries whose previous visit is before the first whole day). Then:
 * - a visitor of the clipped first day L is new unless it also came in the whole days, which is
 *   exactly when one of its whole-day entries has its previous visit on L;
 * - a visitor of the clipped last day R is new unless its previous visit before R (from R's
 *   own index) is in the whole days, or is on L and it is among the clipped first day's visitors.
 * The left and right edges must be different days.
 */
export function countClipped(range: ClippedRange, maxPathHint: number): Array<Int32Array> {
  let maxPath = maxPathHint;
  if (range.left) maxPath = Math.max(maxPath, maxOf(range.left.paths, range.left.length));
  if (range.right) maxPath = Math.max(maxPath, maxOf(range.right.views.paths, range.right.views.length));
  for (const day of range.whole) {
    if (day.packed) maxPath = Math.max(maxPath, maxOf(day.packed.paths, day.packed.paths.length));
    else for (const path of day.pages.keys()) if (path > maxPath) maxPath = path;
  }
  const sums = [new Int32Array(maxPath + 1), new Int32Array(maxPath + 1), new Int32Array(maxPath + 1)];
  const firstWhole = range.firstWhole;
  const leftDay = range.left ? range.left.day : -1;
  // (page, side, visitor) → LINKED: a whole-day entry's previous visit was on the clipped first
  // day; | SEEN_LEFT: a visitor of the clipped first day.
  const left = new PairMap(range.left ? range.left.length : 0);
  for (const day of range.whole) {
    const packed = day.packed;
    if (packed) {
      const { paths, offsets, values, prev } = packed;
      for (let i = 0; i < paths.length; i++) {
        const path = paths[i] as number;
        for (let side = 0; side < 3; side++) {
          const end = offsets[i * 4 + side + 1] as number;
          let count = 0;
          for (let j = offsets[i * 4 + side] as number; j < end; j++) {
            const p = prev[j] as number;
            if (p < firstWhole) {
              count++;
              if (p === leftDay) left.set(path * 4 + side, values[j] as number, LINKED);
            }
          }
          const sum = sums[side] as Int32Array;
          sum[path] = (sum[path] as number) + count;
        }
      }
      continue;
    }
    for (const [path, page] of day.pages) {
      for (let side = 0; side < 3; side++) {
        const list = page.lists[side];
        if (!list) continue;
        const { values, prev, length } = list;
        let count = 0;
        for (let j = 0; j < length; j++) {
          const p = prev[j] as number;
          if (p < firstWhole) {
            count++;
            if (p === leftDay) left.set(path * 4 + side, values[j] as number, LINKED);
          }
        }
        const sum = sums[side] as Int32Array;
        sum[path] = (sum[path] as number) + count;
      }
    }
  }

  if (range.left) {
    const { paths, visitors, categories, length } = range.left;
    for (let i = 0; i < length; i++) {
      const category = categories[i] as number;
      if (category > 1) continue;
      const path = paths[i] as number;
      const visitor = visitors[i] as number;
      for (let k = 0; k < 2; k++) {
        const side = k === 1 ? SIDE_TOTAL : category === 0 ? SIDE_HUMAN : SIDE_AI;
        const key = path * 4 + side;
        const flags = left.get(key, visitor);
        if (flags !== ABSENT && (flags & SEEN_LEFT) !== 0) continue;
        left.set(key, visitor, (flags === ABSENT ? 0 : flags) | SEEN_LEFT);
        if (flags === ABSENT || (flags & LINKED) === 0) {
          const sum = sums[side] as Int32Array;
          sum[path] = (sum[path] as number) + 1;
        }
      }
    }
  }

  if (range.right) {
    const { views, index } = range.right;
    // The previous visit of each of R's visitors where it can matter (on L or later); the
    // SEEN_RIGHT bit marks those already counted.
    const previous = new PairMap(views.length);
    const lowest = range.left ? leftDay : firstWhole;
    if (index) {
      const packed = index.packed;
      if (packed) {
        const { paths, offsets, values, prev } = packed;
        for (let i = 0; i < paths.length; i++) {
          const path = paths[i] as number;
          for (let side = 0; side < 3; side++) {
            const end = offsets[i * 4 + side + 1] as number;
            for (let j = offsets[i * 4 + side] as number; j < end; j++) {
              const p = prev[j] as number;
              if (p >= lowest) previous.set(path * 4 + side, values[j] as number, p);
            }
          }
        }
      } else {
        for (const [path, page] of index.pages) {
          for (let side = 0; side < 3; side++) {
            const list = page.lists[side];
            if (!list) continue;
            for (let j = 0; j < list.length; j++) {
              const p = list.prev[j] as number;
              if (p >= lowest) previous.set(path * 4 + side, list.values[j] as number, p);
            }
          }
        }
      }
    }
    const { paths, visitors, categories, length } = views;
    for (let i = 0; i < length; i++) {
      const category = categories[i] as number;
      if (category > 1) continue;
      const path = paths[i] as number;
      const visitor = visitors[i] as number;
      for (let k = 0; k < 2; k++) {
        const side = k === 1 ? SIDE_TOTAL : category === 0 ? SIDE_HUMAN : SIDE_AI;
        const key = path * 4 + side;
        const found = previous.get(key, visitor);
        if (found !== ABSENT && (found & SEEN_RIGHT) !== 0) continue;
        previous.set(key, visitor, found === ABSENT ? SEEN_RIGHT : found | SEEN_RIGHT);
        if (found === ABSENT) {
          // No previous visit on L or later: new to the range.
          const sum = sums[side] as Int32Array;
          sum[path] = (sum[path] as number) + 1;
          continue;
        }
        if (found >= firstWhole) continue; // came in the whole days
        if (range.left && found === leftDay) {
          const flags = left.get(key, visitor);
          if (flags !== ABSENT && (flags & SEEN_LEFT) !== 0) continue; // came in the clipped first day
        }
        const sum = sums[side] as Int32Array;
        sum[path] = (sum[path] as number) + 1;
      }
    }
  }
  return sums;
}

const LINKED = 1;
const SEEN_LEFT = 2;
/** Above any day number (days fit in 16 bits). */
const SEEN_RIGHT = 0x40000000;
const ABSENT = -1;

function maxOf(values: Uint32Array, length: number): number {
  let max = 0;
  for (let i = 0; i < length; i++) if ((values[i] as number) > max) max = values[i] as number;
  return max;
}

/** The clipped part [from, to) of one day, read from its raw views (chunk records). */
export class EdgeCollector {
  readonly views: EdgeViews;
  private readonly start: number;
  private readonly end: number;

  constructor(day: number, from: number, to: number) {
    this.views = {
      day,
      length: 0,
      paths: new Uint32Array(1024),
      visitors: new Uint32Array(1024),
      categories: new Uint8Array(1024),
    };
    this.start = from - day * DAY_MS;
    this.end = to - day * DAY_MS;
  }

  add(msOfDay: number, path: number, visitor: number, category: number): void {
    if (msOfDay < this.start || msOfDay >= this.end || category > 1) return;
    const v = this.views;
    if (v.length === v.paths.length) {
      const grow = <T extends Uint32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      v.paths = grow(v.paths, (n) => new Uint32Array(n));
      v.visitors = grow(v.visitors, (n) => new Uint32Array(n));
      v.categories = grow(v.categories, (n) => new Uint8Array(n));
    }
    v.paths[v.length] = path;
    v.visitors[v.length] = visitor;
    v.categories[v.length] = category;
    v.length++;
  }
}

/** A set of (u32, u32) pairs; the first must not be 0. Open addressing over one typed array. */
class PairSet {
  protected table: Uint32Array;
  protected mask: number;
  protected size = 0;
  protected readonly width: number;

  constructor(expected: number, width = 2) {
    this.width = width;
    let capacity = 64;
    while (capacity < expected * 2) capacity *= 2;
    this.table = new Uint32Array(capacity * width);
    this.mask = capacity - 1;
  }

  /** Adds the pair; false if it was there already. */
  add(a: number, b: number): boolean {
    const at = this.find(a, b);
    if (this.table[at] !== 0) return false;
    this.insertAt(at, a, b);
    return true;
  }

  has(a: number, b: number): boolean {
    return this.table[this.find(a, b)] !== 0;
  }

  protected insertAt(at: number, a: number, b: number): number {
    this.table[at] = a;
    this.table[at + 1] = b;
    this.size++;
    if (this.size * 2 > this.mask + 1) {
      this.grow();
      return this.find(a, b);
    }
    return at;
  }

  /** The slot (word index) holding the pair, or the empty slot where it would go. */
  protected find(a: number, b: number): number {
    const table = this.table;
    const width = this.width;
    let i = (Math.imul(b ^ Math.imul(a, 0x85ebca6b), 0x9e3779b1) >>> 0) & this.mask;
    for (;;) {
      const at = i * width;
      const x = table[at] as number;
      if (x === 0 || (x === a && table[at + 1] === b)) return at;
      i = (i + 1) & this.mask;
    }
  }

  private grow(): void {
    const old = this.table;
    const width = this.width;
    const capacity = (this.mask + 1) * 2;
    this.table = new Uint32Array(capacity * width);
    this.mask = capacity - 1;
    for (let at = 0; at < old.length; at += width) {
      const a = old[at] as number;
      if (a === 0) continue;
      const to = this.find(a, old[at + 1] as number);
      for (let k = 0; k < width; k++) this.table[to + k] = old[at + k] as number;
    }
  }
}

/** (u32, u32) → u32, absent reading as -1. */
class PairMap extends PairSet {
  constructor(expected: number) {
    super(expected, 3);
  }

  set(a: number, b: number, value: number): void {
    let at = this.find(a, b);
    if (this.table[at] === 0) at = this.insertAt(at, a, b);
    this.table[at + 2] = value;
  }

  get(a: number, b: number): number {
    const at = this.find(a, b);
    return this.table[at] === 0 ? -1 : (this.table[at + 2] as number);
  }
}

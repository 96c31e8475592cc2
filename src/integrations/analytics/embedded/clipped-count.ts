import { DAY_MS, type DayIndex, firstSince } from './day-index.ts';
import { SIDE_AI, SIDE_HUMAN } from './prev-list.ts';

/** (page, small code, visitor) triples as parallel columns, growing as needed. */
export class Columns {
  paths: Uint32Array;
  codes: Uint8Array;
  visitors: Uint32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.paths = new Uint32Array(capacity);
    this.codes = new Uint8Array(capacity);
    this.visitors = new Uint32Array(capacity);
  }

  push(path: number, code: number, visitor: number): void {
    if (this.length === this.paths.length) {
      const n = this.length * 2;
      this.paths = grow(this.paths, new Uint32Array(n));
      this.codes = grow(this.codes, new Uint8Array(n));
      this.visitors = grow(this.visitors, new Uint32Array(n));
    }
    this.paths[this.length] = path;
    this.codes[this.length] = code;
    this.visitors[this.length] = visitor;
    this.length++;
  }
}

/**
 * The views of one UTC day (days since the epoch) that fall inside a range's clipped edge; the
 * codes are categories, only 0 (human) and 1 (ai) kept.
 */
export interface EdgeViews {
  day: number;
  views: Columns;
}

export interface ClippedRange {
  /** The days wholly inside the range, ascending, with exact previous visits. */
  whole: readonly DayIndex[];
  /** The first whole day of the range (the day after a clipped first day). */
  firstWhole: number;
  /** The clipped first day's views inside the range. */
  left: EdgeViews | null;
  /** The clipped last day's views inside the range, and that whole day's index. */
  right: { edge: EdgeViews; index: DayIndex } | null;
}

// Per-visitor flags of the page being counted (one byte per visitor number).
/** Seen on the clipped first day inside the range, as human / as ai. */
const LEFT_HUMAN = 1;
const LEFT_AI = 2;
/** A whole-day entry (human / ai / total side) whose previous visit was on the clipped first day. */
const BACK_HUMAN = 4;
const BACK_AI = 8;
const BACK_TOTAL = 16;
/** Already counted among the clipped first day's visitors. */
const LEFT_DONE = 32;
/** Seen on the clipped last day inside the range, as human / as ai. */
const RIGHT_HUMAN = 64;
const RIGHT_AI = 128;
const LEFT_ANY = LEFT_HUMAN | LEFT_AI;
const RIGHT_ANY = RIGHT_HUMAN | RIGHT_AI;

/**
 * Exact distinct visitors per page (human, ai, human ∪ ai) over a range whose first and/or last
 * day is clipped, without building indexes for the clipped days. The whole days are counted by
 * the previous-visit scan (entries whose previous visit is before the first whole day). Then,
 * page by page, with one flag byte per visitor:
 * - a visitor of the clipped first day L is new unless it also came in the whole days, which is
 *   exactly when one of its whole-day entries has its previous visit on L;
 * - a visitor of the clipped last day R is new unless its previous visit before R (from R's
 *   own index) is in the whole days, or is on L and it is among the clipped first day's visitors.
 * No hash tables: every step is a sequential scan or a counting sort by page. `flags` must be
 * all zero and at least `universe` long; it is left all zero. Left and right must be different days.
 */
export function countClipped(range: ClippedRange, flags: Uint8Array): Array<Int32Array> {
  const { left, right, firstWhole } = range;
  const lv = left ? left.views : null;
  const rv = right ? right.edge.views : null;
  let maxPath = 0;
  if (lv) maxPath = Math.max(maxPath, maxOf(lv.paths, lv.length));
  if (right && rv) maxPath = Math.max(maxPath, maxOf(rv.paths, rv.length), maxPathOf(right.index));
  for (const day of range.whole) maxPath = Math.max(maxPath, maxPathOf(day));
  const sums = [
    new Int32Array(maxPath + 1),
    new Int32Array(maxPath + 1),
    new Int32Array(maxPath + 1),
  ] as const;
  const leftDay = left ? left.day : -1;

  // 1. Whole days, day by day; the entries coming back from L are kept for step 2. Packed days
  // are sorted by previous visit: the counted entries are a prefix, those from L its tail.
  const back = new Columns();
  for (const day of range.whole) {
    const packed = day.packed;
    if (packed) {
      const { paths, offsets, values, prev } = packed;
      for (let i = 0; i < paths.length; i++) {
        const path = paths[i] as number;
        for (let side = 0; side < 3; side++) {
          const start = offsets[i * 4 + side] as number;
          const end = firstSince(prev, start, offsets[i * 4 + side + 1] as number, firstWhole);
          const sum = sums[side] as Int32Array;
          sum[path] = (sum[path] as number) + (end - start);
          if (!left) continue;
          for (let j = end - 1; j >= start && prev[j] === leftDay; j--)
            back.push(path, side, values[j] as number);
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
            if (p === leftDay) back.push(path, side, values[j] as number);
          }
        }
        const sum = sums[side] as Int32Array;
        sum[path] = (sum[path] as number) + count;
      }
    }
  }
  if (!left && !right) return [...sums];

  // 2. Page by page: the edges' views and the returning entries, grouped by page.
  const leftByPath = lv ? groupByPath(lv.paths, lv.length, maxPath) : null;
  const backByPath = groupByPath(back.paths, back.length, maxPath);
  const rightByPath = rv ? groupByPath(rv.paths, rv.length, maxPath) : null;
  const rightLists = right ? listsByPath(right.index, maxPath, firstWhole) : null;
  const [humanSum, aiSum, totalSum] = sums;
  for (let path = 0; path <= maxPath; path++) {
    if (lv && leftByPath) {
      const { order, starts } = leftByPath;
      const from = starts[path] as number;
      const to = starts[path + 1] as number;
      if (from < to) {
        for (let k = from; k < to; k++) {
          const i = order[k] as number;
          const v = lv.visitors[i] as number;
          flags[v] = (flags[v] as number) | (lv.codes[i] === 0 ? LEFT_HUMAN : LEFT_AI);
        }
        for (let k = backByPath.starts[path] as number; k < (backByPath.starts[path + 1] as number); k++) {
          const i = backByPath.order[k] as number;
          const v = back.visitors[i] as number;
          const side = back.codes[i] as number;
          flags[v] =
            (flags[v] as number) |
            (side === SIDE_HUMAN ? BACK_HUMAN : side === SIDE_AI ? BACK_AI : BACK_TOTAL);
        }
        let human = 0;
        let ai = 0;
        let total = 0;
        for (let k = from; k < to; k++) {
          const v = lv.visitors[order[k] as number] as number;
          const f = flags[v] as number;
          if ((f & LEFT_DONE) !== 0) continue;
          flags[v] = f | LEFT_DONE;
          if ((f & (LEFT_HUMAN | BACK_HUMAN)) === LEFT_HUMAN) human++;
          if ((f & (LEFT_AI | BACK_AI)) === LEFT_AI) ai++;
          if ((f & BACK_TOTAL) === 0) total++;
        }
        humanSum[path] = (humanSum[path] as number) + human;
        aiSum[path] = (aiSum[path] as number) + ai;
        totalSum[path] = (totalSum[path] as number) + total;
      }
    }

    if (rv && rightByPath && rightLists) {
      const { order, starts } = rightByPath;
      const from = starts[path] as number;
      const to = starts[path + 1] as number;
      if (from < to) {
        for (let k = from; k < to; k++) {
          const i = order[k] as number;
          const v = rv.visitors[i] as number;
          flags[v] = (flags[v] as number) | (rv.codes[i] === 0 ? RIGHT_HUMAN : RIGHT_AI);
        }
        for (let side = 0; side < 3; side++) {
          const list = rightLists(path, side);
          if (!list) continue;
          const { values, prev, start, end } = list;
          const inRange = side === SIDE_HUMAN ? RIGHT_HUMAN : side === SIDE_AI ? RIGHT_AI : RIGHT_ANY;
          const onLeft = side === SIDE_HUMAN ? LEFT_HUMAN : side === SIDE_AI ? LEFT_AI : LEFT_ANY;
          let count = 0;
          for (let j = start; j < end; j++) {
            const f = flags[values[j] as number] as number;
            if ((f & inRange) === 0) continue;
            const p = prev[j] as number;
            // Before the range: new. On L: new unless seen on L inside the range. Else: counted.
            if (p < firstWhole && (p !== leftDay || (f & onLeft) === 0)) count++;
          }
          const sum = sums[side] as Int32Array;
          sum[path] = (sum[path] as number) + count;
        }
        for (let k = from; k < to; k++) flags[rv.visitors[order[k] as number] as number] = 0;
      }
    }

    // Leave the flags clear for the next page.
    if (lv && leftByPath) {
      const { order, starts } = leftByPath;
      for (let k = starts[path] as number; k < (starts[path + 1] as number); k++)
        flags[lv.visitors[order[k] as number] as number] = 0;
      for (let k = backByPath.starts[path] as number; k < (backByPath.starts[path + 1] as number); k++)
        flags[back.visitors[backByPath.order[k] as number] as number] = 0;
    }
  }
  return [...sums];
}

interface ListRange {
  values: Uint32Array;
  prev: Uint16Array;
  start: number;
  end: number;
}

/**
 * A lookup of one day's list by (page, side); of a packed day, only the entries whose previous
 * visit is before `before` (the others are never counted).
 */
function listsByPath(
  day: DayIndex,
  maxPath: number,
  before: number,
): (path: number, side: number) => ListRange | null {
  const packed = day.packed;
  if (packed) {
    const position = new Int32Array(maxPath + 1).fill(-1);
    for (let i = 0; i < packed.paths.length; i++) position[packed.paths[i] as number] = i;
    const { offsets, values, prev } = packed;
    return (path, side) => {
      const i = position[path] as number;
      if (i < 0) return null;
      const start = offsets[i * 4 + side] as number;
      return {
        values,
        prev,
        start,
        end: firstSince(prev, start, offsets[i * 4 + side + 1] as number, before),
      };
    };
  }
  return (path, side) => {
    const list = day.pages.get(path)?.lists[side];
    return list ? { values: list.values, prev: list.prev, start: 0, end: list.length } : null;
  };
}

/** Indexes grouped by page (a counting sort): page p's are `order[starts[p] .. starts[p + 1])`. */
function groupByPath(
  paths: Uint32Array,
  length: number,
  maxPath: number,
): { order: Uint32Array; starts: Uint32Array } {
  const starts = new Uint32Array(maxPath + 2);
  for (let i = 0; i < length; i++)
    starts[(paths[i] as number) + 1] = (starts[(paths[i] as number) + 1] as number) + 1;
  for (let p = 1; p < starts.length; p++) starts[p] = (starts[p] as number) + (starts[p - 1] as number);
  const next = starts.slice(0, maxPath + 1);
  const order = new Uint32Array(length);
  for (let i = 0; i < length; i++) {
    const p = paths[i] as number;
    const at = next[p] as number;
    order[at] = i;
    next[p] = at + 1;
  }
  return { order, starts };
}

function grow<T extends Uint32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

function maxOf(values: Uint32Array, length: number): number {
  let max = 0;
  for (let i = 0; i < length; i++) if ((values[i] as number) > max) max = values[i] as number;
  return max;
}

function maxPathOf(day: DayIndex): number {
  if (day.packed) return maxOf(day.packed.paths, day.packed.paths.length);
  let max = 0;
  for (const path of day.pages.keys()) if (path > max) max = path;
  return max;
}

/** The clipped part [from, to) of one day, read from its raw views (chunk records). */
export class EdgeCollector {
  readonly edge: EdgeViews;
  /** The part of the day kept, in ms of day: [start, end). */
  readonly start: number;
  readonly end: number;

  /** `capacity`: how many views will be offered at most (the edge's chunks' count), so the columns never grow. */
  constructor(day: number, from: number, to: number, capacity = 1024) {
    this.edge = { day, views: new Columns(Math.max(1, capacity)) };
    this.start = from - day * DAY_MS;
    this.end = to - day * DAY_MS;
  }

  add(msOfDay: number, path: number, visitor: number, category: number): void {
    if (msOfDay < this.start || msOfDay >= this.end || category > 1) return;
    this.edge.views.push(path, category, visitor);
  }
}

import { maxPathOf } from './counting.ts';
import { DAY_MS, type DayIndex } from './day-index.ts';
import { edgeCode } from './edge-code.ts';
import type { Quarters } from './edge-quarters.ts';
import { LIST_SIDES } from './index-layout.ts';
import type { Members } from './members.ts';
import { firstSince, type PackedPages } from './packed-pages.ts';

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
 * The views of one UTC day (days since the epoch) that fall inside a range's clipped edge; each
 * code is the mask of list sides (index-layout.ts) the view belongs to (see `edgeCode`).
 */
export interface EdgeViews {
  day: number;
  views: Columns;
}

/** One zeroed flag word per visitor number for each edge (see countClipped). */
export interface EdgeFlags {
  left: Uint16Array;
  right: Uint8Array;
}

/**
 * A clipped edge day read from its packed lists' quarters (edge-quarters.ts) rather than its
 * raw views: a clipped first day keeps the entries seen from quarter `quarter` on (`last ≥
 * quarter`, `keep` 'from'), a clipped last day those seen before it (`first < quarter`,
 * 'before').
 */
export interface QuarterEdge {
  day: DayIndex;
  packed: PackedPages;
  quarters: Quarters;
  quarter: number;
  keep: 'from' | 'before';
}

/** A clipped edge day: its views inside the range, or its quarters. */
export type Edge = { kind: 'views'; views: EdgeViews } | { kind: 'quarters'; quarters: QuarterEdge };

export interface ClippedRange {
  /** The days wholly inside the range, ascending, with exact previous visits. */
  whole: readonly DayIndex[];
  /** The first whole day of the range (the day after a clipped first day). */
  firstWhole: number;
  /** The clipped first day. */
  left: Edge | null;
  /** The clipped last day, and that whole day's index (for its previous visits). */
  right: { edge: Edge; index: DayIndex } | null;
}

/** Reused arrays for the edges' visitors per side (see countClipped). */
export interface EdgeScratch {
  left: Uint32Array[];
  right: Uint32Array[];
}

/**
 * Visitors per page and side, and the visitors of each edge read from its quarters per side
 * (repeats across pages kept: unions do not mind), valid until the scratch is used again.
 */
export interface ClippedCounts {
  sums: Int32Array[];
  left: Members[] | null;
  right: Members[] | null;
}

// Per-visitor flags of the page being counted, side k = 0..6, in two arrays so that each
// stays small enough for the cache (the right edge's scan reads only its byte per visitor):
/** Left flags (u16): seen on the clipped first day inside the range, on side k: bit k. */
const LEFT = 0;
/** Left flags: a whole-day entry of side k whose previous visit was on the clipped first day: bit 7 + k. */
const BACK = LIST_SIDES;
/** Left flags: already counted among the clipped first day's visitors. */
const LEFT_DONE = 1 << (2 * LIST_SIDES);
/** Right flags (u8): seen on the clipped last day inside the range, on side k: bit k. */
const SIDES_MASK = (1 << LIST_SIDES) - 1;

/**
 * Exact distinct visitors per page and list side (human, ai, human ∪ ai, each purpose) over a
 * range whose first and/or last day is clipped, without building indexes for the clipped days.
 * The whole days are counted by the previous-visit scan (entries whose previous visit is before
 * the first whole day). Then, page by page, with one flag word per visitor, for each side:
 * - a visitor of the clipped first day L is new unless it also came in the whole days, which is
 *   exactly when one of its whole-day entries has its previous visit on L;
 * - a visitor of the clipped last day R is new unless its previous visit before R (from R's
 *   own index) is in the whole days, or is on L and it is among the clipped first day's visitors.
 * An edge given by its quarters has one entry per visitor and side: it needs no grouping and,
 * on the right, no flags. No hash tables: every step is a sequential scan or a counting sort
 * by page. `flags` must be all zero and at least `universe` long; they are left all zero. Left
 * and right must be different days. Returns one array per side, indexed by path, and the
 * visitors of each edge given by its quarters, per side (in `scratch`'s arrays).
 */
export function countClipped(
  range: ClippedRange,
  { left: flags, right: rightFlags }: EdgeFlags,
  scratch: EdgeScratch = { left: [], right: [] },
): ClippedCounts {
  const { left, right, firstWhole } = range;
  const lv = left?.kind === 'views' ? left.views.views : null;
  const lq = left?.kind === 'quarters' ? left.quarters : null;
  if (lq && lq.keep !== 'from') throw new Error('A clipped first day keeps its end');
  const rv = right?.edge.kind === 'views' ? right.edge.views.views : null;
  const rq = right?.edge.kind === 'quarters' ? right.edge.quarters : null;
  if (rq && rq.keep !== 'before') throw new Error('A clipped last day keeps its start');
  let maxPath = 0;
  if (lv) maxPath = Math.max(maxPath, maxOf(lv.paths, lv.length));
  if (lq) maxPath = Math.max(maxPath, maxPathOf(lq.day));
  if (rv) maxPath = Math.max(maxPath, maxOf(rv.paths, rv.length));
  if (right) maxPath = Math.max(maxPath, maxPathOf(right.index));
  for (const day of range.whole) maxPath = Math.max(maxPath, maxPathOf(day));
  const sums: Int32Array[] = [];
  for (let side = 0; side < LIST_SIDES; side++) sums.push(new Int32Array(maxPath + 1));
  const leftDay = left ? (left.kind === 'views' ? left.views.day : left.quarters.day.day) : -1;

  // 1. Whole days, day by day; the entries coming back from L are kept for step 2. Packed days
  // are sorted by previous visit: the counted entries are a prefix, those from L its tail.
  const back = new Columns();
  for (const day of range.whole) {
    const packed = day.packed;
    if (packed) {
      const { paths, offsets, values, prev } = packed;
      for (let i = 0; i < paths.length; i++) {
        const path = paths[i] as number;
        const base = i * LIST_SIDES;
        for (let side = 0; side < LIST_SIDES; side++) {
          const start = offsets[base + side] as number;
          const stop = offsets[base + side + 1] as number;
          if (stop === start) continue;
          const end = firstSince(prev, start, stop, firstWhole);
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
      for (let side = 0; side < LIST_SIDES; side++) {
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
  if (!left && !right) return { sums, left: null, right: null };

  // 2. Page by page: the edges' views and the returning entries, grouped by page.
  const leftByPath = lv ? groupByPath(lv.paths, lv.length, maxPath) : null;
  const leftPages = lq ? pagePositions(lq.packed, maxPath) : null;
  const backByPath = groupByPath(back.paths, back.length, maxPath);
  const rightByPath = rv ? groupByPath(rv.paths, rv.length, maxPath) : null;
  const rightLists = rv && right ? listsByPath(right.index, maxPath, firstWhole) : null;
  const rightPages = rq ? pagePositions(rq.packed, maxPath) : null;
  const leftMembers = lq ? edgeMembers(lq.packed, scratch.left) : null;
  const rightMembers = rq ? edgeMembers(rq.packed, scratch.right) : null;
  // Per side of the page being counted, R's entries with a previous visit before L, then those
  // on L, then the rest: [start, onLeftFrom, end, stop).
  const rightBounds = new Int32Array(LIST_SIDES * 4);
  for (let path = 0; path <= maxPath; path++) {
    const rightPage = rq && rightPages ? (rightPages[path] as number) : -1;
    let returnsFromLeft = false;
    if (rq && rightPage >= 0) {
      const { offsets, prev } = rq.packed;
      for (let side = 0; side < LIST_SIDES; side++) {
        const start = offsets[rightPage * LIST_SIDES + side] as number;
        const stop = offsets[rightPage * LIST_SIDES + side + 1] as number;
        const end = firstSince(prev, start, stop, firstWhole);
        const onLeftFrom = left ? firstSince(prev, start, end, leftDay) : end;
        if (onLeftFrom < end) returnsFromLeft = true;
        rightBounds[side * 4] = start;
        rightBounds[side * 4 + 1] = onLeftFrom;
        rightBounds[side * 4 + 2] = end;
        rightBounds[side * 4 + 3] = stop;
      }
    }
    // Whether the left flags of this page were set (and must be cleared).
    let leftMarked = false;
    if (lv && leftByPath) {
      const { order, starts } = leftByPath;
      const from = starts[path] as number;
      const to = starts[path + 1] as number;
      if (from < to) {
        leftMarked = true;
        for (let k = from; k < to; k++) {
          const i = order[k] as number;
          const v = lv.visitors[i] as number;
          flags[v] = (flags[v] as number) | ((lv.codes[i] as number) << LEFT);
        }
        markBack(flags, back, backByPath, path);
        for (let k = from; k < to; k++) {
          const v = lv.visitors[order[k] as number] as number;
          const f = flags[v] as number;
          if ((f & LEFT_DONE) !== 0) continue;
          flags[v] = f | LEFT_DONE;
          // Sides seen on L and not coming back in the whole days: new visitors there.
          let fresh = (f >>> LEFT) & ~(f >>> BACK) & SIDES_MASK;
          while (fresh !== 0) {
            const side = 31 - Math.clz32(fresh & -fresh);
            fresh &= fresh - 1;
            const sum = sums[side] as Int32Array;
            sum[path] = (sum[path] as number) + 1;
          }
        }
      }
    }
    if (lq && leftPages) {
      const page = leftPages[path] as number;
      if (page >= 0) {
        const { offsets, values } = lq.packed;
        const last = lq.quarters.last;
        const quarter = lq.quarter;
        const base = page * LIST_SIDES;
        // Flags only where a visitor of L may also be counted elsewhere: it comes back in the
        // whole days, or R has entries whose previous visit is on L. Else L's count is a scan.
        const flagged =
          (backByPath.starts[path] as number) < (backByPath.starts[path + 1] as number) ||
          rv !== null ||
          returnsFromLeft;
        if (flagged) {
          leftMarked = true;
          for (let side = 0; side < LIST_SIDES; side++) {
            const bit = 1 << (LEFT + side);
            for (let j = offsets[base + side] as number; j < (offsets[base + side + 1] as number); j++) {
              if ((last[j] as number) < quarter) continue;
              const v = values[j] as number;
              flags[v] = (flags[v] as number) | bit;
            }
          }
          markBack(flags, back, backByPath, path);
        }
        for (let side = 0; side < LIST_SIDES; side++) {
          const backBit = 1 << (BACK + side);
          const members = (leftMembers as Members[])[side] as Members;
          const into = members.values;
          let n = members.length;
          let count = 0;
          const end = offsets[base + side + 1] as number;
          for (let j = offsets[base + side] as number; j < end; j++) {
            if ((last[j] as number) < quarter) continue;
            const v = values[j] as number;
            into[n++] = v;
            if (!flagged || ((flags[v] as number) & backBit) === 0) count++;
          }
          members.length = n;
          const sum = sums[side] as Int32Array;
          sum[path] = (sum[path] as number) + count;
        }
      }
    }

    if (rv && rightByPath && rightLists) {
      const { order, starts } = rightByPath;
      const from = starts[path] as number;
      const to = starts[path + 1] as number;
      if (from < to) {
        let sides = 0;
        for (let k = from; k < to; k++) {
          const i = order[k] as number;
          const v = rv.visitors[i] as number;
          const code = rv.codes[i] as number;
          sides |= code;
          rightFlags[v] = (rightFlags[v] as number) | code;
        }
        for (let side = 0; side < LIST_SIDES; side++) {
          if ((sides & (1 << side)) === 0) continue;
          const list = rightLists(path, side);
          if (!list) continue;
          const { values, prev, start, end } = list;
          const inRange = 1 << side;
          const onLeft = 1 << (LEFT + side);
          let count = 0;
          for (let j = start; j < end; j++) {
            const v = values[j] as number;
            if (((rightFlags[v] as number) & inRange) === 0) continue;
            const p = prev[j] as number;
            // Before the range: new. On L: new unless seen on L inside the range. Else: counted.
            if (p < firstWhole && (p !== leftDay || ((flags[v] as number) & onLeft) === 0)) count++;
          }
          const sum = sums[side] as Int32Array;
          sum[path] = (sum[path] as number) + count;
        }
        for (let k = from; k < to; k++) rightFlags[rv.visitors[order[k] as number] as number] = 0;
      }
    }
    if (rq && rightPage >= 0) {
      const { values } = rq.packed;
      const first = rq.quarters.first;
      const quarter = rq.quarter;
      for (let side = 0; side < LIST_SIDES; side++) {
        const start = rightBounds[side * 4] as number;
        const onLeftFrom = rightBounds[side * 4 + 1] as number;
        const end = rightBounds[side * 4 + 2] as number;
        const stop = rightBounds[side * 4 + 3] as number;
        const onLeft = 1 << (LEFT + side);
        const members = (rightMembers as Members[])[side] as Members;
        const into = members.values;
        let n = members.length;
        let count = 0;
        // Previous visit before the range: new. On L: new unless seen on L inside the range.
        // In the whole days: counted there (but a visitor of the edge all the same).
        for (let j = start; j < stop; j++) {
          if ((first[j] as number) >= quarter) continue;
          const v = values[j] as number;
          into[n++] = v;
          if (j < onLeftFrom || (j < end && ((flags[v] as number) & onLeft) === 0)) count++;
        }
        members.length = n;
        const sum = sums[side] as Int32Array;
        sum[path] = (sum[path] as number) + count;
      }
    }

    // Leave the flags clear for the next page.
    if (!leftMarked) continue;
    if (lv && leftByPath) {
      const { order, starts } = leftByPath;
      for (let k = starts[path] as number; k < (starts[path + 1] as number); k++)
        flags[lv.visitors[order[k] as number] as number] = 0;
    }
    if (lq && leftPages) {
      const page = leftPages[path] as number;
      const { offsets, values } = lq.packed;
      for (
        let j = offsets[page * LIST_SIDES] as number;
        j < (offsets[(page + 1) * LIST_SIDES] as number);
        j++
      )
        flags[values[j] as number] = 0;
    }
    for (let k = backByPath.starts[path] as number; k < (backByPath.starts[path + 1] as number); k++)
      flags[back.visitors[backByPath.order[k] as number] as number] = 0;
  }
  return { sums, left: leftMembers, right: rightMembers };
}

/**
 * Empty visitor lists per side for an edge's entries, in `scratch`'s arrays (grown to the side's
 * entries, reused from query to query: zeroing megabytes per edge and side cost more than the
 * scan that fills them).
 */
function edgeMembers(packed: PackedPages, scratch: Uint32Array[]): Members[] {
  const { offsets, paths } = packed;
  const sides: Members[] = [];
  for (let side = 0; side < LIST_SIDES; side++) {
    let size = 0;
    for (let page = 0; page < paths.length; page++) {
      const at = page * LIST_SIDES + side;
      size += (offsets[at + 1] as number) - (offsets[at] as number);
    }
    let values = scratch[side];
    if (!values || values.length < size) {
      values = new Uint32Array(Math.ceil(size * 1.25));
      scratch[side] = values;
    }
    sides.push({ values, length: 0, views: 0 });
  }
  return sides;
}

/** Sets the BACK bits of a page's entries coming back from the clipped first day. */
function markBack(
  flags: Uint16Array,
  back: Columns,
  backByPath: { order: Uint32Array; starts: Uint32Array },
  path: number,
): void {
  for (let k = backByPath.starts[path] as number; k < (backByPath.starts[path + 1] as number); k++) {
    const i = backByPath.order[k] as number;
    const v = back.visitors[i] as number;
    flags[v] = (flags[v] as number) | (1 << (BACK + (back.codes[i] as number)));
  }
}

/** Per path up to `maxPath`, its page's position in a packed day (−1: none). */
function pagePositions(packed: PackedPages, maxPath: number): Int32Array {
  const position = new Int32Array(maxPath + 1).fill(-1);
  for (let i = 0; i < packed.paths.length; i++) position[packed.paths[i] as number] = i;
  return position;
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
    const position = pagePositions(packed, maxPath);
    const { offsets, values, prev } = packed;
    return (path, side) => {
      const i = position[path] as number;
      if (i < 0) return null;
      const start = offsets[i * LIST_SIDES + side] as number;
      return {
        values,
        prev,
        start,
        end: firstSince(prev, start, offsets[i * LIST_SIDES + side + 1] as number, before),
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

  add(msOfDay: number, path: number, visitor: number, category: number, purpose: number): void {
    if (msOfDay < this.start || msOfDay >= this.end) return;
    const code = edgeCode(category, purpose);
    if (code !== 0) this.edge.views.push(path, code, visitor);
  }
}

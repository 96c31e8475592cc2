import { LATEST, NEVER, QUARTERS_PER_DAY, SIDE_MASKS, SIDES_OF_CLASS } from './classes.ts';

/**
 * The first-visit bookkeeping of one batch, computed in the process before its insert.
 *
 * `pair_days` holds, per (page, visitor, day) and class, the first and last quarter hour of the
 * day with a view of that class (page '' stands for "any page", for the totals). Rows only ever
 * widen that span, so a day's true values are the min and max over its rows.
 *
 * For each side (a set of classes an export counts as one figure; classes.ts), a pair's days
 * with the side form a sorted list. Every such day d, with its predecessor p (NEVER: none) and
 * successor q (LATEST: none), adds one to a row of each of three summing tables:
 * - `first_visits` (day d, prev p): a page's distinct visitors over whole days [a, b) are the rows
 *   with a ≤ d < b and p < a, each visitor's first visit in the range, once;
 * - `from_edges` (day d, the side's last quarter on d, next q): for a range starting inside day d,
 *   the visitors seen at or after its start that day and not again before the range's whole days end;
 * - `to_edges` (day d, the side's first quarter on d, prevq): for a range ending inside day d, the
 *   visitors seen that day before its end; prevq is the quarter (days × 96 + quarter) of the side's
 *   last view before d, so "not seen earlier in the range" is prevq < the range's first quarter.
 *
 * A batch changes a pair's state (a new class on a day, or a wider span); the rows of the sides
 * it touches are derived before and after, and their difference is the batch's deltas, so the
 * tables stay exact whatever order views arrive in. Sending a batch again (after an insert whose
 * answer was lost) changes no state and adds nothing. Sides with the same deltas share a row: a
 * row's `sides` is a mask of side numbers, and an export sums the rows holding its side.
 */

/**
 * A visit pair's id: the visitor key's 16 bytes as latin1 (one character per byte), then the
 * page ('' for "any page"). Cheap to make from a view and from a RowBinary answer alike.
 */
export function pairId(visitor: string, page: string): string {
  return visitor + page;
}

/** The visitor key (16 latin1 characters) of a pair id. */
export function pairVisitor(id: string): string {
  return id.slice(0, 16);
}

/** The page of a pair id. */
export function pairPage(id: string): string {
  return id.slice(16);
}

/** One day of a pair: its classes and, per class number, the first and last quarter with a view. */
export interface DayState {
  mask: number;
  /** Indexed by class number; set for the mask's classes only. */
  first: number[];
  last: number[];
}

/** Day → its state, for one pair. */
export type PairState = Map<number, DayState>;

/** Records a view of class number `cls` in quarter `quarter` of `day`. */
export function addView(state: PairState, day: number, cls: number, quarter: number): void {
  const bit = 2 ** cls;
  let d = state.get(day);
  if (!d) {
    d = { mask: 0, first: [], last: [] };
    state.set(day, d);
  }
  if ((d.mask & bit) === 0) {
    d.mask = (d.mask | bit) >>> 0;
    d.first[cls] = quarter;
    d.last[cls] = quarter;
  } else {
    if (quarter < (d.first[cls] as number)) d.first[cls] = quarter;
    if (quarter > (d.last[cls] as number)) d.last[cls] = quarter;
  }
}

/** A `pair_days` row: the span of one class on one day, as it is after the batch. */
export interface PairDayRow {
  pair: string;
  day: number;
  cls: number;
  first: number;
  last: number;
}

export const FIRST_VISITS = 0;
export const FROM_EDGES = 1;
export const TO_EDGES = 2;
export type CountTable = typeof FIRST_VISITS | typeof FROM_EDGES | typeof TO_EDGES;

/** A signed change to one row of a summing table. */
export interface CountDelta {
  table: CountTable;
  page: string;
  day: number;
  /** The sides the row counts for (bit s: side s). */
  sides: number;
  /** first_visits: the previous day; from_edges: the last quarter; to_edges: the first quarter. */
  a: number;
  /** first_visits: 0; from_edges: the next day; to_edges: the previous view's quarter (prevq). */
  b: number;
  n: number;
}

export interface VisitDeltas {
  pairDays: PairDayRow[];
  counts: CountDelta[];
}

/**
 * The rows a batch adds: `known` is every stored day of the batch's pairs (updated in place),
 * `added` the batch's views per pair. With `known` empty and every pair's whole history in
 * `added`, the counts are the tables' full contents (a rebuild).
 */
export function visitDeltas(known: Map<string, PairState>, added: Map<string, PairState>): VisitDeltas {
  const pairDays: PairDayRow[] = [];
  const sums = new CountSums();
  for (const [pair, days] of added) {
    const page = pairPage(pair);
    const stored = known.get(pair);
    const only = !stored && days.size === 1 ? singleClassDay(days) : null;
    if (only) {
      // Most pairs of a batch: a first visit, one day, one class, no neighbours.
      known.set(pair, days);
      const { day, cls, first, last } = only;
      pairDays.push({ pair, day, cls, first, last });
      const sides = SIDES_OF_CLASS[cls] as number;
      sums.add(FIRST_VISITS, page, day, sides, NEVER, 0, 1);
      sums.add(FROM_EDGES, page, day, sides, last, LATEST, 1);
      sums.add(TO_EDGES, page, day, sides, first, NEVER, 1);
      continue;
    }
    const before: PairState = stored ?? new Map();
    const after: PairState = new Map(before);
    let changed = 0;
    for (const [day, d] of days) {
      const old = before.get(day);
      let merged: DayState | undefined;
      forEachClass(d.mask, (cls) => {
        const bit = 2 ** cls;
        const had = old !== undefined && (old.mask & bit) !== 0;
        const first = had
          ? Math.min(old.first[cls] as number, d.first[cls] as number)
          : (d.first[cls] as number);
        const last = had ? Math.max(old.last[cls] as number, d.last[cls] as number) : (d.last[cls] as number);
        if (had && first === old.first[cls] && last === old.last[cls]) return;
        merged ??= old ? { mask: old.mask, first: old.first.slice(), last: old.last.slice() } : emptyDay();
        merged.mask = (merged.mask | bit) >>> 0;
        merged.first[cls] = first;
        merged.last[cls] = last;
        changed = (changed | bit) >>> 0;
        pairDays.push({ pair, day, cls, first, last });
      });
      if (merged) after.set(day, merged);
    }
    known.set(pair, after);
    if (changed !== 0) diffSides(sums, page, before, after, changed);
  }
  return { pairDays, counts: sums.list() };
}

/** The one day and class of a state holding exactly one of each, or null. */
function singleClassDay(state: PairState): { day: number; cls: number; first: number; last: number } | null {
  for (const [day, d] of state) {
    if (d.mask === 0 || (d.mask & (d.mask - 1)) !== 0) return null;
    const cls = 31 - Math.clz32(d.mask);
    return { day, cls, first: d.first[cls] as number, last: d.last[cls] as number };
  }
  return null;
}

function emptyDay(): DayState {
  return { mask: 0, first: [], last: [] };
}

function forEachClass(mask: number, visit: (cls: number) => void): void {
  for (let rest = mask >>> 0, cls = 0; rest !== 0; rest >>>= 1, cls++) if ((rest & 1) !== 0) visit(cls);
}

function allClasses(state: PairState): number {
  let mask = 0;
  for (const d of state.values()) mask |= d.mask;
  return mask >>> 0;
}

/**
 * Adds, for every side holding a class in `changed`, the side's rows derived from `after`
 * minus those derived from `before`. Sides that see the same classes of the pair derive the
 * same rows, so they are derived once and share the delta rows.
 */
function diffSides(
  sums: CountSums,
  page: string,
  before: PairState,
  after: PairState,
  changed: number,
): void {
  const present = (allClasses(before) | allClasses(after)) >>> 0;
  const groups = new Map<number, number>();
  for (const [s, mask] of SIDE_MASKS.entries()) {
    if ((mask & changed) === 0) continue;
    const seen = (mask & present) >>> 0;
    groups.set(seen, ((groups.get(seen) ?? 0) | (2 ** s)) >>> 0);
  }
  for (const [classes, sides] of groups) {
    const rows = new Map<string, { table: CountTable; day: number; a: number; b: number; n: number }>();
    const count = (table: CountTable, day: number, a: number, b: number, n: number) => {
      const key = `${table}|${day}|${a}|${b}`;
      const found = rows.get(key);
      if (found) found.n += n;
      else rows.set(key, { table, day, a, b, n });
    };
    deriveRows(before, classes, -1, count);
    deriveRows(after, classes, 1, count);
    for (const r of rows.values()) if (r.n !== 0) sums.add(r.table, page, r.day, sides, r.a, r.b, r.n);
  }
}

/** Calls `count` with `n` for each row one side (seeing the pair's classes `classes`) derives. */
function deriveRows(
  state: PairState,
  classes: number,
  n: number,
  count: (table: CountTable, day: number, a: number, b: number, n: number) => void,
): void {
  const days: number[] = [];
  for (const [day, d] of state) if ((d.mask & classes) !== 0) days.push(day);
  if (days.length === 0) return;
  days.sort((x, y) => x - y);
  let prevDay = NEVER;
  let prevLast = 0;
  for (let i = 0; i < days.length; i++) {
    const day = days[i] as number;
    const d = state.get(day) as DayState;
    let first = QUARTERS_PER_DAY;
    let last = -1;
    forEachClass((d.mask & classes) >>> 0, (cls) => {
      if ((d.first[cls] as number) < first) first = d.first[cls] as number;
      if ((d.last[cls] as number) > last) last = d.last[cls] as number;
    });
    const next = i + 1 < days.length ? (days[i + 1] as number) : LATEST;
    count(FIRST_VISITS, day, prevDay, 0, n);
    count(FROM_EDGES, day, last, next, n);
    count(TO_EDGES, day, first, prevDay === NEVER ? NEVER : prevDay * QUARTERS_PER_DAY + prevLast, n);
    prevDay = day;
    prevLast = last;
  }
}

/** Deltas summed per (table, page, day, sides, a, b), so a batch inserts each row once. */
class CountSums {
  private readonly byPage = new Map<string, Map<string, CountDelta>>();

  add(table: CountTable, page: string, day: number, sides: number, a: number, b: number, n: number): void {
    let rows = this.byPage.get(page);
    if (!rows) {
      rows = new Map();
      this.byPage.set(page, rows);
    }
    const key = `${table}|${day}|${sides}|${a}|${b}`;
    const found = rows.get(key);
    if (found) found.n += n;
    else rows.set(key, { table, page, day, sides, a, b, n });
  }

  list(): CountDelta[] {
    const out: CountDelta[] = [];
    for (const rows of this.byPage.values()) for (const d of rows.values()) if (d.n !== 0) out.push(d);
    return out;
  }
}

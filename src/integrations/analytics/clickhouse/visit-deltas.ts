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
 * successor q (LATEST: none), adds one to a row of each of three kinds in `day_counts`, a summing
 * table keyed by (kind, day, page, sides, a, b):
 * - first visits (day d, a = p): a page's distinct visitors over whole days [a, b) are the rows
 *   with a ≤ d < b and p < a, each visitor's first visit in the range, once;
 * - start edges (day d, a = the side's last quarter on d, b = q): for a range starting inside day d,
 *   the visitors seen at or after its start that day and not again before the range's whole days end;
 * - end edges (day d, a = the side's first quarter on d, b = prevq): for a range ending inside day d, the
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
/** The kind of a `day_counts` row. */
export type CountKind = typeof FIRST_VISITS | typeof FROM_EDGES | typeof TO_EDGES;

/** A signed change to one row of `day_counts`. */
export interface CountDelta {
  kind: CountKind;
  page: string;
  day: number;
  /** The sides the row counts for (bit s: side s). */
  sides: number;
  /** First visits: the previous day; start edges: the last quarter; end edges: the first quarter. */
  a: number;
  /** First visits: 0; start edges: the next day; end edges: the previous view's quarter (prevq). */
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
    const after: PairState = copyState(before);
    let changed = 0;
    const changedDays: number[] = [];
    for (const day of days.keys()) {
      const d = days.get(day) as DayState;
      const old = before.get(day);
      let merged: DayState | undefined;
      for (let rest = d.mask >>> 0, cls = 0; rest !== 0; rest >>>= 1, cls++) {
        if ((rest & 1) === 0) continue;
        const bit = 2 ** cls;
        const had = old !== undefined && (old.mask & bit) !== 0;
        const first = had
          ? Math.min(old.first[cls] as number, d.first[cls] as number)
          : (d.first[cls] as number);
        const last = had ? Math.max(old.last[cls] as number, d.last[cls] as number) : (d.last[cls] as number);
        if (had && first === old.first[cls] && last === old.last[cls]) continue;
        merged ??= old ? { mask: old.mask, first: old.first.slice(), last: old.last.slice() } : emptyDay();
        merged.mask = (merged.mask | bit) >>> 0;
        merged.first[cls] = first;
        merged.last[cls] = last;
        changed = (changed | bit) >>> 0;
        pairDays.push({ pair, day, cls, first, last });
      }
      if (merged) {
        after.set(day, merged);
        changedDays.push(day);
      }
    }
    known.set(pair, after);
    if (changed !== 0) diffSides(sums, page, before, after, changed, changedDays);
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

/** A copy of a pair's state (its days' objects shared: a change replaces a day's object). */
function copyState(state: PairState): PairState {
  const copy: PairState = new Map();
  for (const day of state.keys()) copy.set(day, state.get(day) as DayState);
  return copy;
}

function allClasses(state: PairState): number {
  let mask = 0;
  for (const d of state.values()) mask |= d.mask;
  return mask >>> 0;
}

// Scratch space of diffSides, reused from pair to pair: it runs for most views of an append,
// and arrays, sets and row objects made per call were most of an append's garbage.
const GROUP_CLASSES: number[] = [];
const GROUP_SIDES: number[] = [];
const OLD_DAYS: number[] = [];
const NEW_DAYS: number[] = [];
const AFFECTED: number[] = [];
/** Rows as (kind, day, a, b) quadruples; a matched row's kind is set to MATCHED. */
const OLD_ROWS: number[] = [];
const NEW_ROWS: number[] = [];
const MATCHED = -1;

/**
 * Adds, for every side holding a class in `changed`, the side's rows derived from `after`
 * minus those derived from `before`. Only the rows of the changed days and of their neighbours
 * in the side's list of days can differ (a day's rows read its own span, its previous day with
 * that day's last quarter, and its next day), so only those are derived. Sides that see the
 * same classes of the pair derive the same rows, so they are derived once and share the rows.
 */
function diffSides(
  sums: CountSums,
  page: string,
  before: PairState,
  after: PairState,
  changed: number,
  changedDays: readonly number[],
): void {
  const present = (allClasses(before) | allClasses(after)) >>> 0;
  GROUP_CLASSES.length = 0;
  GROUP_SIDES.length = 0;
  for (let s = 0; s < SIDE_MASKS.length; s++) {
    const mask = SIDE_MASKS[s] as number;
    if ((mask & changed) === 0) continue;
    const seen = (mask & present) >>> 0;
    const g = GROUP_CLASSES.indexOf(seen);
    if (g >= 0) GROUP_SIDES[g] = ((GROUP_SIDES[g] as number) | (2 ** s)) >>> 0;
    else {
      GROUP_CLASSES.push(seen);
      GROUP_SIDES.push(2 ** s);
    }
  }
  for (let g = 0; g < GROUP_CLASSES.length; g++) {
    const classes = GROUP_CLASSES[g] as number;
    const sides = GROUP_SIDES[g] as number;
    sideDays(before, classes, OLD_DAYS);
    sideDays(after, classes, NEW_DAYS);
    AFFECTED.length = 0;
    for (const day of changedDays) {
      addWithNeighbours(AFFECTED, OLD_DAYS, day);
      addWithNeighbours(AFFECTED, NEW_DAYS, day);
    }
    OLD_ROWS.length = 0;
    NEW_ROWS.length = 0;
    for (const day of AFFECTED) {
      pushRows(OLD_ROWS, before, OLD_DAYS, day, classes);
      pushRows(NEW_ROWS, after, NEW_DAYS, day, classes);
    }
    for (let i = 0; i < NEW_ROWS.length; i += 4) {
      const kind = NEW_ROWS[i] as CountKind;
      const day = NEW_ROWS[i + 1] as number;
      const a = NEW_ROWS[i + 2] as number;
      const b = NEW_ROWS[i + 3] as number;
      let same = -1;
      for (let j = 0; j < OLD_ROWS.length; j += 4)
        if (
          OLD_ROWS[j] === kind &&
          OLD_ROWS[j + 1] === day &&
          OLD_ROWS[j + 2] === a &&
          OLD_ROWS[j + 3] === b
        ) {
          same = j;
          break;
        }
      if (same >= 0) OLD_ROWS[same] = MATCHED;
      else sums.add(kind, page, day, sides, a, b, 1);
    }
    for (let j = 0; j < OLD_ROWS.length; j += 4) {
      const kind = OLD_ROWS[j] as number;
      if (kind === MATCHED) continue;
      sums.add(
        kind as CountKind,
        page,
        OLD_ROWS[j + 1] as number,
        sides,
        OLD_ROWS[j + 2] as number,
        OLD_ROWS[j + 3] as number,
        -1,
      );
    }
  }
}

/** Fills `days` with the days of `state` holding one of `classes`, ascending. */
function sideDays(state: PairState, classes: number, days: number[]): void {
  days.length = 0;
  for (const day of state.keys()) {
    if (((state.get(day) as DayState).mask & classes) === 0) continue;
    // Insertion sort: a pair has few days, and Array#sort allocated for every call.
    let i = days.length;
    days.push(day);
    while (i > 0 && (days[i - 1] as number) > day) {
      days[i] = days[i - 1] as number;
      i--;
    }
    days[i] = day;
  }
}

/** Adds `day` and its nearest days before and after it in `days` (ascending) to `set`, once each. */
function addWithNeighbours(set: number[], days: readonly number[], day: number): void {
  addOnce(set, day);
  let before: number | null = null;
  let after: number | null = null;
  for (const d of days) {
    if (d < day) before = d;
    else if (d > day && after === null) after = d;
  }
  if (before !== null) addOnce(set, before);
  if (after !== null) addOnce(set, after);
}

function addOnce(set: number[], value: number): void {
  if (!set.includes(value)) set.push(value);
}

/**
 * Appends to `rows` the three rows (kind, day, a, b) one side (seeing the pair's `classes`)
 * derives for `day`, or nothing if it has no such day.
 */
function pushRows(
  rows: number[],
  state: PairState,
  days: readonly number[],
  day: number,
  classes: number,
): void {
  const i = days.indexOf(day);
  if (i < 0) return;
  const first = spanFirst(state.get(day) as DayState, classes);
  const last = spanLast(state.get(day) as DayState, classes);
  const prevDay = i > 0 ? (days[i - 1] as number) : NEVER;
  const next = i + 1 < days.length ? (days[i + 1] as number) : LATEST;
  const prevq =
    prevDay === NEVER
      ? NEVER
      : prevDay * QUARTERS_PER_DAY + spanLast(state.get(prevDay) as DayState, classes);
  rows.push(FIRST_VISITS, day, prevDay, 0, FROM_EDGES, day, last, next, TO_EDGES, day, first, prevq);
}

/** The first quarter of a day's views of `classes`. */
function spanFirst(d: DayState, classes: number): number {
  let first = QUARTERS_PER_DAY;
  for (let rest = (d.mask & classes) >>> 0, cls = 0; rest !== 0; rest >>>= 1, cls++)
    if ((rest & 1) !== 0 && (d.first[cls] as number) < first) first = d.first[cls] as number;
  return first;
}

/** The last quarter of a day's views of `classes`. */
function spanLast(d: DayState, classes: number): number {
  let last = -1;
  for (let rest = (d.mask & classes) >>> 0, cls = 0; rest !== 0; rest >>>= 1, cls++)
    if ((rest & 1) !== 0 && (d.last[cls] as number) > last) last = d.last[cls] as number;
  return last;
}

/**
 * Deltas summed per (kind, page, day, sides, a, b), so a batch inserts each row once. Keyed by
 * numbers, not strings (a string per delta was the largest cost of an append): per page,
 * (day, kind, sides) as one safe integer, then (a, b) as another.
 */
class CountSums {
  private readonly byPage = new Map<string, Map<number, Map<number, CountDelta>>>();

  add(kind: CountKind, page: string, day: number, sides: number, a: number, b: number, n: number): void {
    let rows = this.byPage.get(page);
    if (!rows) {
      rows = new Map();
      this.byPage.set(page, rows);
    }
    // day + 2³¹ < 2³², kind < 4, sides < 2¹⁷: under 2⁵¹.
    const outer = ((day + 2 ** 31) * 4 + kind) * 2 ** 17 + sides;
    let byAb = rows.get(outer);
    if (!byAb) {
      byAb = new Map();
      rows.set(outer, byAb);
    }
    // First visits: a is a day and b is 0; the edges: a is a quarter (< 128), b a day or quarter.
    const inner = kind === FIRST_VISITS ? a : (b + 2 ** 31) * 128 + a;
    const found = byAb.get(inner);
    if (found) found.n += n;
    else byAb.set(inner, { kind, page, day, sides, a, b, n });
  }

  list(): CountDelta[] {
    const out: CountDelta[] = [];
    for (const rows of this.byPage.values())
      for (const byAb of rows.values()) for (const d of byAb.values()) if (d.n !== 0) out.push(d);
    return out;
  }
}

import { LATEST, NEVER, SIDE_MASKS } from './classes.ts';

/**
 * The first-visit bookkeeping of one batch, computed in the process before its insert.
 *
 * `visits` holds, per (page, visitor, day), the classes seen (page '' stands for "any page", for
 * the totals). `visit_counts` holds, per (side, day, page, prev), how many (page, visitor) have a
 * visit of that side on that day whose previous visit of that side was on day `prev` (NEVER:
 * none). A page's distinct visitors of a side over whole days [a, b) are then the sum of the rows
 * with a ≤ day < b and prev < a: each visitor's first visit in the range, once.
 *
 * Adding a visit day d to a (page, visitor, side) whose other days are known inserts d into that
 * sorted list: d's row gets prev = its predecessor p, and the successor q (a late event) moves
 * from prev p to prev d. Those changes are summed into signed count deltas, so the tables stay
 * exact whatever order views arrive in; a day already holding the class changes nothing, so
 * sending a batch again (after an insert whose answer was lost) adds nothing.
 *
 * `visit_days` keeps, per (page, visitor, day) and side, the previous and the next visit day of
 * that side, for the clipped edge days of a range (page-query.ts). Inserting d between p and q
 * raises q's previous day to d and lowers p's next day to d: rows only ever raise a previous day
 * and lower a next day, so the true values are the element-wise max and min over a day's rows.
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

/** Day → class mask, for one pair. */
export type DayMasks = Map<number, number>;

export interface VisitRow {
  pair: string;
  day: number;
  /** The classes this batch adds to the pair's day (0: a row that only moves neighbours). */
  mask: number;
  /**
   * Per side, the previous visit day (NEVER: none or unchanged) and the next (LATEST: same).
   * Read only: a row of a first visit shares them.
   */
  prevs: readonly number[];
  nexts: readonly number[];
}

export interface CountDelta {
  page: string;
  side: number;
  day: number;
  prev: number;
  n: number;
}

export interface VisitDeltas {
  visits: VisitRow[];
  counts: CountDelta[];
}

/**
 * The rows a batch adds: `known` is every stored day of the batch's pairs (and is updated in
 * place, so a following batch of this process may build on it), `added` the batch's classes per
 * pair and day.
 */
export function visitDeltas(known: Map<string, DayMasks>, added: Map<string, DayMasks>): VisitDeltas {
  const visits: VisitRow[] = [];
  // Deltas per page, then per (side, day) as one number, then per prev: no string keys per delta.
  const sums = new Map<string, PageSums>();
  for (const [pair, days] of added) {
    const page = pairPage(pair);
    let pageSums = sums.get(page);
    if (!pageSums) {
      pageSums = { page, bySideDay: new Map() };
      sums.set(page, pageSums);
    }
    let stored = known.get(pair);
    if (!stored && days.size === 1) {
      // Most pairs of a batch: a first visit, one day, no neighbours. Its row keeps every
      // side's defaults (nothing before, nothing after), shared rather than copied.
      for (const [day, mask] of days) {
        known.set(pair, new Map<number, number>().set(day, mask));
        for (let side = 0; side < SIDE_COUNT; side++)
          if ((mask & (SIDE_MASKS[side] as number)) !== 0) add(pageSums, side, day, NEVER, 1);
        visits.push({ pair, day, mask, prevs: NO_PREVS, nexts: NO_NEXTS });
      }
      continue;
    }
    if (!stored) {
      stored = new Map();
      known.set(pair, stored);
    }
    // This pair's rows by day (rows only ever concern their own pair).
    const rows = new Map<number, VisitRow & { prevs: number[]; nexts: number[] }>();
    const row = (day: number) => {
      let found = rows.get(day);
      if (!found) {
        found = { pair, day, mask: 0, prevs: NO_PREVS.slice(), nexts: NO_NEXTS.slice() };
        rows.set(day, found);
      }
      return found;
    };
    const sorted = days.size === 1 ? [...days.keys()] : [...days.keys()].sort((a, b) => a - b);
    // The stored days as two arrays, read once per side below (no Map iterator per side).
    const storedDays: number[] = [];
    const storedMasks: number[] = [];
    for (const [other, mask] of stored) {
      storedDays.push(other);
      storedMasks.push(mask);
    }
    for (const day of sorted) {
      const before = stored.get(day) ?? 0;
      const fresh = ((days.get(day) ?? 0) & ~before) >>> 0;
      if (fresh === 0) continue;
      const own = row(day);
      own.mask = (own.mask | fresh) >>> 0;
      for (let side = 0; side < SIDE_COUNT; side++) {
        const sideMask = SIDE_MASKS[side] as number;
        if ((fresh & sideMask) === 0 || (before & sideMask) !== 0) continue;
        // Neighbours of \`day\` in this side's list of days.
        let prev = NEVER;
        let next: number | null = null;
        for (let i = 0; i < storedDays.length; i++) {
          const other = storedDays[i] as number;
          if (((storedMasks[i] as number) & sideMask) === 0 || other === day) continue;
          if (other < day && other > prev) prev = other;
          if (other > day && (next === null || other < next)) next = other;
        }
        add(pageSums, side, day, prev, 1);
        own.prevs[side] = Math.max(own.prevs[side] as number, prev);
        own.nexts[side] = Math.min(own.nexts[side] as number, next ?? LATEST);
        if (next !== null) {
          add(pageSums, side, next, prev, -1);
          add(pageSums, side, next, day, 1);
          const after = row(next);
          after.prevs[side] = Math.max(after.prevs[side] as number, day);
        }
        if (prev !== NEVER) {
          const earlier = row(prev);
          earlier.nexts[side] = Math.min(earlier.nexts[side] as number, day);
        }
      }
      stored.set(day, (before | fresh) >>> 0);
      const at = storedDays.indexOf(day);
      if (at === -1) {
        storedDays.push(day);
        storedMasks.push((before | fresh) >>> 0);
      } else storedMasks[at] = (before | fresh) >>> 0;
    }
    for (const r of rows.values()) visits.push(r);
  }
  const counts: CountDelta[] = [];
  for (const { bySideDay } of sums.values())
    for (const byPrev of bySideDay.values()) for (const d of byPrev.values()) if (d.n !== 0) counts.push(d);
  return { visits, counts };
}

const SIDE_COUNT = SIDE_MASKS.length;
const NO_PREVS: readonly number[] = SIDE_MASKS.map(() => NEVER);
const NO_NEXTS: readonly number[] = SIDE_MASKS.map(() => LATEST);

/** One page's count deltas, by (side, day) as one number, then by prev. */
interface PageSums {
  page: string;
  bySideDay: Map<number, Map<number, CountDelta>>;
}

function add(sums: PageSums, side: number, day: number, prev: number, n: number): void {
  const sideDay = side + 32 * (day + 2 ** 31);
  let byPrev = sums.bySideDay.get(sideDay);
  if (!byPrev) {
    byPrev = new Map();
    sums.bySideDay.set(sideDay, byPrev);
  }
  const found = byPrev.get(prev);
  if (found) found.n += n;
  else byPrev.set(prev, { page: sums.page, side, day, prev, n });
}

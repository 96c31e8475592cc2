import type { DayIndex } from './day-index.ts';
import { QuarterCarrier } from './edge-quarters.ts';
import { LIST_SIDES, PURPOSE_COUNT, SIDE_AI, SIDE_HUMAN, SIDE_PURPOSE } from './index-layout.ts';
import { sortSegmentByPrev } from './packed-pages.ts';
import { LastSeen, type Seen } from './prev-list.ts';

/**
 * Recomputes, for every page list of every day (ascending), each visitor's previous visit and
 * drops repeats within a day; returns the last-seen tables for the views still to come, if asked
 * for (they are about a quarter of an index: see ProjectIndex.seen). Needed
 * after loading snapshots and after views arrived out of time order. O(entries): one pass per
 * page with a scratch array per side indexed by visitor number.
 *
 * Packed days stay packed (unpacking a month of them took several times their size): their
 * lists are rewritten in place and sorted again where a previous visit changed. A packed list
 * cannot drop an entry, so days that may repeat a visitor are unpacked first, and a packed day
 * found to repeat one anyway (a snapshot saved with late views in it) is unpacked and the
 * rebuild starts over.
 */
export function rebuildPrevs(days: readonly DayIndex[], universe: number, withTables: true): Seen;
export function rebuildPrevs(days: readonly DayIndex[], universe: number, withTables: false): null;
export function rebuildPrevs(days: readonly DayIndex[], universe: number, withTables: boolean): Seen | null {
  for (const day of days) if (day.repeats) day.unpack();
  for (;;) {
    const seen = tryRebuild(days, universe, withTables);
    if (seen !== RETRY) {
      for (const day of days) day.repeats = false;
      return seen;
    }
  }
}

const RETRY = Symbol('retry');

/**
 * The last-seen tables of days whose lists are exact (no repeats), read from the lists: for an
 * index loaded without them (see ProjectIndex.seen). Page by page, each table sized once for
 * the page's distinct pairs (growing it pair by pair took a third of the time), then filled
 * from the days in ascending order, so a pair's later day overwrites an earlier one.
 */
export function buildLastSeen(days: readonly DayIndex[], universe: number): Seen {
  const lastSeen = new LastSeen();
  const purposeSeen = new LastSeen(PURPOSE_COUNT);
  const pageSegments = days.map((day) => new Map(pagesOf(day)));
  const paths = new Set<number>();
  for (const pages of pageSegments) for (const path of pages.keys()) paths.add(path);
  const stamp = new Uint32Array(universe);
  for (const path of paths) {
    const [pairs, purposePairs] = countPairs(path, pageSegments, stamp, true);
    lastSeen.reserve(path, pairs);
    if (purposePairs > 0) purposeSeen.reserve(path, purposePairs);
    for (let d = 0; d < days.length; d++) {
      const segments = pageSegments[d]?.get(path);
      if (!segments) continue;
      const day = (days[d] as DayIndex).day;
      for (const [side, purposes, k] of SEEN_SIDES) {
        const segment = segments[side];
        if (!segment) continue;
        const seen = purposes ? purposeSeen : lastSeen;
        const { values, start, end } = segment;
        for (let i = start; i < end; i++) seen.setDay(seen.slot(path, values[i] as number), k, day);
      }
    }
  }
  return { lastSeen, purposeSeen };
}

/** The list sides the last-seen tables keep: [side, in the purposes' table, day k of the entry]. */
const SEEN_SIDES: ReadonlyArray<readonly [number, boolean, number]> = [
  [SIDE_HUMAN, false, 0],
  [SIDE_AI, false, 1],
  ...Array.from({ length: PURPOSE_COUNT }, (_, p) => [SIDE_PURPOSE + p, true, p] as const),
];

/** One side's entries of a page on a day: `values`/`prev[start, end)`. */
interface Segment {
  values: Uint32Array;
  prev: Uint16Array;
  start: number;
  end: number;
}

/** RETRY when a packed day repeats a visitor: that day was unpacked, and the caller tries again. */
function tryRebuild(
  days: readonly DayIndex[],
  universe: number,
  withTables: boolean,
): Seen | null | typeof RETRY {
  let purposeEntries = 0;
  const paths = new Set<number>();
  const pageSegments = days.map((day) => new Map(pagesOf(day)));
  for (const pages of pageSegments) {
    for (const [path, segments] of pages) {
      paths.add(path);
      segments.forEach((segment, side) => {
        if (!segment) return;
        if (side >= SIDE_PURPOSE) purposeEntries += segment.end - segment.start;
      });
    }
  }
  const seen = withTables ? new LastSeen() : null;
  const purposeSeen = withTables ? new LastSeen(PURPOSE_COUNT) : null;
  // Per visitor, the last page whose pairs were counted (page numbers start at 1).
  const stamp = new Uint32Array(universe);
  // One array of last days per side, indexed by visitor number; purpose sides only when used.
  const scratch: Uint16Array[] = [];
  for (let side = 0; side < LIST_SIDES; side++)
    scratch.push(new Uint16Array(side < SIDE_PURPOSE || purposeEntries > 0 ? universe : 0));
  let sortScratch = new Float64Array(0);
  // Packed days' quarters follow their entries through a re-sort (allocated when first needed).
  let carrier: QuarterCarrier | null = null;
  for (const path of paths) {
    if (seen && purposeSeen) {
      // The tables are sized for the page's distinct pairs (the largest part of an index).
      const [pairs, purposePairs] = countPairs(path, pageSegments, stamp, purposeEntries > 0);
      seen.reserve(path, pairs);
      if (purposePairs > 0) purposeSeen.reserve(path, purposePairs);
    }
    for (let d = 0; d < days.length; d++) {
      const day = days[d] as DayIndex;
      const segments = pageSegments[d]?.get(path);
      if (!segments) continue;
      for (let side = 0; side < LIST_SIDES; side++) {
        const segment = segments[side];
        if (!segment) continue;
        const last = scratch[side] as Uint16Array;
        const { values, prev, start, end } = segment;
        let kept = start;
        let changed = false;
        for (let i = start; i < end; i++) {
          const visitor = values[i] as number;
          const previous = last[visitor] as number;
          if (previous === day.day) {
            if (day.packed) {
              day.unpack();
              day.repeats = true;
              return RETRY;
            }
            continue;
          }
          if (prev[i] !== previous) changed = true;
          values[kept] = visitor;
          prev[kept] = previous;
          kept++;
          last[visitor] = day.day;
        }
        if (day.packed) {
          if (changed) {
            if (sortScratch.length < end - start) sortScratch = new Float64Array(end - start);
            const quarters = day.packed.quarters;
            if (quarters) carrier ??= new QuarterCarrier(universe);
            if (carrier) carrier.quarters = quarters;
            sortSegmentByPrev(values, prev, start, end, sortScratch, carrier);
          }
        } else {
          const list = day.pages.get(path)?.lists[side];
          if (list) list.length = kept;
          segment.end = kept;
        }
      }
    }
    // Record where each visitor of this page was last seen (if asked), and clear the scratch for the next.
    const human = scratch[SIDE_HUMAN] as Uint16Array;
    const ai = scratch[SIDE_AI] as Uint16Array;
    const total = scratch[2] as Uint16Array;
    for (let d = 0; d < days.length; d++) {
      const segments = pageSegments[d]?.get(path);
      if (!segments) continue;
      for (const segment of segments) {
        if (!segment) continue;
        for (let i = segment.start; i < segment.end; i++) {
          const visitor = segment.values[i] as number;
          if (human[visitor] !== 0 || ai[visitor] !== 0 || total[visitor] !== 0) {
            if (seen) {
              const slot = seen.slot(path, visitor);
              seen.setDay(slot, 0, human[visitor] as number);
              seen.setDay(slot, 1, ai[visitor] as number);
            }
            human[visitor] = 0;
            ai[visitor] = 0;
            total[visitor] = 0;
          }
          if (purposeEntries === 0) continue;
          let any = false;
          for (let p = 0; p < PURPOSE_COUNT; p++)
            if ((scratch[SIDE_PURPOSE + p] as Uint16Array)[visitor] !== 0) any = true;
          if (!any) continue;
          const slot = purposeSeen ? purposeSeen.slot(path, visitor) : -1;
          for (let p = 0; p < PURPOSE_COUNT; p++) {
            const last = scratch[SIDE_PURPOSE + p] as Uint16Array;
            purposeSeen?.setDay(slot, p, last[visitor] as number);
            last[visitor] = 0;
          }
        }
      }
    }
  }
  return seen && purposeSeen ? { lastSeen: seen, purposeSeen } : null;
}

/**
 * The distinct visitors of a page on the human, ai and total sides, and on the purpose sides
 * (counted only if `purposes`): `stamp` holds per visitor the last page counted, so it needs no
 * clearing between pages. Purpose pairs are counted by stamping `page` with the top bit set.
 */
function countPairs(
  path: number,
  pageSegments: ReadonlyArray<Map<number, Array<Segment | null>>>,
  stamp: Uint32Array,
  purposes: boolean,
): [pairs: number, purposePairs: number] {
  let pairs = 0;
  let purposePairs = 0;
  for (const [from, to, mark] of [
    [0, SIDE_PURPOSE, path],
    [SIDE_PURPOSE, purposes ? LIST_SIDES : SIDE_PURPOSE, (path | 0x80000000) >>> 0],
  ] as const) {
    let added = 0;
    for (const pages of pageSegments) {
      const segments = pages.get(path);
      if (!segments) continue;
      for (let side = from; side < to; side++) {
        const segment = segments[side];
        if (!segment) continue;
        const { values, start, end } = segment;
        for (let i = start; i < end; i++) {
          const visitor = values[i] as number;
          if (stamp[visitor] !== mark) {
            stamp[visitor] = mark;
            added++;
          }
        }
      }
    }
    if (from === 0) pairs = added;
    else purposePairs = added;
  }
  return [pairs, purposePairs];
}

/** A day's pages with their list segments (index-layout.ts), whichever form the day is in. */
function* pagesOf(day: DayIndex): Generator<[number, Array<Segment | null>]> {
  const packed = day.packed;
  if (!packed) {
    for (const [path, page] of day.pages) {
      yield [
        path,
        page.lists.map((list) =>
          list ? { values: list.values, prev: list.prev, start: 0, end: list.length } : null,
        ),
      ];
    }
    return;
  }
  const { paths, offsets, values, prev } = packed;
  for (let i = 0; i < paths.length; i++) {
    const segments: Array<Segment | null> = [];
    for (let side = 0; side < LIST_SIDES; side++) {
      const start = offsets[i * LIST_SIDES + side] as number;
      const end = offsets[i * LIST_SIDES + side + 1] as number;
      segments.push(end > start ? { values, prev, start, end } : null);
    }
    yield [paths[i] as number, segments];
  }
}

import type { Counts, PurposeSplit } from '../../../domain/analytics/store.ts';
import { type CompactVisitorSet, marked, markGaps, membersOf } from './compact-set.ts';
import type { DayIndex } from './day-index.ts';
import { LIST_SIDES, type Selection } from './index-layout.ts';
import type { Members } from './members.ts';
import { firstSince, type PageEntry } from './packed-pages.ts';
import type { VisitorSet } from './visitor-set.ts';

/** Human, the ai side, and their union. */
export interface SideCounts {
  human: number;
  ai: number;
  total: number;
}

/**
 * Two bitmaps over visitor numbers (human, ai), reused across unions and left all-zero after
 * each: 125 KB apiece per million visitors, so a union's random accesses stay in the L2 cache.
 */
export class Marks {
  human = new Int32Array(0);
  ai = new Int32Array(0);

  prepare(universe: number): number {
    const words = (universe >>> 5) + 1;
    if (this.human.length < words) {
      this.human = new Int32Array(words + 1024);
      this.ai = new Int32Array(words + 1024);
    }
    return words;
  }
}

/**
 * Exact |H|, |A| and |H ∪ A| of two families of visitor sets, in one pass over their members:
 * a visitor adds to `total` the first time it is seen on either side.
 */
export function unionCounts(
  marks: Marks,
  universe: number,
  humanSets: readonly Members[],
  aiSets: readonly Members[],
): SideCounts {
  const words = marks.prepare(universe);
  const seenHuman = marks.human;
  const seenAi = marks.ai;
  let human = 0;
  let ai = 0;
  let total = 0;
  let members = 0;
  // Gap-encoded sets are not decoded a second time to wipe their words: the bitmaps are cleared whole.
  let gapped = false;
  for (const set of humanSets) {
    const bits = set.bits?.(words);
    if (bits) {
      // Dense: a word at a time.
      members += bits.length;
      const from = set.firstWord ?? 0;
      for (let w = 0; w < bits.length; w++) {
        const at = from + w;
        const fresh = (bits[w] as number) & ~(seenHuman[at] as number);
        if (fresh === 0) continue;
        seenHuman[at] = (seenHuman[at] as number) | fresh;
        human += popcount(fresh);
        total += popcount(fresh & ~(seenAi[at] as number));
      }
      continue;
    }
    const length = set.length;
    members += length;
    if (set.gaps) {
      gapped = true;
      markGaps(set.gaps, length, seenHuman, seenAi);
      human += marked.fresh;
      total += marked.freshToBoth;
      continue;
    }
    const values = set.values;
    for (let i = 0; i < length; i++) {
      const v = values[i] as number;
      const word = v >>> 5;
      const bit = 1 << (v & 31);
      const seen = seenHuman[word] as number;
      if ((seen & bit) === 0) {
        seenHuman[word] = seen | bit;
        human++;
        if (((seenAi[word] as number) & bit) === 0) total++;
      }
    }
  }
  for (const set of aiSets) {
    const bits = set.bits?.(words);
    if (bits) {
      members += bits.length;
      const from = set.firstWord ?? 0;
      for (let w = 0; w < bits.length; w++) {
        const at = from + w;
        const fresh = (bits[w] as number) & ~(seenAi[at] as number);
        if (fresh === 0) continue;
        seenAi[at] = (seenAi[at] as number) | fresh;
        ai += popcount(fresh);
        total += popcount(fresh & ~(seenHuman[at] as number));
      }
      continue;
    }
    const length = set.length;
    members += length;
    if (set.gaps) {
      gapped = true;
      markGaps(set.gaps, length, seenAi, seenHuman);
      ai += marked.fresh;
      total += marked.freshToBoth;
      continue;
    }
    const values = set.values;
    for (let i = 0; i < length; i++) {
      const v = values[i] as number;
      const word = v >>> 5;
      const bit = 1 << (v & 31);
      const seen = seenAi[word] as number;
      if ((seen & bit) === 0) {
        seenAi[word] = seen | bit;
        ai++;
        if (((seenHuman[word] as number) & bit) === 0) total++;
      }
    }
  }
  // Leave the bitmaps clear for the next union: wipe them whole or set by set, whichever is less.
  if (gapped || members * 2 > words) {
    seenHuman.fill(0, 0, words);
    seenAi.fill(0, 0, words);
  } else {
    wipe(seenHuman, humanSets, words);
    wipe(seenAi, aiSets, words);
  }
  return { human, ai, total };
}

/** Zeroes the words of `seen` that the sets' members marked. */
function wipe(seen: Int32Array, sets: readonly Members[], words: number): void {
  for (const set of sets) {
    const bits = set.bits?.(words);
    if (bits) {
      const from = set.firstWord ?? 0;
      seen.fill(0, from, from + bits.length);
      continue;
    }
    const values = set.values;
    for (let i = 0; i < set.length; i++) seen[(values[i] as number) >>> 5] = 0;
  }
}

/** Set bits of a 32-bit word. */
function popcount(x: number): number {
  let n = x - ((x >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return Math.imul((n + (n >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Distinct visitors of a family of sets (one side of `unionCounts`). */
export function distinctCount(marks: Marks, universe: number, sets: readonly Members[]): number {
  return sets.length === 0 ? 0 : unionCounts(marks, universe, sets, []).human;
}

export function viewCount(sets: readonly Members[]): number {
  let views = 0;
  for (const set of sets) views += set.views;
  return views;
}

/** The purpose split: distinct visitors (or views) of each purpose's sets. */
export function purposeCounts(
  marks: Marks,
  universe: number,
  purposes: ReadonlyArray<readonly Members[]>,
  measure: 'visitors' | 'views',
): PurposeSplit {
  const [assistant, search, training, other] = purposes.map((sets) =>
    measure === 'views' ? viewCount(sets) : distinctCount(marks, universe, sets),
  ) as [number, number, number, number];
  return { aiAssistant: assistant, aiSearch: search, aiTraining: training, aiOther: other };
}

/** Full counts of families of sets: human, the ai side, and the four purposes. */
export function countsOf(
  marks: Marks,
  universe: number,
  human: readonly Members[],
  ai: readonly Members[],
  purposes: ReadonlyArray<readonly Members[]>,
  measure: 'visitors' | 'views',
): Counts {
  const sides =
    measure === 'visitors'
      ? unionCounts(marks, universe, human, ai)
      : { human: viewCount(human), ai: viewCount(ai), total: viewCount(human) + viewCount(ai) };
  return { ...sides, ...purposeCounts(marks, universe, purposes, measure) };
}

export const NO_COUNTS: Counts = {
  human: 0,
  ai: 0,
  total: 0,
  aiAssistant: 0,
  aiSearch: 0,
  aiTraining: 0,
  aiOther: 0,
};

export interface PageCount extends Counts {
  path: number;
}

/** A page's segment (index-layout.ts) as members, or null when empty. */
export function segmentOf(page: PageEntry, segment: number): Members | null {
  return segment < LIST_SIDES ? (page.lists[segment] ?? null) : (page.sets[segment - LIST_SIDES] ?? null);
}

/** The members of the sets of `slots` that exist, from one of a day's arrays of sets. */
export function pick(
  sets: ReadonlyArray<VisitorSet | CompactVisitorSet | null>,
  slots: readonly number[],
  into: Members[],
): void {
  for (const slot of slots) {
    const set = sets[slot];
    if (set) into.push(membersOf(set));
  }
}

/** `pick` for each purpose: `into[p]` gets the members of the sets of `slots[p]`. */
export function pickEach(
  sets: ReadonlyArray<VisitorSet | CompactVisitorSet | null>,
  slots: ReadonlyArray<readonly number[]>,
  into: Members[][],
): void {
  for (let p = 0; p < slots.length; p++) pick(sets, slots[p] as number[], into[p] as Members[]);
}

/**
 * Per-page counts over a range made of day (or partial-day) segments. With `firstDay` (a range
 * of whole days starting on that day, indexes in time order) and the default selection, each
 * page's distinct visitors per side are the entries whose previous visit is before `firstDay`;
 * otherwise the sets are unioned.
 */
export function countPages(
  marks: Marks,
  universe: number,
  segments: readonly DayIndex[],
  measure: 'visitors' | 'views',
  select: Selection,
  firstDay: number | null,
): PageCount[] {
  if (measure === 'visitors' && firstDay !== null && select.byPreviousVisits)
    return countFirstVisits(segments, firstDay);
  const { human, ai, purposes } = select.page;
  const byPath = new Map<number, { human: Members[]; ai: Members[]; purposes: Members[][] }>();
  for (const segment of segments) {
    for (const [path, page] of segment.pageEntries()) {
      let entry = byPath.get(path);
      if (!entry) {
        entry = { human: [], ai: [], purposes: [[], [], [], []] };
        byPath.set(path, entry);
      }
      const add = (slots: readonly number[], into: Members[]) => {
        for (const slot of slots) {
          const members = segmentOf(page, slot);
          if (members) into.push(members);
        }
      };
      add(human, entry.human);
      add(ai, entry.ai);
      for (let p = 0; p < purposes.length; p++) add(purposes[p] as number[], entry.purposes[p] as Members[]);
    }
  }
  const rows: PageCount[] = [];
  for (const [path, entry] of byPath) {
    const counts = countsOf(marks, universe, entry.human, entry.ai, entry.purposes, measure);
    if (counts.total > 0) rows.push({ path, ...counts });
  }
  return rows;
}

/** Per-path sums of each list side, indexed by path: the rows of `countFirstVisits` and `countClipped`. */
export function rowsOfSums(sums: readonly Int32Array[]): PageCount[] {
  const [human, ai, total, assistant, search, training, other] = sums as [
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
  ];
  const rows: PageCount[] = [];
  for (let path = 0; path < total.length; path++) {
    const t = total[path] as number;
    if (t > 0)
      rows.push({
        path,
        human: human[path] as number,
        ai: ai[path] as number,
        total: t,
        aiAssistant: assistant[path] as number,
        aiSearch: search[path] as number,
        aiTraining: training[path] as number,
        aiOther: other[path] as number,
      });
  }
  return rows;
}

export function maxPathOf(day: DayIndex): number {
  let max = 0;
  if (day.packed) {
    for (const path of day.packed.paths) if (path > max) max = path;
  } else for (const path of day.pages.keys()) if (path > max) max = path;
  return max;
}

function countFirstVisits(segments: readonly DayIndex[], firstDay: number): PageCount[] {
  let maxPath = 0;
  for (const segment of segments) maxPath = Math.max(maxPath, maxPathOf(segment));
  // Paths are dense dictionary numbers: accumulate in arrays indexed by them.
  const sums: Int32Array[] = [];
  for (let side = 0; side < LIST_SIDES; side++) sums.push(new Int32Array(maxPath + 1));
  for (const segment of segments) {
    const packed = segment.packed;
    if (packed) {
      const { paths, offsets, prev } = packed;
      for (let i = 0; i < paths.length; i++) {
        const path = paths[i] as number;
        const base = i * LIST_SIDES;
        for (let side = 0; side < LIST_SIDES; side++) {
          const start = offsets[base + side] as number;
          const end = offsets[base + side + 1] as number;
          if (end === start) continue;
          const count = firstSince(prev, start, end, firstDay) - start;
          const sum = sums[side] as Int32Array;
          sum[path] = (sum[path] as number) + count;
        }
      }
      continue;
    }
    for (const [path, page] of segment.pages) {
      for (let side = 0; side < LIST_SIDES; side++) {
        const list = page.lists[side];
        const sum = sums[side] as Int32Array;
        if (list) sum[path] = (sum[path] as number) + list.countFirstSince(firstDay);
      }
    }
  }
  return rowsOfSums(sums);
}

/** Totals over the whole range, from the day's category and purpose sets. */
export function countTotals(
  marks: Marks,
  universe: number,
  segments: readonly DayIndex[],
  measure: 'visitors' | 'views',
  select: Selection,
): Counts {
  const human: Members[] = [];
  const ai: Members[] = [];
  const purposes: Members[][] = [[], [], [], []];
  for (const segment of segments) {
    pick(segment.categories, select.day.human, human);
    pick(segment.categories, select.day.ai, ai);
    pickEach(segment.purposes, select.day.purposes, purposes);
  }
  return countsOf(marks, universe, human, ai, purposes, measure);
}

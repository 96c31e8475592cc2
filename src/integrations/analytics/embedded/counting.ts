import type { Counts } from '../../../domain/analytics/store.ts';
import { type DayIndex, firstSince } from './day-index.ts';
import { SIDE_AI, SIDE_HUMAN } from './prev-list.ts';
import type { VisitorSet } from './visitor-set.ts';

/** Visitor numbers (repeats allowed) with a view count: a VisitorSet or a PrevList. */
export interface Members {
  values: Uint32Array;
  length: number;
  views: number;
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
export function unionCounts(marks: Marks, universe: number, humanSets: Members[], aiSets: Members[]): Counts {
  const words = marks.prepare(universe);
  const seenHuman = marks.human;
  const seenAi = marks.ai;
  let human = 0;
  let ai = 0;
  let total = 0;
  let members = 0;
  for (const set of humanSets) {
    const values = set.values;
    const length = set.length;
    members += length;
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
    const values = set.values;
    const length = set.length;
    members += length;
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
  // Leave the bitmaps clear for the next union: wipe them whole or word by word, whichever is less.
  if (members * 2 > words) {
    seenHuman.fill(0, 0, words);
    seenAi.fill(0, 0, words);
  } else {
    for (const set of humanSets)
      for (let i = 0; i < set.length; i++) seenHuman[(set.values[i] as number) >>> 5] = 0;
    for (const set of aiSets)
      for (let i = 0; i < set.length; i++) seenAi[(set.values[i] as number) >>> 5] = 0;
  }
  return { human, ai, total };
}

/** Distinct visitors of a family of sets (one side of `unionCounts`). */
export function distinctCount(marks: Marks, universe: number, sets: Members[]): number {
  return unionCounts(marks, universe, sets, []).human;
}

export function viewCounts(humanSets: Members[], aiSets: Members[]): Counts {
  let human = 0;
  let ai = 0;
  for (const set of humanSets) human += set.views;
  for (const set of aiSets) ai += set.views;
  return { human, ai, total: human + ai };
}

/** Category codes that count as `ai`: ai, plus ai_crawler when the project says so. */
export function aiCodes(countAiCrawlersAsAi: boolean): number[] {
  return countAiCrawlersAsAi ? [1, 2] : [1];
}

export interface PageCount extends Counts {
  path: number;
}

/**
 * Per-page counts over a range made of day (or partial-day) segments. With `firstDay` (a range
 * of whole days starting on that day, indexes in time order, crawlers not counted as ai), each
 * page's distinct visitors are the entries whose previous visit is before `firstDay`; otherwise
 * the sets are unioned.
 */
export function countPages(
  marks: Marks,
  universe: number,
  segments: readonly DayIndex[],
  measure: 'visitors' | 'views',
  ai: readonly number[],
  firstDay: number | null,
): PageCount[] {
  if (measure === 'visitors' && firstDay !== null && ai.length === 1)
    return countFirstVisits(segments, firstDay);
  const withCrawlers = ai.includes(2);
  const byPath = new Map<number, { human: Members[]; ai: Members[] }>();
  for (const segment of segments) {
    for (const [path, page] of segment.pageEntries()) {
      let entry = byPath.get(path);
      if (!entry) {
        entry = { human: [], ai: [] };
        byPath.set(path, entry);
      }
      const human = page.lists[SIDE_HUMAN];
      if (human) entry.human.push(human);
      const aiList = page.lists[SIDE_AI];
      if (aiList) entry.ai.push(aiList);
      if (withCrawlers && page.crawlers) entry.ai.push(page.crawlers);
    }
  }
  const rows: PageCount[] = [];
  for (const [path, entry] of byPath) {
    const counts =
      measure === 'visitors'
        ? unionCounts(marks, universe, entry.human, entry.ai)
        : viewCounts(entry.human, entry.ai);
    if (counts.total > 0) rows.push({ path, ...counts });
  }
  return rows;
}

function countFirstVisits(segments: readonly DayIndex[], firstDay: number): PageCount[] {
  let maxPath = 0;
  for (const segment of segments) {
    if (segment.packed) for (const path of segment.packed.paths) maxPath = Math.max(maxPath, path);
    else for (const path of segment.pages.keys()) maxPath = Math.max(maxPath, path);
  }
  // Paths are dense dictionary numbers: accumulate in arrays indexed by them.
  const human = new Int32Array(maxPath + 1);
  const ai = new Int32Array(maxPath + 1);
  const total = new Int32Array(maxPath + 1);
  const sums = [human, ai, total];
  for (const segment of segments) {
    const packed = segment.packed;
    if (packed) {
      const { paths, offsets, prev } = packed;
      for (let i = 0; i < paths.length; i++) {
        const path = paths[i] as number;
        for (let side = 0; side < 3; side++) {
          const start = offsets[i * 4 + side] as number;
          const count = firstSince(prev, start, offsets[i * 4 + side + 1] as number, firstDay) - start;
          const sum = sums[side] as Int32Array;
          sum[path] = (sum[path] as number) + count;
        }
      }
      continue;
    }
    for (const [path, page] of segment.pages) {
      for (let side = 0; side < 3; side++) {
        const list = page.lists[side];
        const sum = sums[side] as Int32Array;
        if (list) sum[path] = (sum[path] as number) + list.countFirstSince(firstDay);
      }
    }
  }
  const rows: PageCount[] = [];
  for (let path = 0; path <= maxPath; path++) {
    const t = total[path] as number;
    if (t > 0) rows.push({ path, human: human[path] as number, ai: ai[path] as number, total: t });
  }
  return rows;
}

/** Totals over the whole range, from the per-category sets. */
export function countTotals(
  marks: Marks,
  universe: number,
  segments: readonly DayIndex[],
  measure: 'visitors' | 'views',
  ai: readonly number[],
): Counts {
  const human: VisitorSet[] = [];
  const aiSets: VisitorSet[] = [];
  for (const segment of segments) {
    const h = segment.categories[0];
    if (h) human.push(h);
    for (const code of ai) {
      const set = segment.categories[code];
      if (set) aiSets.push(set);
    }
  }
  return measure === 'visitors' ? unionCounts(marks, universe, human, aiSets) : viewCounts(human, aiSets);
}

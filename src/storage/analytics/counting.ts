import type { Counts } from '../../domain/analytics/store.ts';
import type { DayIndex } from './day-index.ts';
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
    for (const [path, page] of segment.pages) {
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
  const byPath = new Map<number, PageCount>();
  for (const segment of segments) {
    for (const [path, page] of segment.pages) {
      let row = byPath.get(path);
      if (!row) {
        row = { path, human: 0, ai: 0, total: 0 };
        byPath.set(path, row);
      }
      const [human, ai, total] = page.lists;
      if (human) row.human += human.countFirstSince(firstDay);
      if (ai) row.ai += ai.countFirstSince(firstDay);
      if (total) row.total += total.countFirstSince(firstDay);
    }
  }
  const rows: PageCount[] = [];
  for (const row of byPath.values()) if (row.total > 0) rows.push(row);
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

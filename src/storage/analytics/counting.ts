import type { Counts } from '../../domain/analytics/store.ts';
import type { DayIndex } from './day-index.ts';
import type { VisitorSet } from './visitor-set.ts';

/**
 * Stamp arrays indexed by visitor number, reused across queries: a visitor is "seen" in the
 * current union when its entry equals the current stamp, so no clearing between unions.
 */
export class Marks {
  human = new Uint32Array(0);
  ai = new Uint32Array(0);
  private stamp = 0;

  /** Starts a new union over visitor numbers below `universe`; returns its stamp. */
  next(universe: number): number {
    if (this.human.length < universe) {
      const size = Math.ceil(universe * 1.25) + 1024;
      this.human = new Uint32Array(size);
      this.ai = new Uint32Array(size);
      this.stamp = 0;
    }
    if (this.stamp === 0xffffffff) {
      this.human.fill(0);
      this.ai.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }
}

/**
 * Exact |H|, |A| and |H ∪ A| of two families of visitor sets, in one pass over their members:
 * a visitor adds to `total` the first time it is seen on either side.
 */
export function unionCounts(
  marks: Marks,
  universe: number,
  humanSets: VisitorSet[],
  aiSets: VisitorSet[],
): Counts {
  const stamp = marks.next(universe);
  const seenHuman = marks.human;
  const seenAi = marks.ai;
  let human = 0;
  let ai = 0;
  let total = 0;
  for (const set of humanSets) {
    const values = set.values;
    const length = set.length;
    for (let i = 0; i < length; i++) {
      const v = values[i] as number;
      if (seenHuman[v] !== stamp) {
        seenHuman[v] = stamp;
        human++;
        if (seenAi[v] !== stamp) total++;
      }
    }
  }
  for (const set of aiSets) {
    const values = set.values;
    const length = set.length;
    for (let i = 0; i < length; i++) {
      const v = values[i] as number;
      if (seenAi[v] !== stamp) {
        seenAi[v] = stamp;
        ai++;
        if (seenHuman[v] !== stamp) total++;
      }
    }
  }
  return { human, ai, total };
}

/** Distinct visitors of a family of sets (one side of `unionCounts`). */
export function distinctCount(marks: Marks, universe: number, sets: VisitorSet[]): number {
  return unionCounts(marks, universe, sets, []).human;
}

export function viewCounts(humanSets: VisitorSet[], aiSets: VisitorSet[]): Counts {
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

/** Per-page counts over a range made of day (or partial-day) segments. */
export function countPages(
  marks: Marks,
  universe: number,
  segments: readonly DayIndex[],
  measure: 'visitors' | 'views',
  ai: readonly number[],
): PageCount[] {
  const byPath = new Map<number, { human: VisitorSet[]; ai: VisitorSet[] }>();
  for (const segment of segments) {
    for (const [path, sets] of segment.pages) {
      let entry = byPath.get(path);
      if (!entry) {
        entry = { human: [], ai: [] };
        byPath.set(path, entry);
      }
      const human = sets[0];
      if (human) entry.human.push(human);
      for (const code of ai) {
        const set = sets[code];
        if (set) entry.ai.push(set);
      }
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

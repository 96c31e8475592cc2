import { type Category, categoryFromCode } from '../../../domain/analytics/categories.ts';
import type {
  Breakdown,
  BreakdownQuery,
  PageQuery,
  PageReport,
  PageRow,
  SeriesPoint,
  SeriesQuery,
  TimeRange,
} from '../../../domain/analytics/store.ts';
import { invalid } from '../../../domain/errors.ts';
import type { AnalyticsDatabase } from './analytics-database.ts';
import { countClipped, EdgeCollector, type EdgeViews } from './clipped-count.ts';
import {
  aiCodes,
  countPages,
  countTotals,
  distinctCount,
  Marks,
  type Members,
  unionCounts,
  viewCounts,
} from './counting.ts';
import { CATEGORY_COUNT, COUNTED_CATEGORIES, DAY_MS, type DayIndex, HOUR_MS } from './day-index.ts';
import { type CachedPages, PageCache } from './page-cache.ts';
import type { ProjectIndex } from './project-index.ts';
import { planRange, type RangePlan } from './range-plan.ts';
import { ViewCursor } from './record.ts';
import type { VisitorSet } from './visitor-set.ts';

/** What the queries need of the engine. */
export interface QuerySource {
  database(): AnalyticsDatabase;
  /** The project's index, caught up with every view committed so far. */
  currentIndex(projectId: string): ProjectIndex;
  /** The seq the loaded indexes reflect. */
  tailSeq(): number;
  /** Days before this one are kept packed. */
  yesterday(): number;
}

/** The exports over the in-memory indexes: pages, time series, breakdown. */
export class RangeQueries {
  private readonly source: QuerySource;
  private readonly maxSeriesBuckets: number;
  private readonly marks = new Marks();
  private flags = new Uint8Array(0);
  readonly cache = new PageCache();

  constructor(source: QuerySource, maxSeriesBuckets = 10_000) {
    this.source = source;
    this.maxSeriesBuckets = maxSeriesBuckets;
  }

  pages(projectId: string, query: PageQuery): PageReport {
    const plan = this.plan(projectId, query.range);
    if (!plan) return { totals: { human: 0, ai: 0, total: 0 }, rows: [], hasMore: false };
    const key = `${plan.index.projectNo}|${plan.from}|${plan.to}|${query.measure}|${query.countAiCrawlersAsAi}`;
    let cached = this.cache.get(key, plan.index, plan.fingerprint);
    if (!cached) {
      cached = this.computePages(plan, query);
      this.cache.set(key, cached);
    }
    const rows = cached.rows.slice(query.offset, query.offset + query.limit);
    return { totals: cached.totals, rows, hasMore: query.offset + query.limit < cached.rows.length };
  }

  timeSeries(projectId: string, query: SeriesQuery): SeriesPoint[] {
    const plan = this.plan(projectId, query.range);
    if (!plan) return [];
    const step = query.interval === 'day' ? DAY_MS : HOUR_MS;
    const firstBucket = Math.floor(plan.from / step) * step;
    const buckets = Math.ceil((plan.to - firstBucket) / step);
    const max = this.maxSeriesBuckets;
    if (buckets > max) {
      throw invalid(
        `A time series may have at most ${max} buckets; narrow the range or use a longer interval`,
      );
    }
    const ai = aiCodes(query.countAiCrawlersAsAi);
    const universe = this.source.database().visitorUniverse();
    const byDay = new Map(plan.segments().map((s) => [s.day, s]));
    const points: SeriesPoint[] = [];
    for (let start = firstBucket; start < plan.to; start += step) {
      const segment = byDay.get(Math.floor(start / DAY_MS));
      const human: VisitorSet[] = [];
      const aiSets: VisitorSet[] = [];
      if (segment) {
        const pick = (code: number) =>
          query.interval === 'day'
            ? segment.categories[code]
            : segment.hours[Math.floor((start % DAY_MS) / HOUR_MS) * COUNTED_CATEGORIES + code];
        const h = pick(0);
        if (h) human.push(h);
        for (const code of ai) {
          const set = pick(code);
          if (set) aiSets.push(set);
        }
      }
      points.push({
        start: Math.max(start, plan.from),
        visitors: unionCounts(this.marks, universe, human, aiSets),
        views: viewCounts(human, aiSets),
      });
    }
    return points;
  }

  breakdown(projectId: string, query: BreakdownQuery): Breakdown {
    const plan = this.plan(projectId, query.range);
    const categories: Breakdown['categories'] = [];
    const agents: Breakdown['agents'] = [];
    if (!plan) {
      for (let code = 0; code < CATEGORY_COUNT; code++) {
        categories.push({ category: categoryFromCode(code), visitors: 0, views: 0 });
      }
      return { categories, agents, operators: [] };
    }
    const db = this.source.database();
    const universe = db.visitorUniverse();
    for (let code = 0; code < CATEGORY_COUNT; code++) {
      const sets = plan.segments().flatMap((s) => s.categories[code] ?? []);
      categories.push({
        category: categoryFromCode(code),
        visitors: distinctCount(this.marks, universe, sets),
        views: sets.reduce((sum, set) => sum + set.views, 0),
      });
    }
    const byAgent = new Map<number, VisitorSet[]>();
    for (const segment of plan.segments()) {
      for (const [key, set] of segment.agents) {
        const list = byAgent.get(key);
        if (list) list.push(set);
        else byAgent.set(key, [set]);
      }
    }
    const byOperator = new Map<string, VisitorSet[]>();
    for (const [key, sets] of byAgent) {
      const name = db.agents.nameOf(Math.floor(key / 8));
      const operator = query.operatorOf.get(name);
      if (operator !== undefined) {
        const list = byOperator.get(operator);
        if (list) list.push(...sets);
        else byOperator.set(operator, [...sets]);
      }
      agents.push({
        agent: name,
        category: categoryFromCode(key % 8) as Category,
        visitors: distinctCount(this.marks, universe, sets),
        views: sets.reduce((sum, set) => sum + set.views, 0),
      });
    }
    agents.sort(
      (a, b) =>
        b.visitors - a.visitors || compareText(a.agent, b.agent) || compareText(a.category, b.category),
    );
    const operators: Breakdown['operators'] = [];
    for (const [operator, sets] of byOperator) {
      operators.push({
        operator,
        visitors: distinctCount(this.marks, universe, sets),
        views: sets.reduce((sum, set) => sum + set.views, 0),
      });
    }
    operators.sort((a, b) => b.visitors - a.visitors || compareText(a.operator, b.operator));
    return { categories, agents, operators };
  }

  private plan(projectId: string, range: TimeRange): RangePlan | null {
    const index = this.source.currentIndex(projectId);
    return planRange(index, range, this.source.database().chunks, this.source.tailSeq());
  }

  private computePages(plan: RangePlan, query: PageQuery): CachedPages {
    const db = this.source.database();
    const universe = db.visitorUniverse();
    const ai = aiCodes(query.countAiCrawlersAsAi);
    if (!plan.wholeDays && query.measure === 'visitors' && ai.length === 1) {
      const clipped = this.computeClipped(plan);
      if (clipped) return clipped;
    }
    let firstDay: number | null = null;
    if (plan.wholeDays) {
      plan.index.ensureInOrder(universe, this.source.yesterday());
      firstDay = Math.floor(plan.from / DAY_MS);
    }
    const counted = countPages(this.marks, universe, plan.segments(), query.measure, ai, firstDay);
    const rows: PageRow[] = counted.map((c) => ({
      path: db.paths.nameOf(c.path),
      human: c.human,
      ai: c.ai,
      total: c.total,
    }));
    rows.sort((a, b) => b.total - a.total || compareText(a.path, b.path));
    const totals = countTotals(this.marks, universe, plan.segments(), query.measure, ai);
    return { index: plan.index, fingerprint: plan.fingerprint, totals, rows };
  }

  /**
   * Visitors per page over a range with clipped edge days, ai without crawlers: the whole days
   * by the previous-visit scan, the edges from their raw views (see countClipped). Null when
   * the range has no whole day boundary to work from (one day clipped at both ends).
   */
  private computeClipped(plan: RangePlan): CachedPages | null {
    const parts = plan.parts;
    const first = parts[0];
    const last = parts[parts.length - 1];
    if (!first || !last) return null;
    const leftPart = first.whole ? null : first;
    const rightPart = last.whole || last === first ? null : last;
    if (leftPart && leftPart === last) return null;
    const db = this.source.database();
    const universe = db.visitorUniverse();
    plan.index.ensureInOrder(universe, this.source.yesterday());
    const edges = new Map<number, EdgeCollector>();
    for (const part of [leftPart, rightPart]) {
      if (!part) continue;
      const day = part.day.day;
      // Chunks outside the edge's part of the day are skipped: a clipped first day of a range
      // at +02:00 keeps its last two hours and reads about a twelfth of that day.
      const chunks = db.chunks.dayInSpan(
        plan.index.projectNo,
        day,
        this.source.tailSeq(),
        part.from - day * DAY_MS,
        part.to - day * DAY_MS,
      );
      const views = chunks.reduce((n, chunk) => n + chunk.count, 0);
      const edge = new EdgeCollector(day, part.from, part.to, views);
      for (const chunk of chunks) {
        for (const v = new ViewCursor(chunk); v.next(); ) edge.add(v.msOfDay, v.path, v.visitor, v.category);
      }
      edges.set(day, edge);
    }
    const left = leftPart ? (edges.get(leftPart.day.day)?.edge ?? null) : null;
    const rightEdge = rightPart ? edges.get(rightPart.day.day)?.edge : undefined;
    const whole = parts.filter((p) => p.whole).map((p) => p.day);
    const firstWhole = Math.floor(plan.from / DAY_MS) + (leftPart ? 1 : 0);
    const [human, ai, total] = countClipped(
      {
        whole,
        firstWhole,
        left,
        right: rightPart && rightEdge ? { edge: rightEdge, index: rightPart.day } : null,
      },
      this.visitorFlags(universe),
    ) as [Int32Array, Int32Array, Int32Array];
    const rows: PageRow[] = [];
    for (let path = 0; path < total.length; path++) {
      const t = total[path] as number;
      if (t > 0)
        rows.push({
          path: db.paths.nameOf(path),
          human: human[path] as number,
          ai: ai[path] as number,
          total: t,
        });
    }
    rows.sort((a, b) => b.total - a.total || compareText(a.path, b.path));
    const totals = unionCounts(this.marks, universe, ...edgeTotalsSets(whole, [left, rightEdge]));
    return { index: plan.index, fingerprint: plan.fingerprint, totals, rows };
  }

  /** One zeroed byte per visitor number, reused across queries (countClipped leaves it zeroed). */
  private visitorFlags(universe: number): Uint8Array {
    if (this.flags.length < universe) this.flags = new Uint8Array(universe + 65_536);
    return this.flags;
  }
}

/** Totals of a clipped range: the whole days' category sets and the edges' views, to union. */
function edgeTotalsSets(
  whole: readonly DayIndex[],
  edges: ReadonlyArray<EdgeViews | null | undefined>,
): [Members[], Members[]] {
  const humanSets: Members[] = [];
  const aiSets: Members[] = [];
  for (const day of whole) {
    const h = day.categories[0];
    if (h) humanSets.push(h);
    const a = day.categories[1];
    if (a) aiSets.push(a);
  }
  for (const edge of edges) {
    if (!edge) continue;
    const split = splitByCategory(edge);
    humanSets.push(split.human);
    aiSets.push(split.ai);
  }
  return [humanSets, aiSets];
}

/** An edge's visitors, human and ai apart (repeats kept: unions do not mind). */
function splitByCategory(edge: EdgeViews): { human: Members; ai: Members } {
  const { visitors, codes, length } = edge.views;
  const human = new Uint32Array(length);
  const ai = new Uint32Array(length);
  let h = 0;
  let a = 0;
  for (let i = 0; i < length; i++) {
    const visitor = visitors[i] as number;
    if (codes[i] === 0) human[h++] = visitor;
    else ai[a++] = visitor;
  }
  return { human: { values: human, length: h, views: 0 }, ai: { values: ai, length: a, views: 0 } };
}

/** Code-point order: stable and locale-independent, so paging is deterministic. */
function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

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
import {
  countClipped,
  type Edge,
  EdgeCollector,
  type EdgeFlags,
  type EdgeScratch,
  type EdgeViews,
  type QuarterEdge,
} from './clipped-count.ts';
import { membersOf } from './compact-set.ts';
import {
  countPages,
  countsOf,
  countTotals,
  distinctCount,
  Marks,
  NO_COUNTS,
  type PageCount,
  pick,
  pickEach,
  rowsOfSums,
  viewCount,
} from './counting.ts';
import { DAY_MS, type DayIndex, HOUR_MS } from './day-index.ts';
import { QUARTER_MS } from './edge-quarters.ts';
import {
  agentKeyParts,
  CATEGORY_COUNT,
  CATEGORY_SLOTS,
  countedCode,
  HOUR_SLOTS,
  LIST_SIDES,
  type Selection,
  SIDE_AI,
  SIDE_HUMAN,
  SIDE_PURPOSE,
  selection,
} from './index-layout.ts';
import type { Members } from './members.ts';
import { type CachedPages, PageCache } from './page-cache.ts';
import type { ProjectIndex } from './project-index.ts';
import { planRange, type RangePart, type RangePlan } from './range-plan.ts';
import { ViewCursor } from './record.ts';

/** What the queries need of the engine. */
export interface QuerySource {
  database(): AnalyticsDatabase;
  /** The project's index, caught up with every view committed so far. */
  currentIndex(projectId: string): ProjectIndex;
  /** The seq the loaded indexes reflect. */
  tailSeq(): number;
  /** Days before this one are kept packed. */
  yesterday(): number;
  /** Gives a packed day its quarters (edge-quarters.ts) if it has none yet. */
  addQuarters(projectNo: number, day: DayIndex): void;
}

/** The exports over the in-memory indexes: pages, time series, breakdown. */
export class RangeQueries {
  private readonly source: QuerySource;
  private readonly maxSeriesBuckets: number;
  private readonly marks = new Marks();
  private flags: EdgeFlags = { left: new Uint16Array(0), right: new Uint8Array(0) };
  /** The arrays countClipped lists the edges' visitors in, reused from query to query. */
  private readonly edgeScratch: EdgeScratch = { left: [], right: [] };
  readonly cache = new PageCache();

  constructor(source: QuerySource, maxSeriesBuckets = 10_000) {
    this.source = source;
    this.maxSeriesBuckets = maxSeriesBuckets;
  }

  pages(projectId: string, query: PageQuery): PageReport {
    const plan = this.plan(projectId, query.range);
    if (!plan) return { totals: NO_COUNTS, rows: [], hasMore: false };
    const key = `${plan.index.projectNo}|${plan.from}|${plan.to}|${query.measure}|${query.countAiCrawlersAsAi}|${query.verifiedOnly}`;
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
    const select = selection(query.countAiCrawlersAsAi, query.verifiedOnly);
    const universe = this.source.database().visitorUniverse();
    const byDay = new Map(plan.segments().map((s) => [s.day, s]));
    const points: SeriesPoint[] = [];
    for (let start = firstBucket; start < plan.to; start += step) {
      const segment = byDay.get(Math.floor(start / DAY_MS));
      const human: Members[] = [];
      const ai: Members[] = [];
      const purposes: Members[][] = [[], [], [], []];
      if (segment && query.interval === 'day') {
        pick(segment.categories, select.day.human, human);
        pick(segment.categories, select.day.ai, ai);
        pickEach(segment.purposes, select.day.purposes, purposes);
      } else if (segment) {
        const base = Math.floor((start % DAY_MS) / HOUR_MS) * HOUR_SLOTS;
        const at = (slots: readonly number[]) => slots.map((slot) => base + slot);
        pick(segment.hours, at(select.hour.human), human);
        pick(segment.hours, at(select.hour.ai), ai);
        pickEach(segment.hours, select.hour.purposes.map(at), purposes);
      }
      points.push({
        start: Math.max(start, plan.from),
        visitors: countsOf(this.marks, universe, human, ai, purposes, 'visitors'),
        views: countsOf(this.marks, universe, human, ai, purposes, 'views'),
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
    const verifiedOnly = query.verifiedOnly;
    // Each set goes to the category the query counts it as (unverified agents may be bots).
    const byCategory: Members[][] = Array.from({ length: CATEGORY_COUNT }, () => []);
    for (const segment of plan.segments()) {
      for (let slot = 0; slot < CATEGORY_SLOTS; slot++) {
        const set = segment.categories[slot];
        if (!set) continue;
        const category = slot % CATEGORY_COUNT;
        const verified = slot >= CATEGORY_COUNT;
        (byCategory[countedCode(category, verified, verifiedOnly)] as Members[]).push(membersOf(set));
      }
    }
    byCategory.forEach((sets, code) => {
      categories.push({
        category: categoryFromCode(code),
        visitors: distinctCount(this.marks, universe, sets),
        views: viewCount(sets),
      });
    });
    // Keyed by agent * 8 + counted category; the operators' sets by operator.
    const byAgent = new Map<number, Members[]>();
    const byOperator = new Map<string, Members[]>();
    for (const segment of plan.segments()) {
      for (const [key, stored] of segment.agents) {
        const set = membersOf(stored);
        const { agent, category, verified } = agentKeyParts(key);
        const counted = agent * 8 + countedCode(category, verified, verifiedOnly);
        const list = byAgent.get(counted);
        if (list) list.push(set);
        else byAgent.set(counted, [set]);
        if (verifiedOnly && !verified) continue;
        const operator = query.operatorOf.get(db.agents.nameOf(agent));
        if (operator === undefined) continue;
        const sets = byOperator.get(operator);
        if (sets) sets.push(set);
        else byOperator.set(operator, [set]);
      }
    }
    for (const [key, sets] of byAgent) {
      agents.push({
        agent: db.agents.nameOf(Math.floor(key / 8)),
        category: categoryFromCode(key % 8) as Category,
        visitors: distinctCount(this.marks, universe, sets),
        views: viewCount(sets),
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
        views: viewCount(sets),
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
    const select = selection(query.countAiCrawlersAsAi, query.verifiedOnly);
    if (!plan.wholeDays && query.measure === 'visitors' && select.byPreviousVisits) {
      const clipped = this.computeClipped(plan, select);
      if (clipped) return clipped;
    }
    let firstDay: number | null = null;
    if (plan.wholeDays) {
      plan.index.ensureInOrder(this.source.yesterday());
      firstDay = Math.floor(plan.from / DAY_MS);
    }
    const counted = countPages(this.marks, universe, plan.segments(), query.measure, select, firstDay);
    const totals = countTotals(this.marks, universe, plan.segments(), query.measure, select);
    return { index: plan.index, fingerprint: plan.fingerprint, totals, rows: this.named(counted) };
  }

  /** Rows with their paths' names, ordered by total descending, then path. */
  private named(counted: readonly PageCount[]): PageRow[] {
    const db = this.source.database();
    // Fields one by one: an object spread here took as long as counting the pages.
    const rows: PageRow[] = counted.map((c) => ({
      path: db.paths.nameOf(c.path),
      human: c.human,
      ai: c.ai,
      total: c.total,
      aiAssistant: c.aiAssistant,
      aiSearch: c.aiSearch,
      aiTraining: c.aiTraining,
      aiOther: c.aiOther,
    }));
    rows.sort((a, b) => b.total - a.total || compareText(a.path, b.path));
    return rows;
  }

  /**
   * Visitors per page over a range with clipped edge days, default selection: the whole days
   * by the previous-visit scan, the edges from their raw views (see countClipped). Null when
   * the range has no whole day boundary to work from (one day clipped at both ends).
   */
  private computeClipped(plan: RangePlan, select: Selection): CachedPages | null {
    const parts = plan.parts;
    const first = parts[0];
    const last = parts[parts.length - 1];
    if (!first || !last) return null;
    const leftPart = first.whole ? null : first;
    const rightPart = last.whole || last === first ? null : last;
    if (leftPart && leftPart === last) return null;
    const db = this.source.database();
    const universe = db.visitorUniverse();
    plan.index.ensureInOrder(this.source.yesterday());
    const edgeOf = (part: RangePart, keep: QuarterEdge['keep']): Edge => {
      const quarter = quarterCut(part, keep);
      if (quarter !== null) {
        // Once per packed day: every later range cut on a quarter hour there reads them.
        this.source.addQuarters(plan.index.projectNo, part.day);
        const packed = part.day.packed;
        const quarters = packed?.quarters;
        if (packed && quarters)
          return { kind: 'quarters', quarters: { day: part.day, packed, quarters, quarter, keep } };
      }
      return { kind: 'views', views: this.edgeViews(plan.index.projectNo, part) };
    };
    const left = leftPart ? edgeOf(leftPart, 'from') : null;
    const right = rightPart ? { edge: edgeOf(rightPart, 'before'), index: rightPart.day } : null;
    const whole = parts.filter((p) => p.whole).map((p) => p.day);
    const firstWhole = Math.floor(plan.from / DAY_MS) + (leftPart ? 1 : 0);
    const counted = countClipped(
      { whole, firstWhole, left, right },
      this.visitorFlags(universe),
      this.edgeScratch,
    );
    const { human, ai, purposes } = edgeTotalsSets(
      whole,
      [
        { edge: left, members: counted.left },
        { edge: right?.edge ?? null, members: counted.right },
      ],
      select,
    );
    const totals = countsOf(this.marks, universe, human, ai, purposes, 'visitors');
    return {
      index: plan.index,
      fingerprint: plan.fingerprint,
      totals,
      rows: this.named(rowsOfSums(counted.sums)),
    };
  }

  /** An edge day's views inside the range, from its chunks. */
  private edgeViews(projectNo: number, part: RangePart): EdgeViews {
    const db = this.source.database();
    const day = part.day.day;
    // Chunks outside the edge's part of the day are skipped: a clipped first day of a range
    // at +02:00 keeps its last two hours and reads about a twelfth of that day.
    const chunks = db.chunks.dayInSpan(
      projectNo,
      day,
      this.source.tailSeq(),
      part.from - day * DAY_MS,
      part.to - day * DAY_MS,
    );
    const views = chunks.reduce((n, chunk) => n + chunk.count, 0);
    const edge = new EdgeCollector(day, part.from, part.to, views);
    for (const chunk of chunks) {
      for (const v = new ViewCursor(chunk); v.next(); )
        edge.add(v.msOfDay, v.path, v.visitor, v.category, v.purposeCode);
    }
    return edge.edge;
  }

  /** Zeroed flags per visitor number, reused across queries (countClipped leaves them zeroed). */
  private visitorFlags(universe: number): EdgeFlags {
    if (this.flags.left.length < universe) {
      this.flags = { left: new Uint16Array(universe + 65_536), right: new Uint8Array(universe + 65_536) };
    }
    return this.flags;
  }
}

/**
 * The quarter hour a range cuts an edge day on, if it cuts a packed day on one: a first day
 * (`keep` 'from') kept from then to its end, a last day ('before') from its start to then. Else
 * null (its edge is read from its views).
 */
function quarterCut(part: RangePart, keep: QuarterEdge['keep']): number | null {
  if (!part.day.packed) return null;
  const dayStart = part.day.day * DAY_MS;
  const cut = keep === 'from' ? part.from : part.to;
  const other = keep === 'from' ? part.to === dayStart + DAY_MS : part.from === dayStart;
  if (!other || (cut - dayStart) % QUARTER_MS !== 0) return null;
  return (cut - dayStart) / QUARTER_MS;
}

/** Totals of a clipped range: the whole days' sets and the edges' visitors, to union. */
function edgeTotalsSets(
  whole: readonly DayIndex[],
  edges: ReadonlyArray<{ edge: Edge | null; members: Members[] | null }>,
  select: Selection,
): { human: Members[]; ai: Members[]; purposes: Members[][] } {
  const human: Members[] = [];
  const ai: Members[] = [];
  const purposes: Members[][] = [[], [], [], []];
  for (const day of whole) {
    pick(day.categories, select.day.human, human);
    pick(day.categories, select.day.ai, ai);
    pickEach(day.purposes, select.day.purposes, purposes);
  }
  for (const { edge, members } of edges) {
    if (!edge) continue;
    // An edge read from its quarters had its visitors listed while it was counted.
    const sides = edge.kind === 'views' ? membersBySide(edge.views) : members;
    if (!sides) throw new Error('An edge read from its quarters comes with its visitors');
    human.push(sides[SIDE_HUMAN] as Members);
    ai.push(sides[SIDE_AI] as Members);
    for (let p = 0; p < purposes.length; p++)
      (purposes[p] as Members[]).push(sides[SIDE_PURPOSE + p] as Members);
  }
  return { human, ai, purposes };
}

/** An edge's visitors per list side, in one pass each way (repeats kept: unions do not mind). */
function membersBySide(edge: EdgeViews): Members[] {
  const { visitors, codes, length } = edge.views;
  const counts = new Int32Array(LIST_SIDES);
  for (let i = 0; i < length; i++) {
    // A view is on two or three sides: visit its code's bits only.
    for (let code = codes[i] as number; code !== 0; code &= code - 1) {
      const side = 31 - Math.clz32(code & -code);
      counts[side] = (counts[side] as number) + 1;
    }
  }
  const sides: Members[] = [];
  for (let side = 0; side < LIST_SIDES; side++)
    sides.push({ values: new Uint32Array(counts[side] as number), length: 0, views: 0 });
  for (let i = 0; i < length; i++) {
    const visitor = visitors[i] as number;
    for (let code = codes[i] as number; code !== 0; code &= code - 1) {
      const members = sides[31 - Math.clz32(code & -code)] as Members;
      members.values[members.length++] = visitor;
    }
  }
  return sides;
}

/** Code-point order: stable and locale-independent, so paging is deterministic. */
function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

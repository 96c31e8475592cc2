import { agentOperators } from '../../../src/domain/analytics/agent-list.ts';
import { CATEGORIES, type Category, type Purpose } from '../../../src/domain/analytics/categories.ts';
import { acceptsMarkdown, classify } from '../../../src/domain/analytics/classifier.ts';
import { CrawlerRanges } from '../../../src/domain/analytics/crawler-ranges.ts';
import { normalisePath } from '../../../src/domain/analytics/paths.ts';
import {
  type Breakdown,
  type Counts,
  countedCategory,
  type OperatorOf,
  type OperatorRow,
  type PageRow,
  type PurposeSplit,
  type SeriesPoint,
  type TimeRange,
} from '../../../src/domain/analytics/store.ts';
import { parseDateTime } from '../../../src/domain/analytics/timestamps.ts';

/** A view as the tests generate it (always valid). */
export interface TestEvent {
  timestamp: string;
  path: string;
  userAgent: string;
  ip?: string;
  visitorId?: string;
  accept?: string;
  id?: string;
}

interface Row {
  ts: number;
  path: string;
  visitor: string;
  category: Category;
  purpose: Purpose | null;
  agent: string;
  verified: boolean;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The brute-force answer: keep every stored view in a list and count distinct visitor strings
 * with Sets. Same contract as the store: first event per (id, event day) wins, daily salts; an
 * agent is verified when its operator's ranges (given, as to the service) hold its IP.
 */
export class ReferenceAnalytics {
  private readonly rows: Row[] = [];
  private readonly ids = new Set<string>();
  private readonly operatorOf = agentOperators();

  private readonly ranges: CrawlerRanges;

  constructor(ranges: CrawlerRanges = CrawlerRanges.none) {
    this.ranges = ranges;
  }

  add(events: readonly TestEvent[]): { accepted: number; duplicates: number } {
    let accepted = 0;
    let duplicates = 0;
    for (const e of events) {
      const ts = parseDateTime(e.timestamp);
      const page = normalisePath(e.path);
      if (ts === null || page === null)
        throw new Error(`test generated an invalid event ${JSON.stringify(e)}`);
      // An id is unique within the UTC day of its event: a retry re-sends the same event.
      if (e.id !== undefined) {
        const key = `${Math.floor(ts / 86_400_000)}|${e.id}`;
        if (this.ids.has(key)) {
          duplicates++;
          continue;
        }
        this.ids.add(key);
      }
      const { category, purpose, agent } = classify(e.userAgent, {
        markdownPath: page.markdownPath,
        acceptsMarkdown: acceptsMarkdown(e.accept),
        llmsTxt: page.llmsTxt,
      });
      const day = new Date(ts).toISOString().slice(0, 10);
      const visitor = e.visitorId !== undefined ? `id:${e.visitorId}` : `${day}|${e.ip}|${e.userAgent}`;
      const verified =
        category !== 'human' && this.ranges.verifies(agent, this.operatorOf.get(agent), e.ip ?? null);
      this.rows.push({ ts, path: page.path, visitor, category, purpose, agent, verified });
      accepted++;
    }
    return { accepted, duplicates };
  }

  pages(
    range: TimeRange,
    measure: 'visitors' | 'views',
    countAiCrawlersAsAi: boolean,
    verifiedOnly = false,
  ): { totals: Counts; rows: PageRow[] } {
    const inRange = this.counted(this.inRange(range), verifiedOnly);
    const side = (r: Row): 'human' | 'ai' | null => {
      if (r.category === 'human') return 'human';
      if (r.category === 'ai' || (countAiCrawlersAsAi && r.category === 'ai_crawler')) return 'ai';
      return null;
    };
    const count = (rows: Row[]): Counts => {
      const human = rows.filter((r) => side(r) === 'human');
      const ai = rows.filter((r) => side(r) === 'ai');
      const purposes = purposeSplit(rows, measure);
      if (measure === 'views')
        return { human: human.length, ai: ai.length, total: human.length + ai.length, ...purposes };
      return {
        human: new Set(human.map((r) => r.visitor)).size,
        ai: new Set(ai.map((r) => r.visitor)).size,
        total: new Set([...human, ...ai].map((r) => r.visitor)).size,
        ...purposes,
      };
    };
    const paths = [...new Set(inRange.map((r) => r.path))];
    const rows = paths
      .map((path) => ({ path, ...count(inRange.filter((r) => r.path === path)) }))
      .filter((r) => r.total > 0)
      .sort((a, b) => b.total - a.total || byText(a.path, b.path));
    return { totals: count(inRange), rows };
  }

  /**
   * Buckets of one day or hour from the range's start (or the first day with any view, if
   * later: nothing is earlier) to its end (or the end of the last day with views), each
   * clipped to the range.
   */
  timeSeries(
    range: TimeRange,
    interval: 'day' | 'hour',
    countAiCrawlersAsAi: boolean,
    verifiedOnly = false,
  ): SeriesPoint[] {
    if (this.rows.length === 0) return [];
    const firstDay = Math.floor(Math.min(...this.rows.map((r) => r.ts)) / DAY) * DAY;
    const lastDayEnd = Math.floor(Math.max(...this.rows.map((r) => r.ts)) / DAY) * DAY + DAY;
    const from = Math.max(range.from ?? firstDay, firstDay);
    const to = range.to ?? lastDayEnd;
    const step = interval === 'day' ? DAY : HOUR;
    const points: SeriesPoint[] = [];
    for (let start = Math.floor(from / step) * step; start < to; start += step) {
      const bucket = { from: Math.max(start, from), to: Math.min(start + step, to) };
      points.push({
        start: bucket.from,
        visitors: this.pages(bucket, 'visitors', countAiCrawlersAsAi, verifiedOnly).totals,
        views: this.pages(bucket, 'views', countAiCrawlersAsAi, verifiedOnly).totals,
      });
    }
    return points;
  }

  /**
   * Every category, every (agent, category) seen, and every operator (by the agent list's
   * operators unless given), with distinct visitors and views; under `verifiedOnly`, unverified
   * agents are bots and operators count verified views only.
   */
  breakdown(range: TimeRange, operatorOf: OperatorOf = agentOperators(), verifiedOnly = false): Breakdown {
    const rows = this.counted(this.inRange(range), verifiedOnly);
    const tally = (subset: Row[]) => ({
      visitors: new Set(subset.map((r) => r.visitor)).size,
      views: subset.length,
    });
    const categories = CATEGORIES.map((category) => ({
      category,
      ...tally(rows.filter((r) => r.category === category)),
    }));
    const keys = [...new Set(rows.map((r) => `${r.agent}\u0000${r.category}`))];
    const agents = keys
      .map((key) => {
        const [agent = '', category = ''] = key.split('\u0000');
        return {
          agent,
          category: category as Breakdown['agents'][number]['category'],
          ...tally(rows.filter((r) => r.agent === agent && r.category === category)),
        };
      })
      .sort((a, b) => b.visitors - a.visitors || byText(a.agent, b.agent) || byText(a.category, b.category));
    return { categories, agents, operators: this.operators(range, operatorOf, verifiedOnly) };
  }

  /**
   * The purpose split of the totals and of each page with any view (keyed by path): distinct
   * visitors (or views) among AI views (`ai` and `ai_crawler`) per purpose, whatever the
   * crawler setting says.
   */
  purposes(
    range: TimeRange,
    measure: 'visitors' | 'views',
    verifiedOnly = false,
  ): { totals: PurposeSplit; pages: Map<string, PurposeSplit> } {
    const inRange = this.counted(this.inRange(range), verifiedOnly);
    const pages = new Map<string, PurposeSplit>();
    for (const path of new Set(inRange.map((r) => r.path)))
      pages.set(
        path,
        purposeSplit(
          inRange.filter((r) => r.path === path),
          measure,
        ),
      );
    return { totals: purposeSplit(inRange, measure), pages };
  }

  /** Every operator with views in the range, by the agent name → operator mapping given. */
  operators(range: TimeRange, operatorOf: OperatorOf, verifiedOnly = false): OperatorRow[] {
    const byOperator = new Map<string, Row[]>();
    for (const r of this.inRange(range)) {
      if (verifiedOnly && !r.verified) continue;
      const operator = operatorOf.get(r.agent);
      if (operator === undefined) continue;
      byOperator.set(operator, [...(byOperator.get(operator) ?? []), r]);
    }
    return [...byOperator]
      .map(([operator, rows]) => ({
        operator,
        visitors: new Set(rows.map((r) => r.visitor)).size,
        views: rows.length,
      }))
      .sort((a, b) => b.visitors - a.visitors || byText(a.operator, b.operator));
  }

  /** The rows with the category each counts as (see `countedCategory`). */
  private counted(rows: Row[], verifiedOnly: boolean): Row[] {
    return rows.map((r) => ({ ...r, category: countedCategory(r.category, r.verified, verifiedOnly) }));
  }

  private inRange(range: TimeRange): Row[] {
    return this.rows.filter(
      (r) => (range.from === null || r.ts >= range.from) && (range.to === null || r.ts < range.to),
    );
  }
}

/** Distinct visitors (or views) among `ai` and `ai_crawler` rows, per purpose. */
function purposeSplit(rows: Row[], measure: 'visitors' | 'views'): PurposeSplit {
  const ai = rows.filter((r) => r.category === 'ai' || r.category === 'ai_crawler');
  const of = (purpose: Purpose) => {
    const subset = ai.filter((r) => r.purpose === purpose);
    return measure === 'views' ? subset.length : new Set(subset.map((r) => r.visitor)).size;
  };
  return {
    aiAssistant: of('assistant'),
    aiSearch: of('search'),
    aiTraining: of('training'),
    aiOther: of('other'),
  };
}

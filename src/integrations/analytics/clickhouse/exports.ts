import { CATEGORIES, categoryFromCode } from '../../../domain/analytics/categories.ts';
import type {
  Breakdown,
  BreakdownQuery,
  Counts,
  PageQuery,
  PageReport,
  PageRow,
  SeriesPoint,
  SeriesQuery,
  TimeRange,
} from '../../../domain/analytics/store.ts';
import { invalid } from '../../../domain/errors.ts';
import type { ClickHouseConnection } from './connection.ts';
import { literal } from './sql-literal.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The views of a project in a range: the day bounds let the primary key skip the rest. */
function whereRange(projectId: string, range: TimeRange): string {
  const parts = [`project = ${literal(projectId)}`];
  if (range.from !== null) {
    parts.push(`day >= ${literal(Math.floor(range.from / DAY_MS))}`, `ts >= ${literal(range.from)}`);
  }
  if (range.to !== null) {
    parts.push(`day <= ${literal(Math.floor((range.to - 1) / DAY_MS))}`, `ts < ${literal(range.to)}`);
  }
  return parts.join(' AND ');
}

/** The counted categories: human (0) and ai (1), with ai_crawler (2) when the project says so. */
function counted(countAiCrawlersAsAi: boolean): string {
  return countAiCrawlersAsAi ? 'category IN (0, 1, 2)' : 'category IN (0, 1)';
}

/** human, ai and total as distinct visitors (exact) or views, over rows already `counted`. */
function measures(measure: 'visitors' | 'views'): string {
  return measure === 'visitors'
    ? `uniqExactIf(visitor_hi, visitor_lo, category = 0) AS human,
       uniqExactIf(visitor_hi, visitor_lo, category != 0) AS ai,
       uniqExact(visitor_hi, visitor_lo) AS total`
    : `countIf(category = 0) AS human, countIf(category != 0) AS ai, count() AS total`;
}

interface CountsRow {
  human: string | number;
  ai: string | number;
  total: string | number;
}

const toCounts = (r: CountsRow | undefined): Counts => ({
  human: Number(r?.human ?? 0),
  ai: Number(r?.ai ?? 0),
  total: Number(r?.total ?? 0),
});

/** Per-page counts and totals (WITH TOTALS: the distinct counts over every page) in one pass. */
export async function pages(
  connection: ClickHouseConnection,
  projectId: string,
  query: PageQuery,
): Promise<PageReport> {
  const result = await connection.client.query({
    query: `SELECT path, ${measures(query.measure)}
      FROM ${connection.db}.views
      WHERE ${whereRange(projectId, query.range)} AND ${counted(query.countAiCrawlersAsAi)}
      GROUP BY path WITH TOTALS`,
    format: 'JSON',
  });
  const body = await result.json<CountsRow & { path: string }>();
  const rows: PageRow[] = body.data
    .map((r) => ({ path: r.path, ...toCounts(r) }))
    .sort((a, b) => b.total - a.total || byText(a.path, b.path));
  const totals = toCounts(body.totals as CountsRow | undefined);
  return {
    totals,
    rows: rows.slice(query.offset, query.offset + query.limit),
    hasMore: query.offset + query.limit < rows.length,
  };
}

/**
 * Buckets of a day or an hour from the range's start (or the project's first day with views,
 * if later) to its end (or the end of the last day with views), each clipped to the range.
 */
export async function timeSeries(
  connection: ClickHouseConnection,
  projectId: string,
  query: SeriesQuery,
  maxBuckets: number,
): Promise<SeriesPoint[]> {
  const [bounds] = await connection.query<{ n: string; first: number; last: number }>(
    `SELECT count() AS n, min(day) AS first, max(day) AS last FROM ${connection.db}.views WHERE project = ${literal(projectId)}`,
  );
  if (!bounds || Number(bounds.n) === 0) return [];
  const from = Math.max(query.range.from ?? Number.NEGATIVE_INFINITY, Number(bounds.first) * DAY_MS);
  const to = query.range.to ?? (Number(bounds.last) + 1) * DAY_MS;
  if (from >= to) return [];
  const step = query.interval === 'day' ? DAY_MS : HOUR_MS;
  const firstBucket = Math.floor(from / step) * step;
  const buckets = Math.ceil((to - firstBucket) / step);
  if (buckets > maxBuckets) {
    throw invalid(
      `A time series may have at most ${maxBuckets} buckets; narrow the range or use a longer interval`,
    );
  }
  const rows = await connection.query<{
    bucket: string | number;
    vh: string;
    va: string;
    vt: string;
    h: string;
    a: string;
    t: string;
  }>(
    `SELECT intDiv(ts, ${step}) AS bucket,
        uniqExactIf(visitor_hi, visitor_lo, category = 0) AS vh,
        uniqExactIf(visitor_hi, visitor_lo, category != 0) AS va,
        uniqExact(visitor_hi, visitor_lo) AS vt,
        countIf(category = 0) AS h, countIf(category != 0) AS a, count() AS t
      FROM ${connection.db}.views
      WHERE ${whereRange(projectId, { from, to })} AND ${counted(query.countAiCrawlersAsAi)}
      GROUP BY bucket`,
  );
  const byBucket = new Map(rows.map((r) => [Number(r.bucket), r]));
  const points: SeriesPoint[] = [];
  for (let start = firstBucket; start < to; start += step) {
    const r = byBucket.get(start / step);
    points.push({
      start: Math.max(start, from),
      visitors: toCounts(r && { human: r.vh, ai: r.va, total: r.vt }),
      views: toCounts(r && { human: r.h, ai: r.a, total: r.t }),
    });
  }
  return points;
}

/** Every category, and every (agent, category) seen, with distinct visitors and views. */
export async function breakdown(
  connection: ClickHouseConnection,
  projectId: string,
  query: BreakdownQuery,
): Promise<Breakdown> {
  const where = whereRange(projectId, query.range);
  const [byCategory, byAgent] = await Promise.all([
    connection.query<{ category: number; visitors: string; views: string }>(
      `SELECT category, uniqExact(visitor_hi, visitor_lo) AS visitors, count() AS views
        FROM ${connection.db}.views WHERE ${where} GROUP BY category`,
    ),
    connection.query<{ agent: string; category: number; visitors: string; views: string }>(
      `SELECT agent, category, uniqExact(visitor_hi, visitor_lo) AS visitors, count() AS views
        FROM ${connection.db}.views WHERE ${where} GROUP BY agent, category`,
    ),
  ]);
  const found = new Map(byCategory.map((r) => [categoryFromCode(Number(r.category)), r]));
  const categories = CATEGORIES.map((category) => ({
    category,
    visitors: Number(found.get(category)?.visitors ?? 0),
    views: Number(found.get(category)?.views ?? 0),
  }));
  const agents = byAgent
    .map((r) => ({
      agent: r.agent,
      category: categoryFromCode(Number(r.category)),
      visitors: Number(r.visitors),
      views: Number(r.views),
    }))
    .sort((a, b) => b.visitors - a.visitors || byText(a.agent, b.agent) || byText(a.category, b.category));
  // Operators over the agents seen in the range: distinct visitors across each one's agents.
  const named = [...new Set(agents.map((a) => a.agent))].filter((name) => query.operatorOf.has(name));
  const operators =
    named.length === 0
      ? []
      : (
          await connection.query<{ operator: string; visitors: string; views: string }>(
            `SELECT transform(agent, ${literal(named)}, ${literal(named.map((name) => query.operatorOf.get(name) as string))}, '') AS operator,
                uniqExact(visitor_hi, visitor_lo) AS visitors, count() AS views
              FROM ${connection.db}.views WHERE ${where} AND has(${literal(named)}, agent) GROUP BY operator`,
          )
        )
          .map((r) => ({ operator: r.operator, visitors: Number(r.visitors), views: Number(r.views) }))
          .sort((a, b) => b.visitors - a.visitors || byText(a.operator, b.operator));
  return { categories, agents, operators };
}

import { CATEGORIES, categoryFromCode } from '../../../domain/analytics/categories.ts';
import type { Breakdown, BreakdownQuery, SeriesPoint, SeriesQuery } from '../../../domain/analytics/store.ts';
import { invalid } from '../../../domain/errors.ts';
import { exportSides, sideList } from './classes.ts';
import type { ClickHouseConnection } from './connection.ts';
import { classedViews, columnsOf, DAY_MS, rawMeasures, toCounts, whereRange } from './side-sql.ts';
import { literal } from './sql-literal.ts';

const HOUR_MS = 3_600_000;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Buckets of a day or an hour from the range's start (or the project's first day with views,
 * if later) to its end (or the end of the last day with views), each clipped to the range.
 * Each bucket is at most a day of raw views, counted with `uniqExactIf` per side.
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
  const sides = sideList(exportSides(query.countAiCrawlersAsAi, query.verifiedOnly));
  const rows = await connection.query<Record<string, unknown>>(
    `SELECT intDiv(ts, ${step}) AS bucket, ${rawMeasures(sides, 'visitors', 'v')}, ${rawMeasures(sides, 'views', 'w')}
      FROM (${classedViews(connection.db, whereRange(projectId, { from, to }), 'ts, visitor_hi, visitor_lo')})
      WHERE bit != 0 GROUP BY bucket`,
  );
  const byBucket = new Map(rows.map((r) => [Number(r.bucket), r]));
  const points: SeriesPoint[] = [];
  for (let start = firstBucket; start < to; start += step) {
    const r = byBucket.get(start / step);
    points.push({
      start: Math.max(start, from),
      visitors: toCounts(columnsOf(r, sides.length, 'v')),
      views: toCounts(columnsOf(r, sides.length, 'w')),
    });
  }
  return points;
}

/**
 * A view's category as the query counts it (countedCategory): under `verifiedOnly`, unverified
 * ai (1), ai_crawler (2) and search (3) views are bots (4).
 */
function countedCategorySql(verifiedOnly: boolean): string {
  return verifiedOnly ? 'if(category IN (1, 2, 3) AND verified = 0, toUInt8(4), category)' : 'category';
}

/** Every category, and every (agent, category) seen, with distinct visitors and views. */
export async function breakdown(
  connection: ClickHouseConnection,
  projectId: string,
  query: BreakdownQuery,
): Promise<Breakdown> {
  const where = whereRange(projectId, query.range);
  const counted = countedCategorySql(query.verifiedOnly);
  const [byCategory, byAgent] = await Promise.all([
    connection.query<{ counted: number; visitors: string; views: string }>(
      `SELECT ${counted} AS counted, uniqExact(visitor_hi, visitor_lo) AS visitors, count() AS views
        FROM ${connection.db}.views WHERE ${where} GROUP BY counted`,
    ),
    connection.query<{ agent: string; counted: number; visitors: string; views: string }>(
      `SELECT agent, ${counted} AS counted, uniqExact(visitor_hi, visitor_lo) AS visitors, count() AS views
        FROM ${connection.db}.views WHERE ${where} GROUP BY agent, counted`,
    ),
  ]);
  const found = new Map(byCategory.map((r) => [categoryFromCode(Number(r.counted)), r]));
  const categories = CATEGORIES.map((category) => ({
    category,
    visitors: Number(found.get(category)?.visitors ?? 0),
    views: Number(found.get(category)?.views ?? 0),
  }));
  const agents = byAgent
    .map((r) => ({
      agent: r.agent,
      category: categoryFromCode(Number(r.counted)),
      visitors: Number(r.visitors),
      views: Number(r.views),
    }))
    .sort((a, b) => b.visitors - a.visitors || byText(a.agent, b.agent) || byText(a.category, b.category));
  // Operators over the agents seen in the range: distinct visitors across each one's agents.
  const named = [...new Set(agents.map((a) => a.agent))].filter((name) => query.operatorOf.has(name));
  const verified = query.verifiedOnly ? ' AND verified = 1' : '';
  const operators =
    named.length === 0
      ? []
      : (
          await connection.query<{ operator: string; visitors: string; views: string }>(
            `SELECT transform(agent, ${literal(named)}, ${literal(named.map((name) => query.operatorOf.get(name) as string))}, '') AS operator,
                uniqExact(visitor_hi, visitor_lo) AS visitors, count() AS views
              FROM ${connection.db}.views WHERE ${where} AND has(${literal(named)}, agent)${verified} GROUP BY operator`,
          )
        )
          .map((r) => ({ operator: r.operator, visitors: Number(r.visitors), views: Number(r.views) }))
          .sort((a, b) => b.visitors - a.visitors || byText(a.operator, b.operator));
  return { categories, agents, operators };
}

import type { PageQuery, PageReport, PageRow } from '../../../domain/analytics/store.ts';
import { exportSides, NEVER, QUARTER_MS, sideList } from './classes.ts';
import type { ClickHouseConnection } from './connection.ts';
import { classedViews, columnsOf, DAY_MS, inSide, rawMeasures, toCounts, whereRange } from './side-sql.ts';
import { literal } from './sql-literal.ts';

const LAST_DAY = 2147483647;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Figures per page ('' holds the totals), in sideList order. */
type Figures = Map<string, number[]>;

/**
 * Per-page counts and totals. Views are counted over the raw views. Distinct visitors, for a
 * range whose ends are on quarter hours (every local midnight is): the range's whole days from
 * `first_visits` (first visits in the range: a sum over a few rows per page and day), plus its
 * clipped edge days from `from_edges` and `to_edges` (sums over one day's rows each; see
 * visit-deltas.ts). A range inside one day, or with an end off the quarter hours, is counted
 * from its raw views.
 */
export async function pages(
  connection: ClickHouseConnection,
  projectId: string,
  query: PageQuery,
): Promise<PageReport> {
  const sides = sideList(exportSides(query.countAiCrawlersAsAi, query.verifiedOnly));
  const figures =
    query.measure === 'views'
      ? await rawFigures(connection, projectId, query, sides)
      : await visitorFigures(connection, projectId, query, sides);
  const totals = toCounts(figures.get(''));
  const rows: PageRow[] = [];
  for (const [path, values] of figures) {
    if (path === '' || (values[2] ?? 0) <= 0) continue;
    rows.push({ path, ...toCounts(values) });
  }
  rows.sort((a, b) => b.total - a.total || byText(a.path, b.path));
  return {
    totals,
    rows: rows.slice(query.offset, query.offset + query.limit),
    hasMore: query.offset + query.limit < rows.length,
  };
}

/** Views per page and side over the raw views, with the totals under ''. */
async function rawFigures(
  connection: ClickHouseConnection,
  projectId: string,
  query: PageQuery,
  sides: number[],
): Promise<Figures> {
  const result = await connection.client.query({
    query: `SELECT path, ${rawMeasures(sides, query.measure)}
      FROM (${classedViews(connection.db, whereRange(projectId, query.range), 'path, visitor_hi, visitor_lo')})
      WHERE bit != 0 GROUP BY path WITH TOTALS`,
    format: 'JSON',
  });
  const body = await result.json<Record<string, unknown>>();
  const figures: Figures = new Map();
  for (const r of body.data) figures.set(String(r.path), columnsOf(r, sides.length));
  figures.set('', columnsOf(body.totals as Record<string, unknown> | undefined, sides.length));
  return figures;
}

async function visitorFigures(
  connection: ClickHouseConnection,
  projectId: string,
  query: PageQuery,
  sides: number[],
): Promise<Figures> {
  const { from, to } = query.range;
  // Whole days [first, end); the clipped days around them (L, R) are edges.
  const first = from === null ? NEVER + 1 : Math.ceil(from / DAY_MS);
  const end = to === null ? LAST_DAY : Math.floor(to / DAY_MS);
  const clippedFrom = from !== null && from % DAY_MS !== 0 ? Math.floor(from / DAY_MS) : null;
  const clippedTo = to !== null && to % DAY_MS !== 0 ? Math.floor(to / DAY_MS) : null;
  const onQuarters = (from === null || from % QUARTER_MS === 0) && (to === null || to % QUARTER_MS === 0);
  // Inside one day, or edges off the quarter hours the tables keep: count the range's views.
  if ((clippedFrom !== null && clippedFrom === clippedTo) || !onQuarters)
    return rangeVisitors(connection, projectId, query, sides);
  const parts: Array<Promise<Figures>> = [];
  if (first < end) parts.push(wholeDays(connection, projectId, sides, first, end));
  if (clippedFrom !== null) {
    // L's visitors at or after the start not seen again in the whole days (their next day is
    // at or after `end`, or none).
    const startQuarter = ((from as number) - clippedFrom * DAY_MS) / QUARTER_MS;
    parts.push(
      edgeSums(
        connection,
        projectId,
        sides,
        'from_edges',
        clippedFrom,
        `last >= ${literal(startQuarter)} AND next >= ${literal(end)}`,
      ),
    );
  }
  if (clippedTo !== null) {
    // R's visitors before the end whose last view before R is before the range's start.
    const endQuarter = ((to as number) - clippedTo * DAY_MS) / QUARTER_MS;
    const fromQuarter = from === null ? NEVER + 1 : from / QUARTER_MS;
    parts.push(
      edgeSums(
        connection,
        projectId,
        sides,
        'to_edges',
        clippedTo,
        `first < ${literal(endQuarter)} AND prevq < ${literal(fromQuarter)}`,
      ),
    );
  }
  const figures: Figures = new Map();
  for (const part of await Promise.all(parts)) {
    for (const [page, values] of part) {
      const sum = figures.get(page);
      if (sum) for (let i = 0; i < values.length; i++) sum[i] = (sum[i] ?? 0) + (values[i] ?? 0);
      else figures.set(page, values);
    }
  }
  return figures;
}

/** `sumIf(n, …)` per side, over rows whose `sides` mask holds it. */
function sideSums(sides: number[]): string {
  return sides.map((side, i) => `sumIf(n, bitAnd(sides, ${literal(2 ** side)}) != 0) AS c${i}`).join(', ');
}

/** First visits in [first, end) per page and side. */
async function wholeDays(
  connection: ClickHouseConnection,
  projectId: string,
  sides: number[],
  first: number,
  end: number,
): Promise<Figures> {
  const rows = await connection.query<Record<string, unknown>>(
    `SELECT page, ${sideSums(sides)} FROM ${connection.db}.first_visits
      WHERE project = ${literal(projectId)} AND day >= ${literal(first)} AND day < ${literal(end)}
        AND prev < ${literal(first)}
      GROUP BY page`,
  );
  return new Map(rows.map((r) => [String(r.page), columnsOf(r, sides.length)]));
}

/** One clipped edge day's visitors per page and side: a sum over the day's rows of `table`. */
async function edgeSums(
  connection: ClickHouseConnection,
  projectId: string,
  sides: number[],
  table: 'from_edges' | 'to_edges',
  day: number,
  condition: string,
): Promise<Figures> {
  const rows = await connection.query<Record<string, unknown>>(
    `SELECT page, ${sideSums(sides)} FROM ${connection.db}.${table}
      WHERE project = ${literal(projectId)} AND day = ${literal(day)} AND ${condition}
      GROUP BY page`,
  );
  return new Map(rows.map((r) => [String(r.page), columnsOf(r, sides.length)]));
}

/** Distinct (page, visitor) per side over the range's raw views (exact; for short or odd ranges). */
async function rangeVisitors(
  connection: ClickHouseConnection,
  projectId: string,
  query: PageQuery,
  sides: number[],
): Promise<Figures> {
  const columns = sides.map((side, i) => `sum(${inSide('mask', side)}) AS c${i}`).join(', ');
  const rows = await connection.query<Record<string, unknown>>(
    `SELECT page, ${columns} FROM (
      SELECT page, groupBitOr(bit) AS mask FROM (
        ${classedViews(connection.db, whereRange(projectId, query.range), "visitor_hi, visitor_lo, [path, ''] AS pages")}
      ) ARRAY JOIN pages AS page WHERE bit != 0
      GROUP BY page, visitor_hi, visitor_lo
    ) GROUP BY page`,
  );
  return new Map(rows.map((r) => [String(r.page), columnsOf(r, sides.length)]));
}

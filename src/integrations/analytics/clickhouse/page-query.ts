import type { PageQuery, PageReport, PageRow } from '../../../domain/analytics/store.ts';
import { exportSides, NEVER, sideList } from './classes.ts';
import type { ClickHouseConnection } from './connection.ts';
import { classedViews, columnsOf, DAY_MS, inSide, rawMeasures, toCounts, whereRange } from './side-sql.ts';
import { literal } from './sql-literal.ts';

const LAST_DAY = 2147483647;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Figures per page ('' holds the totals), in sideList order. */
type Figures = Map<string, number[]>;

/**
 * Per-page counts and totals. Views are counted over the raw views. Distinct visitors: the
 * range's whole days from `visit_counts` (first visits in the range: a sum over a few rows per
 * page and day), plus the visitors of its clipped edge days (at most two days of raw views) that
 * have no visit of the same side in those whole days (looked up in `visits`). A range inside one
 * day has no whole day: its raw views are all edge.
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
  // Whole days [first, end); the clipped days around them are edges.
  const first = from === null ? NEVER + 1 : Math.ceil(from / DAY_MS);
  const end = to === null ? LAST_DAY : Math.floor(to / DAY_MS);
  const edgeDays = [
    ...(from !== null && from % DAY_MS !== 0 ? [Math.floor(from / DAY_MS)] : []),
    ...(to !== null && to % DAY_MS !== 0 ? [Math.floor(to / DAY_MS)] : []),
  ];
  const [whole, edges] = await Promise.all([
    first < end ? wholeDays(connection, projectId, sides, first, end) : new Map<string, number[]>(),
    edgeDays.length > 0
      ? edgeVisitors(connection, projectId, query, sides, edgeDays, first < end ? [first, end] : null)
      : new Map<string, number[]>(),
  ]);
  for (const [page, values] of edges) {
    const sum = whole.get(page);
    if (sum) for (let i = 0; i < values.length; i++) sum[i] = (sum[i] ?? 0) + (values[i] ?? 0);
    else whole.set(page, values);
  }
  return whole;
}

/** First visits in [first, end) per page and side. */
async function wholeDays(
  connection: ClickHouseConnection,
  projectId: string,
  sides: number[],
  first: number,
  end: number,
): Promise<Figures> {
  const columns = sides.map((side, i) => `sumIf(n, side = ${literal(side)}) AS c${i}`).join(', ');
  const rows = await connection.query<Record<string, unknown>>(
    `SELECT page, ${columns} FROM ${connection.db}.visit_counts
      WHERE project = ${literal(projectId)} AND side IN ${tupleOf(sides)}
        AND day >= ${literal(first)} AND day < ${literal(end)} AND prev < ${literal(first)}
      GROUP BY page`,
  );
  return new Map(rows.map((r) => [String(r.page), columnsOf(r, sides.length)]));
}

/**
 * Visitors of the clipped edge days' part of the range with no visit of the side in the whole
 * days `whole` (null: none), per page and side. An edge visitor of the first day L has one in
 * the whole days iff its next visit of the side after L is before their end; one of the last
 * day R iff its previous visit before R is at or after their start (`visit_days`, read for
 * those two days only).
 *
 * Those two days' `visit_days` rows are read whole by the primary key's day range and grouped
 * with the edge views by (page, visitor) in one aggregation: a join of the edge pairs with
 * them (18.16's hash join on a String and two UInt64 keys) took most of the query's time.
 */
async function edgeVisitors(
  connection: ClickHouseConnection,
  projectId: string,
  query: PageQuery,
  sides: number[],
  edgeDays: number[],
  whole: [number, number] | null,
): Promise<Figures> {
  const { db } = connection;
  const days = tupleOf(edgeDays);
  const { from, to } = query.range;
  // The clipped first and last days (NEVER, matching no day, when that end is not clipped).
  const first = literal(from !== null && from % DAY_MS !== 0 ? Math.floor(from / DAY_MS) : NEVER);
  const last = literal(to !== null && to % DAY_MS !== 0 ? Math.floor(to / DAY_MS) : NEVER);
  const edge = `SELECT visitor_hi, visitor_lo, page, day, bit FROM (
      ${classedViews(db, `${whereRange(projectId, query.range)} AND day IN ${days}`, "visitor_hi, visitor_lo, day, [path, ''] AS pages")}
    ) ARRAY JOIN pages AS page WHERE bit != 0`;
  const pairs = `SELECT page, visitor_hi, visitor_lo, groupBitOrIf(bit, day = ${first}) AS onFirst,
      groupBitOrIf(bit, day = ${last}) AS onLast
    FROM (${edge}) GROUP BY page, visitor_hi, visitor_lo`;
  if (whole === null) {
    const columns = sides
      .map((side, i) => `sum(${inSide('bitOr(onFirst, onLast)', side)}) AS c${i}`)
      .join(', ');
    const rows = await connection.query<Record<string, unknown>>(
      `SELECT page, ${columns} FROM (${pairs}) GROUP BY page`,
    );
    return new Map(rows.map((r) => [String(r.page), columnsOf(r, sides.length)]));
  }
  // One aggregation over the edge views and the edge days' `visit_days` rows (read by the
  // primary key's day range), instead of a join of the two: a view row has no arrays, a
  // `visit_days` row no class bit.
  const linked = `SELECT page, visitor_hi, visitor_lo, groupBitOrIf(bit, day = ${first}) AS onFirst,
      groupBitOrIf(bit, day = ${last}) AS onLast, minForEachIf(nexts, day = ${first}) AS nextAfterFirst,
      maxForEachIf(prevs, day = ${last}) AS prevBeforeLast
    FROM (
      SELECT visitor_hi, visitor_lo, page, day, bit, emptyArrayInt32() AS prevs, emptyArrayInt32() AS nexts
        FROM (${edge})
      UNION ALL
      SELECT visitor_hi, visitor_lo, page, day, toUInt32(0) AS bit, prevs, nexts FROM ${db}.visit_days
        WHERE project = ${literal(projectId)} AND day IN ${days}
    ) GROUP BY page, visitor_hi, visitor_lo HAVING bitOr(onFirst, onLast) != 0`;
  const [start, end] = whole;
  // Arrays are read only for a side the pair has on that edge day, whose row therefore exists.
  // Appends leave out trailing sides at their defaults: a missing next is LATEST (not before
  // the end), a missing previous NEVER (not at or after the start).
  const inWhole = (side: number) =>
    `((${inSide('onFirst', side)} AND length(nextAfterFirst) > ${side} AND nextAfterFirst[${side + 1}] < ${literal(end)})
      OR (${inSide('onLast', side)} AND length(prevBeforeLast) > ${side} AND prevBeforeLast[${side + 1}] >= ${literal(start)}))`;
  const columns = sides
    .map((side, i) => `sum(${inSide('bitOr(onFirst, onLast)', side)} AND NOT ${inWhole(side)}) AS c${i}`)
    .join(', ');
  const rows = await connection.query<Record<string, unknown>>(
    `SELECT page, ${columns} FROM (${linked}) GROUP BY page`,
  );
  return new Map(rows.map((r) => [String(r.page), columnsOf(r, sides.length)]));
}

function tupleOf(values: number[]): string {
  return `(${values.map((v) => literal(v)).join(', ')})`;
}

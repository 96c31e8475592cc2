import type { PageQuery, PageReport, PageRow, TimeRange } from '../../../domain/analytics/store.ts';
import { COUNT_KIND } from './appends-rows.ts';
import { exportSides, NEVER, QUARTER_MS, sideList } from './classes.ts';
import type { ClickHouseConnection } from './connection.ts';
import { classedViews, columnsOf, DAY_MS, inSide, rawMeasures, toCounts, whereRange } from './side-sql.ts';
import { literal } from './sql-literal.ts';
import { unavailableIfTransient } from './unavailable.ts';
import { FIRST_VISITS, FROM_EDGES, TO_EDGES } from './visit-deltas.ts';

const LAST_DAY = 2147483647;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Figures per page ('' holds the totals), in sideList order. */
type Figures = Map<string, number[]>;

/**
 * Per-page counts and totals. Views are counted over the raw views. Distinct visitors, for a
 * range whose ends are on quarter hours (every local midnight is): the range's whole days from
 * `day_counts` of kind first visits (a sum over a few rows per page and day), plus its clipped
 * edge days from its start and end edges (sums over one day's rows each; see
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
      : await visitorFigures(connection, projectId, query.range, sides);
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
  let body: { data: Record<string, unknown>[]; totals?: unknown };
  try {
    const result = await connection.client.query({
      query: `SELECT path, ${rawMeasures(sides, query.measure)}
        FROM (${classedViews(connection.db, whereRange(projectId, query.range), 'path, visitor_hi, visitor_lo')})
        WHERE bit != 0 GROUP BY path WITH TOTALS`,
      format: 'JSON',
    });
    body = await result.json<Record<string, unknown>>();
  } catch (error) {
    throw unavailableIfTransient(error);
  }
  const figures: Figures = new Map();
  for (const r of body.data) figures.set(String(r.path), columnsOf(r, sides.length));
  figures.set('', columnsOf(body.totals as Record<string, unknown> | undefined, sides.length));
  return figures;
}

async function visitorFigures(
  connection: ClickHouseConnection,
  projectId: string,
  range: TimeRange,
  sides: number[],
): Promise<Figures> {
  const { from, to } = range;
  // Whole days [first, end); the clipped days around them (L, R) are edges.
  const first = from === null ? NEVER + 1 : Math.ceil(from / DAY_MS);
  const end = to === null ? LAST_DAY : Math.floor(to / DAY_MS);
  const clippedFrom = from !== null && from % DAY_MS !== 0 ? Math.floor(from / DAY_MS) : null;
  const clippedTo = to !== null && to % DAY_MS !== 0 ? Math.floor(to / DAY_MS) : null;
  // Inside one day: count the range's views.
  if (clippedFrom !== null && clippedFrom === clippedTo)
    return rangeVisitors(connection, projectId, range, sides);
  const onQuarters = (from === null || from % QUARTER_MS === 0) && (to === null || to % QUARTER_MS === 0);
  if (!onQuarters) return offQuarters(connection, projectId, range, sides);
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
        FROM_EDGES,
        clippedFrom,
        `a >= ${literal(startQuarter)} AND b >= ${literal(end)}`,
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
        TO_EDGES,
        clippedTo,
        `a < ${literal(endQuarter)} AND b < ${literal(fromQuarter)}`,
      ),
    );
  }
  return added(await Promise.all(parts));
}

/** Figures summed page by page. */
function added(parts: Figures[]): Figures {
  const figures: Figures = new Map();
  for (const part of parts) {
    for (const [page, values] of part) {
      const sum = figures.get(page);
      if (sum) for (let i = 0; i < values.length; i++) sum[i] = (sum[i] ?? 0) + (values[i] ?? 0);
      else figures.set(page, values);
    }
  }
  return figures;
}

/**
 * A range with an end off the quarter hours: its quarter-hour part M = [from rounded up, to
 * rounded down) as above, plus the visitors of the slivers around it (under 15 minutes each)
 * with no view of the side in M. A sliver visitor's `pair_days` rows on M's days tell that: a
 * whole day of M, or its clipped first day with a last quarter at or after M's start, or its
 * clipped last day with a first quarter before M's end.
 */
async function offQuarters(
  connection: ClickHouseConnection,
  projectId: string,
  range: TimeRange,
  sides: number[],
): Promise<Figures> {
  const { from, to } = range;
  const start = from === null ? null : Math.ceil(from / QUARTER_MS) * QUARTER_MS;
  const end = to === null ? null : Math.floor(to / QUARTER_MS) * QUARTER_MS;
  const firstDay = start === null ? null : Math.floor(start / DAY_MS);
  const lastDay = end === null ? null : Math.floor((end - 1) / DAY_MS);
  // M empty, or inside one day clipped at both ends: a day at most, counted from its views.
  if (
    (start !== null && end !== null && start >= end) ||
    (firstDay !== null &&
      firstDay === lastDay &&
      start !== firstDay * DAY_MS &&
      end !== (firstDay + 1) * DAY_MS)
  )
    return rangeVisitors(connection, projectId, range, sides);
  const slivers: string[] = [];
  if (from !== null && start !== from)
    slivers.push(`(ts >= ${literal(from)} AND ts < ${literal(start as number)})`);
  if (to !== null && end !== to) slivers.push(`(ts >= ${literal(end as number)} AND ts < ${literal(to)})`);
  const { db } = connection;
  const project = `project = ${literal(projectId)}`;
  const sliverViews = classedViews(
    db,
    `${project} AND (${slivers.join(' OR ')})`,
    "visitor_hi, visitor_lo, [path, ''] AS pages",
  );
  const inM: string[] = [];
  if (firstDay !== null) {
    inM.push(`day >= ${literal(firstDay)}`);
    if ((start as number) % DAY_MS !== 0)
      inM.push(
        `(day > ${literal(firstDay)} OR last >= ${literal(((start as number) - firstDay * DAY_MS) / QUARTER_MS)})`,
      );
  }
  if (lastDay !== null) {
    inM.push(`day <= ${literal(lastDay)}`);
    if ((end as number) % DAY_MS !== 0)
      inM.push(
        `(day < ${literal(lastDay)} OR first < ${literal(((end as number) - lastDay * DAY_MS) / QUARTER_MS)})`,
      );
  }
  const seen = inM.length > 0 ? inM.join(' AND ') : '1';
  const columns = sides
    .map((side, i) => `sum(${inSide('sliver', side)} AND NOT ${inSide('inM', side)}) AS c${i}`)
    .join(', ');
  const [middle, rows] = await Promise.all([
    visitorFigures(connection, projectId, { from: start, to: end }, sides),
    connection.query<Record<string, unknown>>(
      `SELECT page, ${columns} FROM (
        SELECT page, visitor_hi, visitor_lo, groupBitOr(bit) AS sliver, groupBitOr(seenBit) AS inM FROM (
          SELECT page, visitor_hi, visitor_lo, bit, toUInt32(0) AS seenBit
            FROM (${sliverViews}) ARRAY JOIN pages AS page WHERE bit != 0
          UNION ALL
          SELECT page, visitor_hi, visitor_lo, toUInt32(0) AS bit,
              if(${seen}, bitShiftLeft(toUInt32(1), cls), toUInt32(0)) AS seenBit
            FROM ${db}.pair_days
            WHERE ${project} AND (visitor_hi, visitor_lo, page) IN (
              SELECT visitor_hi, visitor_lo, page FROM (${sliverViews}) ARRAY JOIN pages AS page WHERE bit != 0
            )
        ) GROUP BY page, visitor_hi, visitor_lo HAVING sliver != 0
      ) GROUP BY page`,
    ),
  ]);
  return added([middle, new Map(rows.map((r) => [String(r.page), columnsOf(r, sides.length)]))]);
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
    `SELECT page, ${sideSums(sides)} FROM ${connection.db}.day_counts
      WHERE project = ${literal(projectId)} AND kind = ${COUNT_KIND[FIRST_VISITS]}
        AND day >= ${literal(first)} AND day < ${literal(end)} AND a < ${literal(first)}
      GROUP BY page`,
  );
  return new Map(rows.map((r) => [String(r.page), columnsOf(r, sides.length)]));
}

/** One clipped edge day's visitors per page and side: a sum over the day's `day_counts` rows of `kind`. */
async function edgeSums(
  connection: ClickHouseConnection,
  projectId: string,
  sides: number[],
  kind: typeof FROM_EDGES | typeof TO_EDGES,
  day: number,
  condition: string,
): Promise<Figures> {
  const rows = await connection.query<Record<string, unknown>>(
    `SELECT page, ${sideSums(sides)} FROM ${connection.db}.day_counts
      WHERE project = ${literal(projectId)} AND kind = ${COUNT_KIND[kind]} AND day = ${literal(day)} AND ${condition}
      GROUP BY page`,
  );
  return new Map(rows.map((r) => [String(r.page), columnsOf(r, sides.length)]));
}

/** Distinct (page, visitor) per side over the range's raw views (exact; for short or odd ranges). */
async function rangeVisitors(
  connection: ClickHouseConnection,
  projectId: string,
  range: TimeRange,
  sides: number[],
): Promise<Figures> {
  const columns = sides.map((side, i) => `sum(${inSide('mask', side)}) AS c${i}`).join(', ');
  const rows = await connection.query<Record<string, unknown>>(
    `SELECT page, ${columns} FROM (
      SELECT page, groupBitOr(bit) AS mask FROM (
        ${classedViews(connection.db, whereRange(projectId, range), "visitor_hi, visitor_lo, [path, ''] AS pages")}
      ) ARRAY JOIN pages AS page WHERE bit != 0
      GROUP BY page, visitor_hi, visitor_lo
    ) GROUP BY page`,
  );
  return new Map(rows.map((r) => [String(r.page), columnsOf(r, sides.length)]));
}

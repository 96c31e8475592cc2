import { CLASS_BIT_SQL, LATEST, NEVER, SIDE_MASKS } from './classes.ts';
import type { ClickHouseConnection } from './connection.ts';
import { literal } from './sql-literal.ts';

/**
 * Builds the first-visit tables (`visits`, `visit_counts`, `visit_days`; see visit-deltas.ts) of a
 * project, or of every project (null), from its stored views, set-based inside ClickHouse: after
 * the step that created them, after a reclassification changed the views' classes, and after a
 * bulk load (bulk-load.ts) stored views without them. The project's old rows are deleted first,
 * so running it again gives the same tables. Appends to the project must wait meanwhile (the
 * store awaits its own; see docs/analytics-engines.md).
 *
 * Memory stays bounded whatever the project's size, in three stages:
 * 1. `visits`, one range of visitors at a time ((page, visitor) pairs are independent), each
 *    holding about `viewsPerChunk` views: ranges of `visitor_hi` (the key's first 8 bytes, its
 *    salt period then a hash) cut at its quantiles among the project's views, so that the
 *    primary key of `visits` (project, visitor_hi, …) reads only the range in stage 2.
 * 2. `visit_days`, from `visits` in ranges 8 times smaller (its primary key starts with the
 *    visitor, so a range reads only its rows): per (page, visitor, day) one row holding every
 *    side's previous and next visit day, as one append of all its views would write. Computing
 *    them takes about 2 KB per view at a time, hence the smaller ranges.
 * 3. `visit_counts`, summed from `visit_days` a few days at a time (its key holds the day, so no
 *    two statements write the same row).
 */
export interface RebuildOptions {
  /** About how many views one `visits` statement groups (default 1,000,000). */
  viewsPerChunk?: number;
  /** ClickHouse settings every statement carries, e.g. `{ max_memory_usage: '2000000000' }`. */
  settings?: Record<string, string>;
  /** Called after each statement, for progress. */
  onStep?: (step: { done: number; total: number }) => void;
}

const DEFAULT_VIEWS_PER_CHUNK = 1_000_000;
/** How many times more views a `visits` statement may group than a `visit_days` one. */
const DAYS_SPLIT = 8;
/** At most this many `visits` statements (the quantiles' sample, 8,192, limits finer cuts). */
const MAX_CHUNKS = 1024;

export async function rebuildVisits(
  connection: ClickHouseConnection,
  projectId: string | null,
  options: RebuildOptions = {},
): Promise<void> {
  const projects =
    projectId !== null
      ? [projectId]
      : (
          await connection.query<{ project: string }>(`SELECT DISTINCT project FROM ${connection.db}.views`)
        ).map((r) => r.project);
  if (projectId === null) {
    // Every project: one mutation per table rather than one per project.
    for (const table of ['visits', 'visit_counts', 'visit_days']) await deleteRows(connection, table, '1');
  }
  for (const project of projects) await rebuildProject(connection, project, projectId !== null, options);
}

async function rebuildProject(
  connection: ClickHouseConnection,
  projectId: string,
  deleteFirst: boolean,
  options: RebuildOptions,
): Promise<void> {
  const { db } = connection;
  const project = `project = ${literal(projectId)}`;
  if (deleteFirst)
    for (const table of ['visits', 'visit_counts', 'visit_days'])
      await deleteRows(connection, table, project);
  const perChunk = Math.max(1, options.viewsPerChunk ?? DEFAULT_VIEWS_PER_CHUNK);
  const perDay = (
    await connection.query<{ day: number; n: string }>(
      `SELECT day, count() AS n FROM ${db}.views WHERE ${project} GROUP BY day ORDER BY day`,
    )
  ).map((r) => ({ day: Number(r.day), n: Number(r.n) }));
  const views = perDay.reduce((sum, d) => sum + d.n, 0);
  if (views === 0) return;
  const chunks = Math.min(MAX_CHUNKS, Math.ceil(views / perChunk));
  const dayChunks = Math.min(MAX_CHUNKS * DAYS_SPLIT, Math.ceil((views * DAYS_SPLIT) / perChunk));
  const statements = [
    ...visitorRanges(await cutPoints(connection, projectId, chunks)).map((range) =>
      visitsSql(db, projectId, range),
    ),
    ...visitorRanges(await cutPoints(connection, projectId, dayChunks)).map((range) =>
      daysSql(db, projectId, range),
    ),
    ...groupDays(perDay, perChunk).map(([first, last]) => countsSql(db, projectId, first, last)),
  ];
  for (const [i, statement] of statements.entries()) {
    await connection.longCommand(statement, options.settings);
    options.onStep?.({ done: i + 1, total: statements.length });
  }
}

/** Deletes the rows matching `where`, unless there are none (a mutation rewrites parts). */
async function deleteRows(connection: ClickHouseConnection, table: string, where: string): Promise<void> {
  const [found] = await connection.query<{ n: string }>(
    `SELECT count() AS n FROM ${connection.db}.${table} WHERE ${where}`,
  );
  if (Number(found?.n ?? 0) === 0) return;
  await connection.command(`ALTER TABLE ${connection.db}.${table} DELETE WHERE ${where}`);
  await connection.awaitMutations(table);
}

/**
 * `count - 1` values of `visitor_hi` that cut the project's views into about equal parts (its
 * quantiles, from ClickHouse's 8,192-value sample; duplicates dropped), ascending.
 */
async function cutPoints(
  connection: ClickHouseConnection,
  projectId: string,
  count: number,
): Promise<bigint[]> {
  if (count <= 1) return [];
  const levels = Array.from({ length: count - 1 }, (_, i) => (i + 1) / count);
  const [row] = await connection.query<{ q: Array<string | number> }>(
    `SELECT arrayMap(x -> toUInt64(x), quantiles(${levels.join(', ')})(visitor_hi)) AS q
      FROM ${connection.db}.views WHERE project = ${literal(projectId)}`,
  );
  const cuts = [...new Set((row?.q ?? []).map((v) => BigInt(v)))];
  return cuts.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Conditions on `visitor_hi` for the ranges between ascending cut points, covering every value
 * once; ranges, not a function of the column, so the primary key of `visits` reads only the range.
 */
export function visitorRanges(cuts: readonly bigint[]): string[] {
  if (cuts.length === 0) return ['1'];
  const ranges: string[] = [];
  for (let i = 0; i <= cuts.length; i++) {
    const parts: string[] = [];
    if (i > 0) parts.push(`visitor_hi >= ${literal(cuts[i - 1] as bigint)}`);
    if (i < cuts.length) parts.push(`visitor_hi < ${literal(cuts[i] as bigint)}`);
    ranges.push(`(${parts.join(' AND ')})`);
  }
  return ranges;
}

/** Consecutive days grouped into [first, last] ranges of about `perChunk` views. */
function groupDays(perDay: Array<{ day: number; n: number }>, perChunk: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let start: number | null = null;
  let sum = 0;
  for (const [i, { day, n }] of perDay.entries()) {
    start ??= day;
    sum += n;
    const next = perDay[i + 1];
    if (next === undefined || sum + next.n > perChunk) {
      ranges.push([start, day]);
      start = null;
      sum = 0;
    }
  }
  return ranges;
}

/** `visits` for one visitor range: per (page, visitor, day) the classes seen; page '' for the totals. */
function visitsSql(db: string, projectId: string, range: string): string {
  return `INSERT INTO ${db}.visits (project, visitor_hi, visitor_lo, page, day, mask)
    SELECT ${literal(projectId)}, visitor_hi, visitor_lo, page, day, groupBitOr(bit) FROM (
      SELECT visitor_hi, visitor_lo, day, ${CLASS_BIT_SQL} AS bit, [path, ''] AS pages
        FROM ${db}.views WHERE project = ${literal(projectId)} AND ${range} AND bit != 0
    ) ARRAY JOIN pages AS page
    GROUP BY visitor_hi, visitor_lo, page, day`;
}

/**
 * `visit_days` for one visitor range: each (page, visitor)'s sorted (day, mask) list from
 * `visits`; per side s, `f` marks the days of the side, `o` lists them and `c` numbers them (a
 * running count), so a day of the side has its previous day at o[c-1] and its next at o[c+1].
 * One row per day carries every side's (NEVER / LATEST where the day lacks it). The lambdas get
 * every value as an argument (`replicate`): 18.16 drops a subquery's column that only a lambda
 * uses ("Unknown identifier").
 */
function daysSql(db: string, projectId: string, range: string): string {
  const perSide = SIDE_MASKS.map(
    (mask, s) => `arrayMap(v -> bitAnd(v.2, ${literal(mask)}) != 0, visits) AS f${s},
      arrayFilter((d, f) -> f, days, f${s}) AS o${s},
      arrayCumSum(f${s}) AS c${s},
      arrayMap((f, c, o) -> if(f AND c > 1, o[c - 1], ${literal(NEVER)}), f${s}, c${s}, replicate(o${s}, f${s})) AS p${s},
      arrayMap((f, c, o) -> if(f AND c < length(o), o[c + 1], ${literal(LATEST)}), f${s}, c${s}, replicate(o${s}, f${s})) AS n${s}`,
  );
  const args = (prefix: string) => SIDE_MASKS.map((_, s) => `${prefix}${s}`);
  const zip = (prefix: string) =>
    `arrayMap((${args('a').join(', ')}) -> [${args('a').join(', ')}], ${args(prefix).join(', ')})`;
  return `INSERT INTO ${db}.visit_days (project, day, page, visitor_hi, visitor_lo, mask, prevs, nexts)
    SELECT ${literal(projectId)}, day, page, visitor_hi, visitor_lo, mask, prevs, nexts FROM (
      SELECT page, visitor_hi, visitor_lo,
          arrayMap(v -> v.1, visits) AS days, arrayMap(v -> v.2, visits) AS masks,
          ${perSide.join(',\n          ')},
          ${zip('p')} AS prevLists, ${zip('n')} AS nextLists
      FROM (
        SELECT page, visitor_hi, visitor_lo, arraySort(groupArray((day, mask))) AS visits FROM ${db}.visits
          WHERE project = ${literal(projectId)} AND ${range}
          GROUP BY page, visitor_hi, visitor_lo
      )
    ) ARRAY JOIN days AS day, masks AS mask, prevLists AS prevs, nextLists AS nexts`;
}

/**
 * `visit_counts` for the days [first, last], from their `visit_days` rows (each (page, visitor,
 * day) has one, written by `daysSql`): per side the day has, one first visit after `prev`.
 */
function countsSql(db: string, projectId: string, first: number, last: number): string {
  return `INSERT INTO ${db}.visit_counts (project, side, day, page, prev, n)
    SELECT ${literal(projectId)}, side, day, page, prevs[side + 1] AS prev, count() FROM ${db}.visit_days
      ARRAY JOIN range(${SIDE_MASKS.length}) AS side, ${literal(SIDE_MASKS)} AS sideMask
      WHERE project = ${literal(projectId)} AND day >= ${literal(first)} AND day <= ${literal(last)}
        AND bitAnd(mask, sideMask) != 0
      GROUP BY side, day, page, prev`;
}

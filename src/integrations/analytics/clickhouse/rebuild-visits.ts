import { APPENDS_COLUMNS, writeCountDelta } from './appends-rows.ts';
import { CLASS_INDEX_SQL, QUARTER_MS } from './classes.ts';
import type { ClickHouseConnection } from './connection.ts';
import { pairDaysSql, readPairStates } from './pair-states.ts';
import { RowBinaryReader, RowBinaryWriter } from './row-binary.ts';
import { literal } from './sql-literal.ts';
import { visitDeltas } from './visit-deltas.ts';

/**
 * Builds the first-visit tables (`pair_days`, `day_counts`; see
 * visit-deltas.ts) of a project, or of every project (null), from its stored views: after the
 * step that created them, after a reclassification changed the views' classes, and after a bulk
 * load (bulk-load.ts) stored views without them. The project's old rows are deleted first, so
 * running it again gives the same tables. Appends to the project must wait meanwhile (the store
 * awaits its own; see docs/analytics-engines.md).
 *
 * Memory stays bounded whatever the project's size, in two stages:
 * 1. `pair_days`, set-based in ClickHouse, one range of visitors at a time ((page, visitor) pairs
 *    are independent), each holding about `viewsPerChunk` views: ranges of `visitor_hi` (the
 *    key's first 8 bytes, its salt period then a hash) cut at its quantiles among the project's
 *    views, so that the primary key of `pair_days` (project, visitor_hi, …) reads only the range
 *    in stage 2.
 * 2. `day_counts`, in this process from `pair_days` in ranges 8 times smaller: each
 *    pair's days go through the same `visitDeltas` as an append of all its views at once (one
 *    code for both), and the range's summed rows are inserted in RowBinary.
 */
export interface RebuildOptions {
  /** About how many views one `pair_days` statement groups (default 1,000,000). */
  viewsPerChunk?: number;
  /** ClickHouse settings every statement carries, e.g. `{ max_memory_usage: '2000000000' }`. */
  settings?: Record<string, string>;
  /** Called after each statement, for progress. */
  onStep?: (step: { done: number; total: number }) => void;
}

const DEFAULT_VIEWS_PER_CHUNK = 1_000_000;
const DAY_MS = 86_400_000;
/** How many times more views a `pair_days` statement may group than a stage-2 range. */
const DAYS_SPLIT = 8;
/** At most this many `pair_days` statements (the quantiles' sample, 8,192, limits finer cuts). */
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
    for (const table of TABLES) await deleteRows(connection, table, '1');
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
  if (deleteFirst) for (const table of TABLES) await deleteRows(connection, table, project);
  const perChunk = Math.max(1, options.viewsPerChunk ?? DEFAULT_VIEWS_PER_CHUNK);
  const [counted] = await connection.query<{ n: string }>(
    `SELECT count() AS n FROM ${db}.views WHERE ${project}`,
  );
  const views = Number(counted?.n ?? 0);
  if (views === 0) return;
  const chunks = Math.min(MAX_CHUNKS, Math.ceil(views / perChunk));
  const countChunks = Math.min(MAX_CHUNKS * DAYS_SPLIT, Math.ceil((views * DAYS_SPLIT) / perChunk));
  const pairRanges = visitorRanges(await cutPoints(connection, projectId, chunks));
  const countRanges = visitorRanges(await cutPoints(connection, projectId, countChunks));
  const total = pairRanges.length + countRanges.length;
  let done = 0;
  for (const range of pairRanges) {
    await connection.longCommand(buildPairDaysSql(db, projectId, range), options.settings);
    options.onStep?.({ done: ++done, total });
  }
  // Two ranges at a time: one computed here while ClickHouse reads or inserts the other.
  let next = 0;
  const worker = async () => {
    while (next < countRanges.length) {
      const range = countRanges[next++] as string;
      await countRange(connection, projectId, range);
      options.onStep?.({ done: ++done, total });
    }
  };
  await Promise.all([worker(), worker()]);
}

/** The tables a rebuild writes (and first empties). */
const TABLES = ['pair_days', 'day_counts'];

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
 * once; ranges, not a function of the column, so the primary key of `pair_days` reads only the range.
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

/** `pair_days` for one visitor range: per (page, visitor, day, class) the first and last quarter hour. */
function buildPairDaysSql(db: string, projectId: string, range: string): string {
  return `INSERT INTO ${db}.pair_days (project, visitor_hi, visitor_lo, page, day, cls, first, last)
    SELECT ${literal(projectId)}, visitor_hi, visitor_lo, page, day, cls, min(quarter), max(quarter) FROM (
      SELECT visitor_hi, visitor_lo, day, ${CLASS_INDEX_SQL} AS cls,
          toUInt8(intDiv(ts - day * ${literal(DAY_MS)}, ${literal(QUARTER_MS)})) AS quarter, [path, ''] AS pages
        FROM ${db}.views WHERE project = ${literal(projectId)} AND ${range} AND cls != 255
    ) ARRAY JOIN pages AS page
    GROUP BY visitor_hi, visitor_lo, page, day, cls`;
}

/**
 * The count tables' rows of one visitor range, from its `pair_days` rows: every pair's whole
 * history through `visitDeltas` (as if appended at once), summed, inserted in one request.
 */
async function countRange(connection: ClickHouseConnection, projectId: string, range: string): Promise<void> {
  const pairs = readPairStates(
    new RowBinaryReader(
      await connection.queryBinary(
        pairDaysSql(connection.db, `project = ${literal(projectId)} AND ${range}`),
        null,
      ),
    ),
  );
  if (pairs.size === 0) return;
  const { counts } = visitDeltas(new Map(), pairs);
  const out = new RowBinaryWriter();
  for (const c of counts) writeCountDelta(out, projectId, c);
  if (counts.length > 0)
    await connection.insertBinary(`${connection.db}.appends (${APPENDS_COLUMNS})`, out.bytes());
}

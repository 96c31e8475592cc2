import type { Locks } from '../../../storage/locks.ts';
import type { ClickHouseConnection } from './connection.ts';
import { rebuildVisits } from './rebuild-visits.ts';
import { literal } from './sql-literal.ts';

/**
 * The store's schema, as numbered steps recorded in `schema_migrations`. Only SQL that current
 * ClickHouse releases accept too: new-style `ENGINE = MergeTree() PARTITION BY … ORDER BY …`,
 * a materialized view `TO` a table, Nullable; no LowCardinality (not in 18.16), no query
 * parameters. Nodes starting at once take turns (a lock in the main database); each step is
 * idempotent besides (IF NOT EXISTS, a column added unless present, rebuilds that delete first),
 * so a node that dies mid-step leaves it for the next to finish.
 */
interface Step {
  version: number;
  name: string;
  statements: (db: string) => string[];
  /** Runs before the statements (idempotent too). */
  before?: (connection: ClickHouseConnection) => Promise<void>;
  /** Runs after the statements (deletes what it writes first: running it again is harmless). */
  after?: (connection: ClickHouseConnection) => Promise<void>;
}

const MIGRATIONS: readonly Step[] = [
  {
    version: 1,
    name: 'views and event keys',
    statements: (db) => [
      // One row per stored view. `day` is days since the epoch (UTC); the visitor key's 16
      // bytes are two big-endian UInt64; `event_key` is the first 8 bytes of the event's key
      // (0: the caller gave no id).
      `CREATE TABLE IF NOT EXISTS ${db}.views (
        project String,
        day Int32,
        ts Int64,
        event_key UInt64,
        path String,
        visitor_hi UInt64,
        visitor_lo UInt64,
        category UInt8,
        purpose UInt8,
        agent String,
        classifier_version UInt32,
        user_agent String,
        flags UInt8,
        status Nullable(UInt16),
        referrer Nullable(String)
      ) ENGINE = MergeTree() PARTITION BY intDiv(day, 32) ORDER BY (project, day, path)`,
      // Idempotency keys, filled by every insert into views, sorted for the check before one.
      `CREATE TABLE IF NOT EXISTS ${db}.event_keys (project String, day Int32, event_key UInt64)
        ENGINE = ReplacingMergeTree() PARTITION BY intDiv(day, 32) ORDER BY (project, day, event_key)`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.event_keys_mv TO ${db}.event_keys
        AS SELECT project, day, event_key FROM ${db}.views WHERE event_key != 0`,
    ],
  },
  {
    version: 2,
    name: 'verified views, first-visit tables, one insert for all',
    // Existing views were not verified (the flag did not exist).
    before: (connection) => addColumn(connection, 'views', 'verified UInt8 DEFAULT 0'),
    statements: (db) => [
      // Per (page, visitor, day) the classes seen (classes.ts); page '' is "any page".
      // Visitor first, so a batch's lookup of its visitors' earlier days reads few granules.
      `CREATE TABLE IF NOT EXISTS ${db}.visits (
        project String, visitor_hi UInt64, visitor_lo UInt64, page String, day Int32, mask UInt32
      ) ENGINE = MergeTree() PARTITION BY intDiv(day, 32) ORDER BY (project, visitor_hi, visitor_lo, page, day)
        SETTINGS index_granularity = 256`,
      // Per (page, visitor, day) and side, the previous and next visit day of that side, for the
      // clipped edge days of a range; a day's true values are maxForEach(prevs), minForEach(nexts).
      `CREATE TABLE IF NOT EXISTS ${db}.visit_days (
        project String, day Int32, page String, visitor_hi UInt64, visitor_lo UInt64, mask UInt32,
        prevs Array(Int32), nexts Array(Int32)
      ) ENGINE = MergeTree() PARTITION BY intDiv(day, 32) ORDER BY (project, day, page, visitor_hi, visitor_lo)`,
      // Per (side, day, page, prev) the signed number of first visits (visit-deltas.ts).
      `CREATE TABLE IF NOT EXISTS ${db}.visit_counts (
        project String, side UInt8, day Int32, page String, prev Int32, n Int64
      ) ENGINE = SummingMergeTree(n) PARTITION BY intDiv(day, 32) ORDER BY (project, side, day, page, prev)`,
      // Every append is one insert here; the materialized views below split it by kind (0: a
      // view, 1: a visits row, 2: a visit_counts delta), so the views, their event keys and
      // the first-visit rows arrive in one request.
      `CREATE TABLE IF NOT EXISTS ${db}.incoming (
        kind UInt8, project String, day Int32, ts Int64, event_key UInt64, path String,
        visitor_hi UInt64, visitor_lo UInt64, category UInt8, purpose UInt8, agent String,
        classifier_version UInt32, user_agent String, flags UInt8, status Nullable(UInt16),
        referrer Nullable(String), verified UInt8, mask UInt32, side UInt8, prev Int32, n Int64,
        prevs Array(Int32), nexts Array(Int32)
      ) ENGINE = Null`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.incoming_views TO ${db}.views AS
        SELECT project, day, ts, event_key, path, visitor_hi, visitor_lo, category, purpose, agent,
               classifier_version, user_agent, flags, status, referrer, verified
          FROM ${db}.incoming WHERE kind = 0`,
      // A materialized view does not fire for rows another one writes (18.16), so the keys
      // come from incoming too; the one on views goes.
      `DROP TABLE IF EXISTS ${db}.event_keys_mv`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.incoming_keys TO ${db}.event_keys AS
        SELECT project, day, event_key FROM ${db}.incoming WHERE kind = 0 AND event_key != 0`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.incoming_visits TO ${db}.visits AS
        SELECT project, visitor_hi, visitor_lo, path AS page, day, mask FROM ${db}.incoming WHERE kind = 1 AND mask != 0`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.incoming_days TO ${db}.visit_days AS
        SELECT project, day, path AS page, visitor_hi, visitor_lo, mask, prevs, nexts FROM ${db}.incoming WHERE kind = 1`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.incoming_counts TO ${db}.visit_counts AS
        SELECT project, side, day, path AS page, prev, n FROM ${db}.incoming WHERE kind = 2`,
    ],
    // Step 3 replaces these tables and builds its own from the views, so nothing to fill here.
  },
  {
    version: 3,
    name: 'first-visit tables by quarter hour, edges from sums',
    statements: (db) => [
      // Per (page, visitor, day) and class number (classes.ts), the first and last quarter hour
      // of the day with a view; the true span is min(first), max(last) over a day's rows.
      // Visitor first, so a batch's lookup of its visitors' earlier days reads few granules.
      `CREATE TABLE IF NOT EXISTS ${db}.pair_days (
        project String, visitor_hi UInt64, visitor_lo UInt64, page String, day Int32,
        cls UInt8, first UInt8, last UInt8
      ) ENGINE = MergeTree() PARTITION BY intDiv(day, 32) ORDER BY (project, visitor_hi, visitor_lo, page, day)
        SETTINGS index_granularity = 256`,
      // Signed counts per set of sides (bit s: side s), summed by key (visit-deltas.ts); the
      // kind is the appends row's: 2 first visits (a: the previous day), 3 edges of a range
      // starting that day (a: the last quarter, b: the next day), 4 edges of a range ending that
      // day (a: the first quarter, b: the previous view's quarter). One table, so an append writes one part for all three;
      // the kind first in the key, so each export reads only its own rows.
      `CREATE TABLE IF NOT EXISTS ${db}.day_counts (
        project String, kind UInt8, day Int32, page String, sides UInt32, a Int32, b Int32, n Int64
      ) ENGINE = SummingMergeTree(n) PARTITION BY intDiv(day, 32) ORDER BY (project, kind, day, page, sides, a, b)`,
      // Every append is one insert here; the materialized views below split it by kind (0: a
      // view, 1: a pair_days row, 2–4: a day_counts delta of that kind). New names
      // rather than a changed `incoming`, so a node still on step 2 fails to insert rather than
      // losing rows into a table without its materialized views.
      `CREATE TABLE IF NOT EXISTS ${db}.appends (
        kind UInt8, project String, day Int32, ts Int64, event_key UInt64, path String,
        visitor_hi UInt64, visitor_lo UInt64, category UInt8, purpose UInt8, agent String,
        classifier_version UInt32, user_agent String, flags UInt8, status Nullable(UInt16),
        referrer Nullable(String), verified UInt8, cls UInt8, first UInt8, last UInt8,
        sides UInt32, a Int32, b Int32, n Int64
      ) ENGINE = Null`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.appends_views TO ${db}.views AS
        SELECT project, day, ts, event_key, path, visitor_hi, visitor_lo, category, purpose, agent,
               classifier_version, user_agent, flags, status, referrer, verified
          FROM ${db}.appends WHERE kind = 0`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.appends_keys TO ${db}.event_keys AS
        SELECT project, day, event_key FROM ${db}.appends WHERE kind = 0 AND event_key != 0`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.appends_pair_days TO ${db}.pair_days AS
        SELECT project, visitor_hi, visitor_lo, path AS page, day, cls, first, last FROM ${db}.appends WHERE kind = 1`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.appends_counts TO ${db}.day_counts AS
        SELECT project, kind, day, path AS page, sides, a, b, n FROM ${db}.appends WHERE kind >= 2`,
      // Step 2's tables and the insert path into them.
      ...[
        'incoming_views',
        'incoming_keys',
        'incoming_visits',
        'incoming_days',
        'incoming_counts',
        'incoming',
      ]
        .concat(['visits', 'visit_days', 'visit_counts'])
        .map((table) => `DROP TABLE IF EXISTS ${db}.${table}`),
    ],
    // The views stored before this step, into the new tables.
    after: (connection) => rebuildVisits(connection, null),
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Creates the database and applies the steps it has not recorded yet, in order, holding the
 * schema's lock: a step run by two nodes at once could add a column twice (an error) or build
 * the first-visit tables twice over (counts doubled).
 */
export async function migrate(connection: ClickHouseConnection, locks: Locks): Promise<void> {
  await locks.holding([`clickhouse schema ${connection.database}`], () => migrateHolding(connection));
}

async function migrateHolding(connection: ClickHouseConnection): Promise<void> {
  const { db } = connection;
  await connection.command(`CREATE DATABASE IF NOT EXISTS ${db}`);
  await connection.command(
    `CREATE TABLE IF NOT EXISTS ${db}.schema_migrations (version UInt32, name String, applied_at DateTime)
      ENGINE = MergeTree() ORDER BY version`,
  );
  const done = new Set(
    (await connection.query<{ version: number }>(`SELECT version FROM ${db}.schema_migrations`)).map((r) =>
      Number(r.version),
    ),
  );
  for (const step of MIGRATIONS) {
    if (done.has(step.version)) continue;
    await step.before?.(connection);
    for (const statement of step.statements(db)) await connection.command(statement);
    await step.after?.(connection);
    await connection.client.insert({
      table: `${db}.schema_migrations`,
      values: [{ version: step.version, name: step.name, applied_at: Math.floor(Date.now() / 1000) }],
      format: 'JSONEachRow',
    });
  }
}

/** ADD COLUMN unless the table has it (18.16 has no ADD COLUMN IF NOT EXISTS). */
async function addColumn(connection: ClickHouseConnection, table: string, definition: string): Promise<void> {
  const name = definition.split(' ')[0] as string;
  const found = await connection.query<{ name: string }>(
    `SELECT name FROM system.columns WHERE database = ${literal(connection.database)} AND table = ${literal(table)} AND name = ${literal(name)}`,
  );
  if (found.length === 0)
    await connection.command(`ALTER TABLE ${connection.db}.${table} ADD COLUMN ${definition}`);
}

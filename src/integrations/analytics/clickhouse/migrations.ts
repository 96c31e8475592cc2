import type { ClickHouseConnection } from './connection.ts';

/**
 * The store's schema, as numbered steps recorded in `schema_migrations`. Only SQL that current
 * ClickHouse releases accept too: new-style `ENGINE = MergeTree() PARTITION BY … ORDER BY …`,
 * a materialized view `TO` a table, Nullable; no LowCardinality (not in 18.16), no query
 * parameters. Every statement is idempotent (IF NOT EXISTS), so two nodes starting at once
 * may both run a step.
 */
const MIGRATIONS: ReadonlyArray<{ version: number; name: string; statements: (db: string) => string[] }> = [
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
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Creates the database and applies the steps it has not recorded yet, in order. */
export async function migrate(connection: ClickHouseConnection): Promise<void> {
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
    for (const statement of step.statements(db)) await connection.command(statement);
    await connection.client.insert({
      table: `${db}.schema_migrations`,
      values: [{ version: step.version, name: step.name, applied_at: Math.floor(Date.now() / 1000) }],
      format: 'JSONEachRow',
    });
  }
}

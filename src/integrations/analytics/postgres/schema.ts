import type pg from 'pg';
import { CREATE_EDGE_TABLES_SQL, ENDS_ROLLUP, STARTS_ROLLUP } from './edge-tables.ts';
import {
  COUNTS_ROLLUP,
  CREATE_NEXT_TABLE_SQL,
  CREATE_VISIT_TABLES_SQL,
  nextFromVisitsSql,
  rebuildVisitsSql,
  rollupFromVisitsSql,
  rollupTriggerFunctionsSql,
} from './visit-tables.ts';
import { BITS } from './visits.ts';

/**
 * The PostgreSQL analytics store's own migration ladder, numbered and recorded in its own
 * bookkeeping table (`analytics_schema_migrations`), beside the jobs' tables in the same schema.
 * Several processes may start at once: a transaction-scoped advisory lock serialises them.
 */
export const ANALYTICS_MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 1,
    name: 'views, first visits and dictionaries',
    sql: `
      create table analytics_projects (id serial primary key, project_id text not null unique);
      -- Dictionaries keep the view rows narrow: a value is stored once, keyed by its hash.
      create table analytics_paths (id serial primary key, hash bytea not null unique, value text not null);
      create table analytics_agents (id serial primary key, hash bytea not null unique, value text not null);
      create table analytics_user_agents (id serial primary key, hash bytea not null unique, value text not null);
      create table analytics_referrers (id serial primary key, hash bytea not null unique, value text not null);
      -- Every stored view (the truth). day: UTC days since the epoch; ms: milliseconds into it.
      create table analytics_views (
        project int4 not null,
        day int4 not null,
        ms int4 not null,
        path int4 not null,
        visitor bytea not null,
        category int2 not null,
        purpose int2 not null,
        flags int2 not null,
        agent int4 not null,
        user_agent int4 not null,
        referrer int4,
        status int2,
        classifier int4 not null,
        event_key int8
      );
      -- An event key is unique within the UTC day of its event: the first wins.
      create unique index analytics_views_event_key on analytics_views (project, day, event_key)
        where event_key is not null;
      create index analytics_views_time on analytics_views (project, day, ms);
      -- One row per (page, visitor, day) with a counted view (human, ai, ai_crawler), and one
      -- per (visitor, day) under path 0 for the totals: mask holds the classes seen that day
      -- (1 human, 2 ai, 4 ai_crawler); last_h/last_a/last_c the latest earlier day the same
      -- visitor saw the same page as that class (-2^31: never). A row counts for a range of
      -- whole days [f, t) iff its day is in it and no earlier visit of its class is on or
      -- after f: exact distinct visitors by a filtered count, without a distinct.
      create table analytics_visits (
        project int4 not null,
        path int4 not null,
        visitor bytea not null,
        day int4 not null,
        mask int2 not null,
        last_h int4 not null,
        last_a int4 not null,
        last_c int4 not null,
        primary key (project, path, visitor, day)
      );
      create index analytics_visits_day on analytics_visits using brin (project, day) with (pages_per_range = 16);
    `,
  },
  {
    version: 2,
    name: 'first-visit counts',
    sql: `
      -- analytics_visits rolled up: how many rows have each (page, day, mask, last_*). Whole
      -- days are counted from here, a few rows per (page, day) rather than one per visitor.
      -- Kept by statement triggers over the transition tables (set-based, in the same
      -- transaction); a session that rebuilds the counts itself sets analytics.counts = 'off'.
      create table analytics_visit_counts (
        project int4 not null,
        day int4 not null,
        path int4 not null,
        mask int2 not null,
        last_h int4 not null,
        last_a int4 not null,
        last_c int4 not null,
        n int4 not null,
        primary key (project, day, path, mask, last_h, last_a, last_c)
      );
      create function analytics_visits_added() returns trigger language plpgsql as $f$
      begin
        if current_setting('analytics.counts', true) = 'off' then return null; end if;
        insert into analytics_visit_counts as c (project, day, path, mask, last_h, last_a, last_c, n)
          select project, day, path, mask, last_h, last_a, last_c, count(*) from added
           group by project, day, path, mask, last_h, last_a, last_c
           order by project, day, path, mask, last_h, last_a, last_c
        on conflict (project, day, path, mask, last_h, last_a, last_c) do update set n = c.n + excluded.n;
        return null;
      end $f$;
      create function analytics_visits_removed() returns trigger language plpgsql as $f$
      begin
        if current_setting('analytics.counts', true) = 'off' then return null; end if;
        insert into analytics_visit_counts as c (project, day, path, mask, last_h, last_a, last_c, n)
          select project, day, path, mask, last_h, last_a, last_c, -count(*) from removed
           group by project, day, path, mask, last_h, last_a, last_c
           order by project, day, path, mask, last_h, last_a, last_c
        on conflict (project, day, path, mask, last_h, last_a, last_c) do update set n = c.n + excluded.n;
        return null;
      end $f$;
      create trigger analytics_visits_inserted after insert on analytics_visits
        referencing new table as added for each statement execute function analytics_visits_added();
      create trigger analytics_visits_updated_old after update on analytics_visits
        referencing old table as removed for each statement execute function analytics_visits_removed();
      create trigger analytics_visits_updated_new after update on analytics_visits
        referencing new table as added for each statement execute function analytics_visits_added();
      create trigger analytics_visits_deleted after delete on analytics_visits
        referencing old table as removed for each statement execute function analytics_visits_removed();
      insert into analytics_visit_counts (project, day, path, mask, last_h, last_a, last_c, n)
        select project, day, path, mask, last_h, last_a, last_c, count(*) from analytics_visits
         group by project, day, path, mask, last_h, last_a, last_c;
    `,
  },
  {
    version: 3,
    name: 'verified views; first visits per class with times of day',
    sql: `
      -- Existing views were never checked against published ranges: claimed (false).
      alter table analytics_views add column verified boolean not null default false;
      drop table analytics_visit_counts;
      drop table analytics_visits;
      drop function analytics_visits_added();
      drop function analytics_visits_removed();
      ${CREATE_VISIT_TABLES_SQL}
      set local analytics.counts = 'off';
      ${rebuildVisitsSql(true)};
      ${rollupFromVisitsSql(COUNTS_ROLLUP, true)};
      set local analytics.counts = 'on';
      -- Views appended but not yet folded into analytics_visits (see record-visits.ts): their
      -- class bits (visits.ts). A fold takes all of a project's rows at once; the index finds
      -- them (and tells a query whether any wait) without reading the others' or dead rows.
      create table analytics_pending (
        project int4 not null, day int4 not null, ms int4 not null, path int4 not null,
        visitor bytea not null, bits int4 not null
      );
      create index analytics_pending_project on analytics_pending (project);
    `,
  },
  {
    version: 4,
    name: 'next day of each first-visit row',
    sql: `
      -- Each first-visit row's next day (visit-tables.ts), from the rows already there.
      ${CREATE_NEXT_TABLE_SQL}
      ${nextFromVisitsSql(true, false)};
      analyze analytics_visit_next;
    `,
  },
  {
    version: 5,
    name: 'quarter-hour edge roll-ups',
    sql: `
      -- The clipped edges as sums (edge-tables.ts), filled from the rows already there, then
      -- kept by the visits table's triggers with the counts.
      ${CREATE_EDGE_TABLES_SQL}
      ${rollupFromVisitsSql(STARTS_ROLLUP, true)};
      ${rollupFromVisitsSql(ENDS_ROLLUP, true)};
      ${rollupTriggerFunctionsSql([COUNTS_ROLLUP, STARTS_ROLLUP, ENDS_ROLLUP])}
      -- Each next-day row keeps its first-visit row's last time of day per class.
      alter table analytics_visit_next ${BITS.map((i) => `add column t${i} int4`).join(', ')};
      update analytics_visit_next n set ${BITS.map((i) => `t${i} = v.t${i}`).join(', ')}
        from analytics_visits v
       where v.project = n.project and v.path = n.path and v.visitor = n.visitor and v.day = n.day;
      analyze analytics_visit_starts;
      analyze analytics_visit_ends;
    `,
  },
];

/**
 * Advisory locks are database-wide: their first key is a hash of the store's schema, so stores
 * in other schemas of the database (other installations, tests) never wait for each other.
 */
const LOCK_SCOPE = `hashtext('docwright analytics ' || current_schema())`;
const FOLD_SCOPE = `hashtext('docwright analytics visits ' || current_schema())`;
/** Before its schema exists, current_schema() is another one: the migration names it ($1). */
const MIGRATION_LOCK_SQL = `select pg_advisory_xact_lock(hashtext('docwright analytics ' || coalesce($1::text, current_schema())), 0)`;

/**
 * Takes, until the transaction ends, the lock that serialises writes to one project's views
 * (appends, reclassification, deletion) across processes. Project numbers start at 1.
 */
export async function lockProject(client: Pick<pg.PoolClient, 'query'>, project: number): Promise<void> {
  await client.query(`select pg_advisory_xact_lock(${LOCK_SCOPE}, $1)`, [project]);
}

/**
 * Takes, until the transaction ends, the lock that serialises changes to one project's
 * first-visit rows (folds, reclassification, deletion); appends do not take it. Without
 * `wait`, false when another transaction holds it.
 */
export async function lockVisits(
  client: Pick<pg.PoolClient, 'query'>,
  project: number,
  wait: boolean,
): Promise<boolean> {
  if (wait) {
    await client.query(`select pg_advisory_xact_lock(${FOLD_SCOPE}, $1)`, [project]);
    return true;
  }
  const result = await client.query<{ locked: boolean }>(
    `select pg_try_advisory_xact_lock(${FOLD_SCOPE}, $1) as locked`,
    [project],
  );
  return result.rows[0]?.locked === true;
}

/** Applies every pending analytics migration in the pool's schema; returns those applied. */
export async function migrateAnalytics(pool: pg.Pool, schema: string | null): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(MIGRATION_LOCK_SQL, [schema]);
    // Under the lock: two processes creating the schema at once would otherwise collide.
    if (schema) await client.query(`create schema if not exists ${quoteIdent(schema)}`);
    await client.query(
      `create table if not exists analytics_schema_migrations (
         version int4 primary key, name text not null, applied_at timestamptz not null default now())`,
    );
    const done = await client.query<{ version: number }>('select version from analytics_schema_migrations');
    const applied = new Set(done.rows.map((r) => r.version));
    const now: number[] = [];
    for (const migration of ANALYTICS_MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('insert into analytics_schema_migrations (version, name) values ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      now.push(migration.version);
    }
    await client.query('commit');
    return now;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

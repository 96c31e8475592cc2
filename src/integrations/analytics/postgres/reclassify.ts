import type pg from 'pg';
import { CATEGORY_CODES, PURPOSE_CODES } from '../../../domain/analytics/categories.ts';
import type { Reclassifier, ReclassifyResult } from '../../../domain/analytics/store.ts';
import type { Dictionary } from './dictionaries.ts';
import { ENDS_ROLLUP, STARTS_ROLLUP } from './edge-tables.ts';
import { lockProject, lockVisits } from './schema.ts';
import { COUNTS_ROLLUP, nextFromVisitsSql, rebuildVisitsSql, rollupFromVisitsSql } from './visit-tables.ts';

/**
 * Classifies again the project's views of an older classifier version: once per distinct
 * (user agent, fetch flags), then one update of the views, then the first-visit table is
 * rebuilt from the views (a category changes which class a visit counts in). One
 * transaction under the project's append and fold locks: appends and folds wait, readers see
 * before or after.
 */
export async function reclassifyViews(
  pool: pg.Pool,
  dictionaries: { agents: Dictionary; userAgents: Dictionary },
  project: number,
  classifier: Reclassifier,
): Promise<ReclassifyResult> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await lockProject(client, project);
    await lockVisits(client, project, true);
    const combos = await client.query<{ user_agent: number; flags: number }>(
      `select distinct user_agent, flags from analytics_views where project = $1 and classifier < $2`,
      [project, classifier.version],
    );
    if (combos.rows.length === 0) {
      await client.query('commit');
      return { examined: 0, changed: 0 };
    }
    const userAgents = await dictionaries.userAgents.namesOf(
      client,
      combos.rows.map((c) => c.user_agent),
    );
    const classified = combos.rows.map((c) =>
      classifier.classify(userAgents.get(c.user_agent) as string, c.flags),
    );
    const agents = await dictionaries.agents.idsFor(
      pool,
      classified.map((c) => c.agent),
    );
    const params = [
      project,
      classifier.version,
      combos.rows.map((c) => c.user_agent),
      combos.rows.map((c) => c.flags),
      classified.map((c) => CATEGORY_CODES[c.category]),
      classified.map((c) => (c.purpose === null ? 0 : PURPOSE_CODES[c.purpose])),
      agents,
    ];
    const x = `unnest($3::int4[], $4::int2[], $5::int2[], $6::int2[], $7::int4[]) as x(user_agent, flags, category, purpose, agent)`;
    const counted = await client.query<{ examined: number; changed: number }>(
      `select count(*)::int4 as examined,
              count(*) filter (where v.category <> x.category or v.purpose <> x.purpose or v.agent <> x.agent)::int4 as changed
         from analytics_views v join ${x} on v.user_agent = x.user_agent and v.flags = x.flags
        where v.project = $1 and v.classifier < $2`,
      params,
    );
    await client.query(
      `update analytics_views v
          set category = x.category, purpose = x.purpose, agent = x.agent, classifier = $2
         from ${x}
        where v.project = $1 and v.classifier < $2 and v.user_agent = x.user_agent and v.flags = x.flags`,
      params,
    );
    const result = counted.rows[0] ?? { examined: 0, changed: 0 };
    if (result.changed > 0) await rebuildVisits(client, project);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** Rebuilds a project's first-visit table from its views (inside the caller's transaction). */
export async function rebuildVisits(client: Pick<pg.PoolClient, 'query'>, project: number): Promise<void> {
  // The roll-ups are rebuilt below in one pass rather than by the triggers, row change by row change.
  await client.query(`select set_config('analytics.counts', 'off', true)`);
  await client.query('delete from analytics_visits where project = $1', [project]);
  await client.query('delete from analytics_visit_counts where project = $1', [project]);
  await client.query('delete from analytics_visit_next where project = $1', [project]);
  await client.query('delete from analytics_visit_starts where project = $1', [project]);
  await client.query('delete from analytics_visit_ends where project = $1', [project]);
  // Every view is folded in by the rebuild, with its new class (appends wait for the lock).
  await client.query('delete from analytics_pending where project = $1', [project]);
  await client.query(rebuildVisitsSql(false), [project]);
  for (const rollup of [COUNTS_ROLLUP, STARTS_ROLLUP, ENDS_ROLLUP])
    await client.query(rollupFromVisitsSql(rollup, false), [project]);
  await client.query(nextFromVisitsSql(false), [project]);
  await client.query(`select set_config('analytics.counts', 'on', true)`);
}

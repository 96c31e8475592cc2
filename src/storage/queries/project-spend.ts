import { sql } from 'kysely';
import type { Executor } from './executor.ts';

/** Adds a recorded turn's estimate (or one unpriced turn) to its project's spend of that month. */
export async function addProjectSpend(
  db: Executor,
  spend: { projectId: string; month: string; costUsd: number; unpricedTurns: number },
): Promise<void> {
  await db
    .insertInto('project_monthly_spend')
    .values({
      project_id: spend.projectId,
      month: spend.month,
      cost_usd: spend.costUsd,
      unpriced_turns: spend.unpricedTurns,
    })
    .onConflict((oc) =>
      oc.columns(['project_id', 'month']).doUpdateSet({
        cost_usd: sql`project_monthly_spend.cost_usd + excluded.cost_usd`,
        unpriced_turns: sql`project_monthly_spend.unpriced_turns + excluded.unpriced_turns`,
      }),
    )
    .execute();
}

/** The project's spend in `month` (`2026-11`); zero when nothing was recorded. */
export async function findProjectSpend(
  db: Executor,
  projectId: string,
  month: string,
): Promise<{ costUsd: number; unpricedTurns: number }> {
  const row = await db
    .selectFrom('project_monthly_spend')
    .select(['cost_usd', 'unpriced_turns'])
    .where('project_id', '=', projectId)
    .where('month', '=', month)
    .executeTakeFirst();
  return { costUsd: Number(row?.cost_usd ?? 0), unpricedTurns: Number(row?.unpriced_turns ?? 0) };
}

import type { Kysely } from 'kysely';

/**
 * Estimated cost. Each turn keeps the cost estimated when its usage was recorded
 * (`turns.cost_usd`, null when its model had no price), so later price changes do not
 * rewrite history. A job keeps the sums over its turns (read with it on every poll and in
 * every event), and a project its spend per calendar month (UTC), which the monthly budget
 * is checked against; all three are written in the transaction that records the turn.
 *
 * Turns recorded before this migration have no estimate: their tokens are added to their
 * job's sums and they count as unpriced turns.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await addColumns(db);
  await backfill(db as unknown as Kysely<Tables>);
}

/** The tables as they are at this migration (not today's schema types). */
interface Tables {
  turns: { job_id: string; usage: string | null };
  jobs: { id: string; input_tokens: number; output_tokens: number; unpriced_turns: number };
}

async function addColumns(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('turns').addColumn('cost_usd', 'double precision').execute();
  await db.schema
    .alterTable('jobs')
    .addColumn('input_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('jobs')
    .addColumn('output_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  // Null until one of the job's turns has an estimate.
  await db.schema.alterTable('jobs').addColumn('cost_usd', 'double precision').execute();
  await db.schema
    .alterTable('jobs')
    .addColumn('unpriced_turns', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('project_monthly_spend')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    // `2026-11`: the UTC calendar month the turns' usage was recorded in.
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('cost_usd', 'double precision', (c) => c.notNull())
    .addColumn('unpriced_turns', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('project_monthly_spend_pk', ['project_id', 'month'])
    .execute();
}

async function backfill(db: Kysely<Tables>): Promise<void> {
  const turns = await db
    .selectFrom('turns')
    .select(['job_id', 'usage'])
    .where('usage', 'is not', null)
    .execute();
  const sums = new Map<string, { input: number; output: number; turns: number }>();
  for (const turn of turns) {
    const usage = JSON.parse(turn.usage ?? '{}') as { inputTokens?: number; outputTokens?: number };
    const sum = sums.get(turn.job_id) ?? { input: 0, output: 0, turns: 0 };
    sum.input += usage.inputTokens ?? 0;
    sum.output += usage.outputTokens ?? 0;
    sum.turns += 1;
    sums.set(turn.job_id, sum);
  }
  for (const [jobId, sum] of sums) {
    await db
      .updateTable('jobs')
      .set({ input_tokens: sum.input, output_tokens: sum.output, unpriced_turns: sum.turns })
      .where('id', '=', jobId)
      .execute();
  }
}

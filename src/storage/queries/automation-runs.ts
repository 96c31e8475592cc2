import type { AutomationRunRow, AutomationRunUpdate } from '../schema.ts';
import type { Executor } from './executor.ts';

/** A run with the status of the turn it queued and its job's pull request (null when none). */
export type AutomationRunWithTurn = AutomationRunRow & {
  turn_status: string | null;
  /** The run's turn's usage (JSON) and estimated cost, once recorded. */
  turn_usage: string | null;
  turn_cost_usd: number | null;
  pr_link: string | null;
};

/**
 * Inserts the run unless the automation already has one with the same dedupe key (on
 * PostgreSQL a concurrent insert of the same key waits for the other transaction, then does
 * nothing); true when it was inserted.
 */
export async function insertAutomationRunOnce(db: Executor, row: AutomationRunRow): Promise<boolean> {
  const result = await db
    .insertInto('automation_runs')
    .values(row)
    .onConflict((oc) => oc.columns(['automation_id', 'dedupe_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export function findAutomationRunByKey(
  db: Executor,
  automationId: string,
  dedupeKey: string,
): Promise<AutomationRunRow | undefined> {
  return db
    .selectFrom('automation_runs')
    .selectAll()
    .where('automation_id', '=', automationId)
    .where('dedupe_key', '=', dedupeKey)
    .executeTakeFirst();
}

/** Runs since `since` that started (or followed up) a job: what the daily limit counts. */
export async function countStartedRunsSince(
  db: Executor,
  automationId: string,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('automation_runs')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('automation_id', '=', automationId)
    .where('created_at', '>', since)
    .where('job_id', 'is not', null)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/**
 * The job of the automation's latest run that is still open for more commits: not archived
 * nor failed, and either still running its first turn or holding a pull request.
 */
export function findOpenRunJob(
  db: Executor,
  automationId: string,
): Promise<{ job_id: string; pr_link: string | null } | undefined> {
  return db
    .selectFrom('automation_runs')
    .innerJoin('jobs', 'jobs.id', 'automation_runs.job_id')
    .select(['jobs.id as job_id', 'jobs.pr_link as pr_link'])
    .where('automation_runs.automation_id', '=', automationId)
    .where((eb) =>
      eb.or([
        eb('jobs.status', '=', 'active'),
        eb.and([eb('jobs.status', '=', 'completed'), eb('jobs.pr_link', 'is not', null)]),
      ]),
    )
    .orderBy('automation_runs.created_at', 'desc')
    .orderBy('automation_runs.id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The automation's runs, newest first, after the cursor position, at most `limit`. */
export function listAutomationRuns(
  db: Executor,
  q: { automationId: string; limit: number; after: { createdAt: string; id: string } | undefined },
): Promise<AutomationRunWithTurn[]> {
  return db
    .selectFrom('automation_runs')
    .leftJoin('turns', 'turns.id', 'automation_runs.turn_id')
    .leftJoin('jobs', 'jobs.id', 'automation_runs.job_id')
    .selectAll('automation_runs')
    .select([
      'turns.status as turn_status',
      'turns.usage as turn_usage',
      'turns.cost_usd as turn_cost_usd',
      'jobs.pr_link as pr_link',
    ])
    .where('automation_runs.automation_id', '=', q.automationId)
    .$if(q.after !== undefined, (qb) => {
      const after = q.after as { createdAt: string; id: string };
      return qb.where((eb) =>
        eb.or([
          eb('automation_runs.created_at', '<', after.createdAt),
          eb.and([
            eb('automation_runs.created_at', '=', after.createdAt),
            eb('automation_runs.id', '<', after.id),
          ]),
        ]),
      );
    })
    .orderBy('automation_runs.created_at', 'desc')
    .orderBy('automation_runs.id', 'desc')
    .limit(q.limit)
    .execute();
}

export function findAutomationRun(
  db: Executor,
  automationId: string,
  id: string,
): Promise<AutomationRunWithTurn | undefined> {
  return db
    .selectFrom('automation_runs')
    .leftJoin('turns', 'turns.id', 'automation_runs.turn_id')
    .leftJoin('jobs', 'jobs.id', 'automation_runs.job_id')
    .selectAll('automation_runs')
    .select([
      'turns.status as turn_status',
      'turns.usage as turn_usage',
      'turns.cost_usd as turn_cost_usd',
      'jobs.pr_link as pr_link',
    ])
    .where('automation_runs.automation_id', '=', automationId)
    .where('automation_runs.id', '=', id)
    .executeTakeFirst();
}

/** The runs waiting on this turn (one, unless the turn was shared). */
export function listRunsOfTurn(db: Executor, turnId: string): Promise<AutomationRunRow[]> {
  return db
    .selectFrom('automation_runs')
    .selectAll()
    .where('turn_id', '=', turnId)
    .where('status', '=', 'queued')
    .execute();
}

/**
 * The source pull requests a job's runs cover, oldest first, up to the turn `upToSeq`
 * (later runs are still queued behind it).
 */
export async function listRunSourcesOfJob(db: Executor, jobId: string, upToSeq: number): Promise<string[]> {
  const rows = await db
    .selectFrom('automation_runs')
    .innerJoin('turns', 'turns.id', 'automation_runs.turn_id')
    .select('automation_runs.source')
    .where('automation_runs.job_id', '=', jobId)
    .where('automation_runs.source', 'is not', null)
    .where('turns.seq', '<=', upToSeq)
    .orderBy('turns.seq')
    .orderBy('automation_runs.created_at')
    .execute();
  return rows.map((r) => r.source as string);
}

export function updateAutomationRun(
  db: Executor,
  id: string,
  changes: AutomationRunUpdate,
): Promise<AutomationRunRow | undefined> {
  return db
    .updateTable('automation_runs')
    .set(changes)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

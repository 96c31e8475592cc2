import { updateLeasedJob } from '../../../storage/queries/jobs.ts';
import { findProject } from '../../../storage/queries/projects.ts';
import {
  firstOpenTurn,
  listTurns,
  OPEN_TURN_STATUSES,
  updateTurnIfStatus,
} from '../../../storage/queries/turns.ts';
import type { JobRow, TurnRow } from '../../../storage/schema.ts';
import { budgetRefusal, monthlySpend } from '../../projects/monthly-budget.ts';
import { type Project, projectModel, toProject } from '../../projects/project.ts';
import type { JobEventLog } from '../job-events.ts';
import type { Lease } from './lease.ts';

export type StartTurnResult =
  /** The turn is running on `job.model`; its attempt is counted. */
  | { kind: 'started'; job: JobRow; turn: TurnRow; project: Project }
  /** The next turn has used its attempts: finish it as failed. */
  | { kind: 'exhausted'; turn: TurnRow }
  /** The project's monthly budget is spent: finish the turn as failed with `reason`, unstarted. */
  | { kind: 'over-budget'; turn: TurnRow; reason: string }
  /** Nothing was left to run; the job took its last turn's outcome and the lease is released. */
  | { kind: 'settled' }
  /** The lease is no longer ours, or the job is no longer active. */
  | { kind: 'lost' };

/**
 * Starts the job's next open turn, in one transaction: counts the attempt and resolves the
 * model now, not when the job was created (the project's model, else the configured
 * default), so a job created before a model was configured runs once one is. The job's
 * `model` shows the model of its latest turn.
 */
export async function startTurn(
  log: JobEventLog,
  lease: Lease,
  options: { maxAttempts: number; defaultModel: string | null; now: string },
): Promise<StartTurnResult> {
  return log.transaction(options.now, async (tx, events): Promise<StartTurnResult> => {
    // Writing the job row first locks it and proves the lease is still ours.
    const held = await updateLeasedJob(tx, lease, { updated_at: options.now });
    if (held?.status !== 'active') return { kind: 'lost' };
    const turn = await firstOpenTurn(tx, lease.jobId);
    if (!turn) {
      // An active job with nothing left to run (should not happen) takes its last turn's outcome.
      const last = (await listTurns(tx, lease.jobId)).at(-1);
      const settled = await updateLeasedJob(tx, lease, {
        status: last?.status === 'failed' ? 'failed' : 'completed',
        failure_reason: last?.status === 'failed' ? last.error : null,
        lease_owner: null,
        lease_expires_at: null,
      });
      if (settled) {
        events.status(settled);
        events.announce(settled, settled.status === 'failed' ? 'job.failed' : 'job.completed');
      }
      return { kind: 'settled' };
    }
    if (turn.attempts >= options.maxAttempts) return { kind: 'exhausted', turn };
    const row = await findProject(tx, held.project_id);
    if (!row) throw new Error(`Project ${held.project_id} no longer exists`);
    const project = toProject(row);
    // Checked again here, not only when the turn was queued: turns queued behind others, and
    // retried ones, must not start once the month's budget is spent.
    const refusal = budgetRefusal(await monthlySpend(tx, project, new Date(options.now)));
    if (refusal !== null) return { kind: 'over-budget', turn, reason: refusal };
    const model = projectModel(project) ?? options.defaultModel;
    const started = await updateTurnIfStatus(tx, turn.id, OPEN_TURN_STATUSES, {
      status: 'running',
      attempts: turn.attempts + 1,
      started_at: options.now,
      model,
    });
    if (!started) return { kind: 'lost' };
    const job = (await updateLeasedJob(tx, lease, { model })) ?? held;
    events.turn(job, 'started', started);
    events.status(job);
    return { kind: 'started', job, turn: started, project };
  });
}

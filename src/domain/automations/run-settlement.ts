import { listRunsOfTurn, updateAutomationRun } from '../../storage/queries/automation-runs.ts';
import { findAutomation } from '../../storage/queries/automations.ts';
import type { Executor } from '../../storage/queries/executor.ts';
import type { JobRow, TurnRow } from '../../storage/schema.ts';
import type { JobEventRecorder } from '../jobs/job-events.ts';
import type { WebhookEvent } from '../webhooks/outbox.ts';
import { type AutomationView, toAutomation, toAutomationView } from './automation.ts';
import { type AutomationRunView, toRunView } from './run-view.ts';

/** The `automation.run_completed` webhook event: `data` is `{ automation, run }` as the API returns them. */
export function runCompletedEvent(automation: AutomationView, run: AutomationRunView): WebhookEvent {
  return { projectId: automation.projectId, type: 'automation.run_completed', data: { automation, run } };
}

/**
 * A run follows the turn it queued: registered with `JobEventLog.onTurnEnded`, this runs in
 * the transaction that ends the turn, so the run's outcome and its `automation.run_completed`
 * webhook commit with the turn's. A succeeded turn completes the run when the job has a pull
 * request, else the run found no change needed (the agent's answer says why); a failed turn
 * fails it; a turn cancelled by archiving the job fails it too.
 *
 * Chosen over deriving the status on read because the webhook must be written exactly when
 * the run ends, in that transaction (the outbox); `running` alone is read from the turn.
 */
export function settleRunsOnTurnEnd(publicUrl: string) {
  return async (tx: Executor, events: JobEventRecorder, job: JobRow, turn: TurnRow): Promise<void> => {
    const runs = await listRunsOfTurn(tx, turn.id);
    const at = turn.finished_at ?? job.updated_at;
    for (const run of runs) {
      const succeeded = turn.status === 'succeeded';
      const status = succeeded ? (job.pr_link !== null ? 'completed' : 'no_change') : 'failed';
      const reason = succeeded
        ? turn.summary
        : turn.status === 'cancelled'
          ? 'The job was archived before the run finished'
          : turn.error;
      const settled = await updateAutomationRun(tx, run.id, {
        status,
        reason,
        finished_at: at,
        updated_at: at,
      });
      const automation = await findAutomation(tx, job.project_id, run.automation_id);
      if (!settled || !automation) continue;
      events.webhook(
        runCompletedEvent(
          toAutomationView(toAutomation(automation), publicUrl, new Date(at)),
          toRunView(settled, {
            turn_status: turn.status,
            turn_usage: turn.usage,
            turn_cost_usd: turn.cost_usd,
            pr_link: job.pr_link,
          }),
        ),
      );
    }
  };
}

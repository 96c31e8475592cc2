import type { AutomationRunWithTurn } from '../../storage/queries/automation-runs.ts';
import type { AutomationRunRow } from '../../storage/schema.ts';
import type { SourcePullRequest } from '../agent/agent.ts';
import { type TurnUsage, turnUsage } from '../jobs/conversation.ts';
import type { TriggerKind } from './automation.ts';

export const RUN_STATUSES = [
  'queued',
  'running',
  'completed',
  'no_change',
  'failed',
  'rate_limited',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A run as the API returns it. */
export interface AutomationRunView {
  id: string;
  automationId: string;
  trigger: TriggerKind;
  /** The source pull request that started it (code change), or null. */
  source: SourcePullRequest | null;
  /**
   * queued, then running while its turn runs; then completed (the documentation pull request
   * has its changes), no_change (the agent found nothing to change: `reason` says why),
   * failed, or rate_limited (over the automation's daily limit: no job was started).
   */
  status: RunStatus;
  /** The job it started or added a turn to; null when it started none. */
  jobId: string | null;
  /** The job's pull request, once there is one. */
  prLink: string | null;
  /** Whether it added a turn to an earlier run's job, whose pull request was still open. */
  followUp: boolean;
  /** The agent's final answer (why no change was needed), or why the run failed or was refused. */
  reason: string | null;
  /**
   * Tokens and estimated cost of the run's own turn (a follow-up run counts its turn only, not
   * the job's earlier ones); null until the turn records its usage, or when it started none.
   */
  usage: TurnUsage | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export function toRunView(
  row: AutomationRunRow,
  joined: Pick<AutomationRunWithTurn, 'turn_status' | 'pr_link' | 'turn_usage' | 'turn_cost_usd'>,
): AutomationRunView {
  const status = row.status === 'queued' && joined.turn_status === 'running' ? 'running' : row.status;
  return {
    id: row.id,
    automationId: row.automation_id,
    trigger: row.trigger_kind as TriggerKind,
    source: row.source === null ? null : (JSON.parse(row.source) as SourcePullRequest),
    status: status as RunStatus,
    jobId: row.job_id,
    prLink: row.job_id === null ? null : joined.pr_link,
    followUp: row.follow_up === 1,
    reason: row.reason,
    usage: row.turn_id === null ? null : turnUsage(joined.turn_usage, joined.turn_cost_usd),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
}

import type { JobRow } from '../../storage/schema.ts';

export const JOB_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The job as the API returns it. */
export interface JobView {
  id: string;
  status: JobStatus;
  source: { repository: string; ref: string };
  model: string | null;
  prLink: string | null;
  createdAt: string;
  archivedAt: string | null;
  /** Why the job failed; null unless status is `failed`. */
  failureReason: string | null;
  updatedAt: string;
  /** Tokens and estimated cost summed over the job's turns. */
  usage: JobUsage;
}

/**
 * A job's tokens and estimated cost, summed over its turns as each one's usage is recorded.
 * `costUsd` sums the turns that have an estimate; it is null when turns recorded usage but
 * none has an estimate (their model has no price), and 0 before any usage. `unpricedTurns`
 * counts the turns left out of `costUsd`: when it is above 0, the cost is a lower bound.
 */
export interface JobUsage {
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
  unpricedTurns: number;
}

export function toJobView(row: JobRow): JobView {
  return {
    id: row.id,
    status: row.status as JobStatus,
    source: { repository: row.repository, ref: row.branch },
    model: row.model,
    prLink: row.pr_link,
    createdAt: row.created_at,
    archivedAt: row.archived_at,
    failureReason: row.status === 'failed' ? row.failure_reason : null,
    updatedAt: row.updated_at,
    usage: {
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
      costUsd: row.cost_usd ?? (row.unpriced_turns > 0 ? null : 0),
      unpricedTurns: row.unpriced_turns,
    },
  };
}

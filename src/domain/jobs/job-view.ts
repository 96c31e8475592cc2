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
  };
}

import type { JobStatus, Turn } from './job-api.ts';

const JOB_LABEL: Record<JobStatus, string> = {
  active: 'Working',
  completed: 'Completed',
  failed: 'Failed',
  archived: 'Archived',
};

/** A job's status as a coloured badge; the text says it too, so colour is never the only sign. */
export function JobStatusBadge({ status }: { status: JobStatus }) {
  return (
    <span className={`status status--${status}`} data-status={status}>
      {status === 'active' && <span className="status__pulse" aria-hidden="true" />}
      {JOB_LABEL[status]}
    </span>
  );
}

const TURN_LABEL: Record<Turn['status'], string> = {
  pending: 'Queued',
  running: 'Working',
  succeeded: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};
const TURN_TONE: Record<Turn['status'], JobStatus> = {
  pending: 'archived',
  running: 'active',
  succeeded: 'completed',
  failed: 'failed',
  cancelled: 'archived',
};

export function TurnStatusBadge({ status }: { status: Turn['status'] }) {
  return (
    <span className={`status status--${TURN_TONE[status]}`}>
      {status === 'running' && <span className="status__pulse" aria-hidden="true" />}
      {TURN_LABEL[status]}
    </span>
  );
}

export const STATUS_OPTIONS: { value: JobStatus; label: string }[] = (
  ['active', 'completed', 'failed', 'archived'] as const
).map((value) => ({ value, label: JOB_LABEL[value] }));

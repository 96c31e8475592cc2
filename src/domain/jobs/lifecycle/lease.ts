/** A worker's hold on a job: only the owner may change the job while the lease lasts. */
export interface Lease {
  jobId: string;
  owner: string;
}

const MAX_ERROR_LENGTH = 1000;

/** Errors and failure reasons are stored and shown cut to a readable length. */
export function truncateReason(text: string): string {
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
}

import type { Storage } from '../../../storage/database.ts';
import { claimJob as claimJobRow } from '../../../storage/queries/jobs.ts';
import type { JobRow } from '../../../storage/schema.ts';

/**
 * Takes the lease on the active job that waited longest and whose lease is free or expired,
 * in a single statement (SKIP LOCKED on PostgreSQL; SQLite serialises writers). A job whose
 * worker died is claimed again once its lease expires.
 */
export function claimJob(
  storage: Storage,
  claim: { owner: string; now: string; leaseUntil: string },
): Promise<JobRow | undefined> {
  return claimJobRow(storage.db, storage.dialect, claim);
}

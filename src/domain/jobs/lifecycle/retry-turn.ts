import { updateLeasedJob } from '../../../storage/queries/jobs.ts';
import { updateTurnIfStatus } from '../../../storage/queries/turns.ts';
import type { JobEventLog } from '../job-events.ts';
import { type Lease, truncateReason } from './lease.ts';

/**
 * Puts a running turn back after an unexpected error, in one transaction: the turn is pending
 * again with the error noted, and the job's lease is given up with an expiry of `notBefore`,
 * which doubles as the backoff (no worker claims it sooner). The attempt stays counted.
 */
export async function retryTurn(
  log: JobEventLog,
  lease: Lease,
  turnId: string,
  error: string,
  times: { now: string; notBefore: string },
): Promise<void> {
  await log.transaction(times.now, async (tx, events) => {
    const held = await updateLeasedJob(tx, lease, { updated_at: times.now });
    if (!held) return;
    const turn = await updateTurnIfStatus(tx, turnId, ['running'], {
      status: 'pending',
      error: truncateReason(error),
    });
    const job =
      (await updateLeasedJob(tx, lease, { lease_owner: null, lease_expires_at: times.notBefore })) ?? held;
    if (turn) events.turn(job, 'retrying', turn);
    events.status(job);
  });
}

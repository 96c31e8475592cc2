import { updateLeasedJob } from '../../../storage/queries/jobs.ts';
import { findTurn, updateTurnIfStatus } from '../../../storage/queries/turns.ts';
import type { JobEventLog } from '../job-events.ts';
import type { Lease } from './lease.ts';

/**
 * Gives a job back untouched, in one transaction, so another worker can take it at once (on
 * shutdown). A turn it had started goes back to pending without counting the attempt it did
 * not finish. The job as the API shows it does not change; its turn's event says so.
 */
export async function releaseJob(
  log: JobEventLog,
  lease: Lease,
  startedTurnId: string | null,
  now: string,
): Promise<void> {
  await log.transaction(now, async (tx, events) => {
    const held = await updateLeasedJob(tx, lease, { lease_owner: null, lease_expires_at: null });
    if (!held || startedTurnId === null) return;
    const turn = await findTurn(tx, startedTurnId);
    if (turn?.status === 'running') {
      const released = await updateTurnIfStatus(tx, turn.id, ['running'], {
        status: 'pending',
        attempts: Math.max(0, turn.attempts - 1),
      });
      if (released) events.turn(held, 'released', released);
    }
  });
}

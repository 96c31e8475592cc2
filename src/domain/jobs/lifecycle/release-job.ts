import type { Storage } from '../../../storage/database.ts';
import { updateLeasedJob } from '../../../storage/queries/jobs.ts';
import { findTurn, updateTurnIfStatus } from '../../../storage/queries/turns.ts';
import type { Lease } from './lease.ts';

/**
 * Gives a job back untouched, in one transaction, so another worker can take it at once (on
 * shutdown). A turn it had started goes back to pending without counting the attempt it did
 * not finish.
 */
export async function releaseJob(
  storage: Storage,
  lease: Lease,
  startedTurnId: string | null,
): Promise<void> {
  await storage.db.transaction().execute(async (tx) => {
    const held = await updateLeasedJob(tx, lease, { lease_owner: null, lease_expires_at: null });
    if (!held || startedTurnId === null) return;
    const turn = await findTurn(tx, startedTurnId);
    if (turn?.status === 'running') {
      await updateTurnIfStatus(tx, turn.id, ['running'], {
        status: 'pending',
        attempts: Math.max(0, turn.attempts - 1),
      });
    }
  });
}

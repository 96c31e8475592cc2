import { updateLeasedJob } from '../../../storage/queries/jobs.ts';
import { insertMessages, nextMessageSeq } from '../../../storage/queries/messages.ts';
import { countOpenTurns, OPEN_TURN_STATUSES, updateTurnIfStatus } from '../../../storage/queries/turns.ts';
import type { JobUpdate, MessageRow } from '../../../storage/schema.ts';
import { newId } from '../../ids.ts';
import type { AgentMessage, StoredMessage, TokenUsage } from '../conversation.ts';
import type { JobEventLog } from '../job-events.ts';
import { type Lease, truncateReason } from './lease.ts';

export type TurnOutcome =
  | {
      outcome: 'succeeded';
      summary: string;
      prLink: string | null;
      usage: TokenUsage | null;
      messages: AgentMessage[];
    }
  | { outcome: 'failed'; reason: string; usage: TokenUsage | null; messages: AgentMessage[] };

/**
 * Records a turn's outcome and its messages, in one transaction, and releases the lease;
 * when it was the job's last open turn, the job takes its outcome (completed or failed).
 * Nothing is written once the lease is lost or the job was archived meanwhile.
 */
export async function finishTurn(
  log: JobEventLog,
  lease: Lease,
  turnId: string,
  result: TurnOutcome,
  now: string,
): Promise<void> {
  await log.transaction(now, async (tx, events) => {
    const held = await updateLeasedJob(tx, lease, { updated_at: now });
    if (held?.status !== 'active') return;
    const failed = result.outcome === 'failed';
    const recorded = await updateTurnIfStatus(tx, turnId, OPEN_TURN_STATUSES, {
      status: failed ? 'failed' : 'succeeded',
      error: failed ? truncateReason(result.reason) : null,
      summary: failed ? null : result.summary,
      usage: result.usage ? JSON.stringify(result.usage) : null,
      finished_at: now,
    });
    if (!recorded) return;
    let seq = await nextMessageSeq(tx, lease.jobId);
    const messages: MessageRow[] = result.messages.map((message) => ({
      id: newId('msg'),
      job_id: lease.jobId,
      turn_id: turnId,
      seq: seq++,
      role: message.role,
      content: JSON.stringify(message satisfies StoredMessage),
      created_at: now,
    }));
    await insertMessages(tx, messages);
    const changes: JobUpdate = { lease_owner: null, lease_expires_at: null };
    if (result.outcome === 'succeeded' && result.prLink) changes.pr_link = result.prLink;
    if ((await countOpenTurns(tx, lease.jobId)) === 0) {
      changes.status = failed ? 'failed' : 'completed';
      changes.failure_reason = failed ? truncateReason(result.reason) : null;
    }
    const job = (await updateLeasedJob(tx, lease, changes)) ?? held;
    for (const message of messages) events.message(job, recorded.seq, message);
    events.turn(job, failed ? 'failed' : 'succeeded', recorded);
    const prOpened = job.pr_link !== null && job.pr_link !== held.pr_link;
    if (prOpened && job.pr_link !== null) events.pullRequest(job, job.pr_link);
    events.status(job);
    if (prOpened) events.announce(job, 'job.pull_request_opened');
    if (changes.status !== undefined) events.announce(job, failed ? 'job.failed' : 'job.completed');
    await log.turnEnded(tx, events, job, recorded);
  });
}

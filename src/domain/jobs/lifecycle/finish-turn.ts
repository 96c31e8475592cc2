import { updateLeasedJob } from '../../../storage/queries/jobs.ts';
import { insertMessages, nextMessageSeq } from '../../../storage/queries/messages.ts';
import { addProjectSpend } from '../../../storage/queries/project-spend.ts';
import { countOpenTurns, OPEN_TURN_STATUSES, updateTurnIfStatus } from '../../../storage/queries/turns.ts';
import type { JobRow, JobUpdate, MessageRow } from '../../../storage/schema.ts';
import { newId } from '../../ids.ts';
import { monthOf } from '../../projects/monthly-budget.ts';
import type { AgentMessage, StoredMessage, TokenUsage } from '../conversation.ts';
import type { JobEventLog } from '../job-events.ts';
import { roundUsd } from '../pricing/model-prices.ts';
import { MAX_TURN_SOURCES, type TurnSource } from '../turn-sources.ts';
import { type Lease, truncateReason } from './lease.ts';

export type TurnOutcome = (
  | {
      outcome: 'succeeded';
      summary: string;
      prLink: string | null;
      usage: TokenUsage | null;
      messages: AgentMessage[];
      /** What the change relied on beyond the docs repository. */
      sources?: TurnSource[];
    }
  | { outcome: 'failed'; reason: string; usage: TokenUsage | null; messages: AgentMessage[] }
) & {
  /** The usage's estimated cost in USD; null (or absent) without a price or without usage. */
  costUsd?: number | null;
};

/**
 * Records a turn's outcome, its usage and estimated cost (added to the job's sums and to the
 * project's spend of the month) and its messages, in one transaction, and releases the lease;
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
      cost_usd: result.usage ? (result.costUsd ?? null) : null,
      finished_at: now,
      ...(result.outcome === 'succeeded' && result.sources?.length
        ? { sources: JSON.stringify(result.sources.slice(0, MAX_TURN_SOURCES)) }
        : {}),
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
    if (result.usage) {
      const costUsd = result.costUsd ?? null;
      Object.assign(changes, addUsage(held, result.usage, costUsd));
      await addProjectSpend(tx, {
        projectId: held.project_id,
        month: monthOf(new Date(now)),
        costUsd: costUsd ?? 0,
        unpricedTurns: costUsd === null ? 1 : 0,
      });
    }
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

/** The job's sums with one more turn's usage and estimate (or one more unpriced turn). */
function addUsage(job: JobRow, usage: TokenUsage, costUsd: number | null): JobUpdate {
  return {
    input_tokens: Number(job.input_tokens) + usage.inputTokens,
    output_tokens: Number(job.output_tokens) + usage.outputTokens,
    cost_usd: costUsd === null ? job.cost_usd : roundUsd((job.cost_usd ?? 0) + costUsd),
    unpriced_turns: job.unpriced_turns + (costUsd === null ? 1 : 0),
  };
}

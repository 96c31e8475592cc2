import type { Executor } from '../../../storage/queries/executor.ts';
import { findJob, insertJob, updateJobIfStatus } from '../../../storage/queries/jobs.ts';
import { insertMessages, nextMessageSeq } from '../../../storage/queries/messages.ts';
import { insertTurn, nextTurnSeq } from '../../../storage/queries/turns.ts';
import type { JobRow, MessageRow, TurnRow } from '../../../storage/schema.ts';
import { conflict, notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { StoredMessage } from '../conversation.ts';
import type { JobEventLog, JobEventRecorder } from '../job-events.ts';

/** A new job (its first turn), or a follow-up to an existing one. */
export type QueueTurnTarget = { newJob: JobRow } | { projectId: string; jobId: string };

/**
 * Queues a prompt as the job's next turn, in one transaction: inserts a new job, or re-opens
 * a completed or failed one (an archived job takes no more turns), then the pending turn and
 * the prompt as the conversation's next message, with their events. Returns the job as it
 * now is.
 */
export async function queueTurn(
  log: JobEventLog,
  target: QueueTurnTarget,
  prompt: string,
  now: string,
): Promise<JobRow> {
  return log.transaction(now, async (tx, events) => (await queueTurnIn(tx, events, target, prompt, now)).job);
}

/**
 * `queueTurn` inside the caller's transaction (of `JobEventLog.transaction`), for a change
 * that must commit with the turn (an automation's run). Returns the job and the queued turn.
 */
export async function queueTurnIn(
  tx: Executor,
  events: JobEventRecorder,
  target: QueueTurnTarget,
  prompt: string,
  now: string,
): Promise<{ job: JobRow; turn: TurnRow }> {
  let job: JobRow;
  let seq: number;
  if ('newJob' in target) {
    job = target.newJob;
    await insertJob(tx, job);
    seq = 1;
  } else {
    const { projectId, jobId } = target;
    const existing = await findJob(tx, projectId, jobId);
    if (!existing) throw notFound(`Job ${jobId} not found in project ${projectId}`);
    // Writing the job row first locks it against the worker and concurrent requests.
    const reopened = await updateJobIfStatus(tx, existing.id, ['active', 'completed', 'failed'], {
      status: 'active',
      failure_reason: null,
      updated_at: now,
    });
    if (!reopened) throw conflict(`Job ${jobId} is archived; an archived job takes no more messages`);
    job = reopened;
    seq = await nextTurnSeq(tx, jobId);
  }
  const turn: TurnRow = {
    id: newId('turn'),
    job_id: job.id,
    seq,
    prompt,
    model: null,
    status: 'pending',
    attempts: 0,
    error: null,
    summary: null,
    usage: null,
    cost_usd: null,
    created_at: now,
    started_at: null,
    finished_at: null,
    sources: null,
  };
  await insertTurn(tx, turn);
  const content: StoredMessage = { role: 'user', text: prompt };
  const message: MessageRow = {
    id: newId('msg'),
    job_id: job.id,
    turn_id: turn.id,
    seq: await nextMessageSeq(tx, job.id),
    role: 'user',
    content: JSON.stringify(content),
    created_at: now,
  };
  await insertMessages(tx, [message]);
  events.status(job);
  events.turn(job, 'queued', turn);
  events.message(job, seq, message);
  if ('newJob' in target) events.announce(job, 'job.created');
  return { job, turn };
}

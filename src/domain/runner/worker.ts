import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Config } from '../../config/config.ts';
import type { Storage } from '../../storage/database.ts';
import { claimJob, renewLease, updateLeasedJob } from '../../storage/queries/jobs.ts';
import { insertMessages, listMessages, nextMessageSeq } from '../../storage/queries/messages.ts';
import { findProject } from '../../storage/queries/projects.ts';
import {
  countOpenTurns,
  firstOpenTurn,
  listTurns,
  OPEN_TURN_STATUSES,
  updateTurnIfStatus,
} from '../../storage/queries/turns.ts';
import type { JobRow, JobUpdate, TurnRow } from '../../storage/schema.ts';
import type { Agent, AgentTurnResult } from '../agent/agent.ts';
import { type Clock, iso } from '../clock.ts';
import { newId, randomBase32 } from '../ids.ts';
import { type StoredMessage, toConversationMessage } from '../jobs/conversation.ts';
import type { WorkSignal } from './work-signal.ts';

export interface WorkerDeps {
  storage: Storage;
  agent: Agent;
  clock: Clock;
  logger: Logger;
  workSignal: WorkSignal;
  settings: Config['worker'];
}

interface Lease {
  jobId: string;
  owner: string;
}

interface RunningTurn {
  controller: AbortController;
  /** Why the turn is being stopped from outside, if it is. */
  stopReason: 'shutdown' | 'lease-lost' | null;
  turnId: string | null;
  done: Promise<void>;
}

const MAX_ERROR_LENGTH = 1000;

/**
 * Runs queued turns. A worker claims a whole job with a lease, so a job's turns run one
 * at a time and in order, and keeps the lease alive with a heartbeat while the agent
 * works. A job whose worker died is claimed again once its lease expires; every start of a
 * turn counts as an attempt, and after `maxAttempts` the turn fails with the reason.
 */
export class Worker {
  readonly id = `${hostname()}:${process.pid}:${randomBase32(6)}`;
  private running = false;
  private loop: Promise<void> | null = null;
  private readonly active = new Map<string, RunningTurn>();
  private readonly log: Logger;
  private readonly deps: WorkerDeps;

  constructor(deps: WorkerDeps) {
    this.deps = deps;
    this.log = deps.logger.child({ worker: this.id });
  }

  start(): void {
    if (this.loop) return;
    this.running = true;
    this.loop = this.runLoop();
    this.log.info({ concurrency: this.deps.settings.concurrency }, 'worker started');
  }

  /**
   * Stops taking turns, lets running ones finish within the grace period, then aborts and
   * releases the rest so another worker can take them without spending an attempt.
   */
  async stop(): Promise<void> {
    if (!this.loop) return;
    this.running = false;
    this.deps.workSignal.notify();
    await this.loop;
    this.loop = null;
    const all = Promise.all([...this.active.values()].map((run) => run.done));
    const graceMs = this.deps.settings.shutdownGraceSeconds * 1000;
    const finished = await Promise.race([all.then(() => true), sleep(graceMs).then(() => false)]);
    if (!finished) {
      this.log.warn({ running: this.active.size }, 'grace period over: releasing running turns');
      for (const run of this.active.values()) {
        run.stopReason = 'shutdown';
        run.controller.abort(new Error('Docwright worker is shutting down'));
      }
      // An agent that ignores the abort must not hold shutdown: release its job regardless.
      await Promise.race([all, sleep(5000)]);
      for (const [jobId, run] of this.active) await this.release({ jobId, owner: this.id }, run.turnId);
    }
    this.log.info('worker stopped');
  }

  /** Number of turns running now. */
  get busy(): number {
    return this.active.size;
  }

  private async runLoop(): Promise<void> {
    const { concurrency, pollIntervalMs } = this.deps.settings;
    while (this.running) {
      if (this.active.size >= concurrency) {
        await Promise.race([...this.active.values()].map((run) => run.done));
        continue;
      }
      let job: JobRow | undefined;
      try {
        job = await this.claim();
      } catch (error) {
        this.log.error({ err: error }, 'claiming work failed; retrying');
        await this.deps.workSignal.wait(pollIntervalMs);
        continue;
      }
      if (job) this.launch(job);
      else await this.deps.workSignal.wait(pollIntervalMs);
    }
  }

  private claim(): Promise<JobRow | undefined> {
    const now = this.deps.clock();
    return claimJob(this.deps.storage.db, this.deps.storage.dialect, {
      owner: this.id,
      now: iso(now),
      leaseUntil: this.leaseUntil(now),
    });
  }

  private leaseUntil(from: Date = this.deps.clock()): string {
    return iso(new Date(from.getTime() + this.deps.settings.leaseSeconds * 1000));
  }

  private launch(job: JobRow): void {
    const run: RunningTurn = {
      controller: new AbortController(),
      stopReason: null,
      turnId: null,
      done: Promise.resolve(),
    };
    this.active.set(job.id, run);
    run.done = this.process(job, run)
      .catch((error: unknown) => this.log.error({ err: error, jobId: job.id }, 'running a turn failed'))
      .finally(() => {
        this.active.delete(job.id);
        // The job may have more turns queued; look again now rather than at the next poll.
        this.deps.workSignal.notify();
      });
  }

  private async process(job: JobRow, run: RunningTurn): Promise<void> {
    const { storage, settings, clock } = this.deps;
    const lease: Lease = { jobId: job.id, owner: this.id };
    const turn = await firstOpenTurn(storage.db, job.id);
    if (!turn) {
      await this.settleWithoutTurns(lease);
      return;
    }
    if (turn.attempts >= settings.maxAttempts) {
      const cause = turn.error ?? 'its worker stopped or lost its lease';
      await this.finish(lease, turn, {
        outcome: 'failed',
        reason: `Turn ${turn.seq} was attempted ${turn.attempts} times without finishing (last: ${cause})`,
        usage: null,
        messages: [],
      });
      return;
    }
    const started = await updateTurnIfStatus(storage.db, turn.id, OPEN_TURN_STATUSES, {
      status: 'running',
      attempts: turn.attempts + 1,
      started_at: iso(clock()),
    });
    if (!started) {
      await this.release(lease, null);
      return;
    }
    run.turnId = started.id;
    const log = this.log.child({ jobId: job.id, turn: started.seq, attempt: started.attempts });
    log.info('turn started');

    const heartbeat = setInterval(() => this.heartbeat(lease, run), (settings.leaseSeconds * 1000) / 3);
    let result: AgentTurnResult | undefined;
    let thrown: unknown;
    try {
      result = await this.deps.agent.runTurn({
        job: {
          id: job.id,
          projectId: job.project_id,
          repository: job.repository,
          branch: job.branch,
          baseBranch: job.base_branch,
          model: job.model,
          prLink: job.pr_link,
        },
        project: await this.project(job.project_id),
        turn: { id: started.id, seq: started.seq, prompt: started.prompt, attempt: started.attempts },
        history: await this.history(job.id, started.id),
        signal: run.controller.signal,
      });
    } catch (error) {
      thrown = error;
    } finally {
      clearInterval(heartbeat);
    }

    if (run.stopReason === 'shutdown') {
      await this.release(lease, started.id);
      log.info('turn released for another worker');
    } else if (run.stopReason === 'lease-lost') {
      log.warn('turn abandoned: job archived or lease lost');
    } else if (thrown !== undefined || !result) {
      log.warn({ err: thrown }, 'turn raised an error');
      await this.retryLater(lease, started, thrown);
    } else {
      await this.finish(lease, started, result);
      log.info({ outcome: result.outcome }, 'turn finished');
    }
  }

  private async heartbeat(lease: Lease, run: RunningTurn): Promise<void> {
    try {
      const held = await renewLease(this.deps.storage.db, { ...lease, leaseUntil: this.leaseUntil() });
      if (!held && run.stopReason === null) {
        run.stopReason = 'lease-lost';
        run.controller.abort(new Error('The job was archived or its lease was lost'));
      }
    } catch (error) {
      // A passing database error: the lease may still be valid; try again at the next beat.
      this.log.warn({ err: error, jobId: lease.jobId }, 'heartbeat failed');
    }
  }

  private async project(projectId: string) {
    const project = await findProject(this.deps.storage.db, projectId);
    if (!project) throw new Error(`Project ${projectId} no longer exists`);
    return project;
  }

  private async history(jobId: string, currentTurnId: string) {
    const db = this.deps.storage.db;
    const [turns, messages] = await Promise.all([listTurns(db, jobId), listMessages(db, jobId)]);
    const seqByTurn = new Map(turns.map((t) => [t.id, t.seq]));
    return messages
      .filter((m) => m.turn_id !== currentTurnId)
      .map((m) => toConversationMessage(m, seqByTurn.get(m.turn_id) ?? 0));
  }

  /** Records a turn's outcome and, when it was the job's last open turn, the job's. */
  private async finish(lease: Lease, turn: TurnRow, result: AgentTurnResult): Promise<void> {
    await this.deps.storage.db.transaction().execute(async (tx) => {
      const now = iso(this.deps.clock());
      // Writing the job row first locks it and proves the lease is still ours.
      const held = await updateLeasedJob(tx, lease, { updated_at: now });
      if (held?.status !== 'active') return;
      const failed = result.outcome === 'failed';
      const recorded = await updateTurnIfStatus(tx, turn.id, OPEN_TURN_STATUSES, {
        status: failed ? 'failed' : 'succeeded',
        error: failed ? truncate(result.reason) : null,
        summary: failed ? null : result.summary,
        usage: result.usage ? JSON.stringify(result.usage) : null,
        finished_at: now,
      });
      if (!recorded) return;
      let seq = await nextMessageSeq(tx, lease.jobId);
      await insertMessages(
        tx,
        result.messages.map((message) => ({
          id: newId('msg'),
          job_id: lease.jobId,
          turn_id: turn.id,
          seq: seq++,
          role: message.role,
          content: JSON.stringify(message satisfies StoredMessage),
          created_at: now,
        })),
      );
      const changes: JobUpdate = { lease_owner: null, lease_expires_at: null };
      if (result.outcome === 'succeeded' && result.prLink) changes.pr_link = result.prLink;
      if ((await countOpenTurns(tx, lease.jobId)) === 0) {
        changes.status = failed ? 'failed' : 'completed';
        changes.failure_reason = failed ? truncate(result.reason) : null;
      }
      await updateLeasedJob(tx, lease, changes);
    });
  }

  /** An unexpected error: put the turn back with a backoff, or fail it when out of attempts. */
  private async retryLater(lease: Lease, turn: TurnRow, error: unknown): Promise<void> {
    const message = truncate(error instanceof Error ? error.message : String(error));
    if (turn.attempts >= this.deps.settings.maxAttempts) {
      await this.finish(lease, turn, {
        outcome: 'failed',
        reason: `Turn ${turn.seq} failed after ${turn.attempts} attempts: ${message}`,
        usage: null,
        messages: [],
      });
      return;
    }
    const backoffMs = Math.min(1000 * 2 ** (turn.attempts - 1), 30_000);
    await this.deps.storage.db.transaction().execute(async (tx) => {
      const held = await updateLeasedJob(tx, lease, { updated_at: iso(this.deps.clock()) });
      if (!held) return;
      await updateTurnIfStatus(tx, turn.id, ['running'], { status: 'pending', error: message });
      // An expired-looking lease with no owner is also a "not before": nobody claims it sooner.
      await updateLeasedJob(tx, lease, {
        lease_owner: null,
        lease_expires_at: iso(new Date(this.deps.clock().getTime() + backoffMs)),
      });
    });
  }

  /** Gives a job back untouched; a started turn does not count the attempt it did not finish. */
  private async release(lease: Lease, turnId: string | null): Promise<void> {
    await this.deps.storage.db.transaction().execute(async (tx) => {
      const held = await updateLeasedJob(tx, lease, { lease_owner: null, lease_expires_at: null });
      if (!held || turnId === null) return;
      const turn = (await listTurns(tx, lease.jobId)).find((t) => t.id === turnId);
      if (turn?.status === 'running') {
        await updateTurnIfStatus(tx, turnId, ['running'], {
          status: 'pending',
          attempts: Math.max(0, turn.attempts - 1),
        });
      }
    });
  }

  /** An active job with nothing left to run (should not happen) takes its last turn's outcome. */
  private async settleWithoutTurns(lease: Lease): Promise<void> {
    const turns = await listTurns(this.deps.storage.db, lease.jobId);
    const last = turns.at(-1);
    await updateLeasedJob(this.deps.storage.db, lease, {
      status: last?.status === 'failed' ? 'failed' : 'completed',
      failure_reason: last?.status === 'failed' ? last.error : null,
      lease_owner: null,
      lease_expires_at: null,
    });
  }
}

function truncate(text: string): string {
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
}

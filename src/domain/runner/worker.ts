import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Storage } from '../../storage/database.ts';
import { listRunSourcesOfJob } from '../../storage/queries/automation-runs.ts';
import { renewLease } from '../../storage/queries/jobs.ts';
import type { JobRow, TurnRow } from '../../storage/schema.ts';
import type { Agent, AgentMessage, AgentTurnResult, SourcePullRequest } from '../agent/agent.ts';
import { type Clock, iso } from '../clock.ts';
import { randomBase32 } from '../ids.ts';
import type { JobEventLog } from '../jobs/job-events.ts';
import { claimJob } from '../jobs/lifecycle/claim-job.ts';
import { finishTurn, type TurnOutcome } from '../jobs/lifecycle/finish-turn.ts';
import type { Lease } from '../jobs/lifecycle/lease.ts';
import { loadConversation } from '../jobs/lifecycle/load-conversation.ts';
import { recordStep } from '../jobs/lifecycle/record-step.ts';
import { releaseJob } from '../jobs/lifecycle/release-job.ts';
import { retryTurn } from '../jobs/lifecycle/retry-turn.ts';
import { startTurn } from '../jobs/lifecycle/start-turn.ts';
import type { WorkSignal } from '../jobs/work-signal.ts';

export interface WorkerDeps {
  storage: Storage;
  /** Writes each lifecycle step with its events. */
  events: JobEventLog;
  agent: Agent;
  clock: Clock;
  logger: Logger;
  workSignal: WorkSignal;
  settings: WorkerSettings;
  /** The model a turn runs on when its project names none (DOCWRIGHT_MODEL); null when unset. */
  defaultModel: string | null;
  /** The webhook sender: a worker process sends the outbox too, started and stopped with it. */
  webhooks?: { start(): void; stop(): Promise<void> };
  /** The automation scheduler: every worker process runs due schedule slots (each slot once overall). */
  scheduler?: { start(): void; stop(): Promise<void> };
}

export interface WorkerSettings {
  /** Turns run at once by this worker. */
  concurrency: number;
  leaseSeconds: number;
  /** Starts of one turn before it fails for good. */
  maxAttempts: number;
  pollIntervalMs: number;
  /** How long stop() lets running turns finish before releasing them. */
  shutdownGraceSeconds: number;
}

interface RunningTurn {
  controller: AbortController;
  /** Why the turn is being stopped from outside, if it is. */
  stopReason: 'shutdown' | 'lease-lost' | null;
  turnId: string | null;
  done: Promise<void>;
  /** The agent's progress, written as step events one after another. */
  steps: Promise<void>;
}

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
    this.deps.webhooks?.start();
    this.deps.scheduler?.start();
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
    await this.deps.scheduler?.stop();
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
      for (const [jobId, run] of this.active)
        await releaseJob(this.deps.events, { jobId, owner: this.id }, run.turnId, iso(this.deps.clock()));
    }
    await this.deps.webhooks?.stop();
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
    return claimJob(this.deps.storage, { owner: this.id, now: iso(now), leaseUntil: this.leaseUntil(now) });
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
      steps: Promise.resolve(),
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

  private async process(claimed: JobRow, run: RunningTurn): Promise<void> {
    const { storage, events, settings, clock } = this.deps;
    const lease: Lease = { jobId: claimed.id, owner: this.id };
    const start = await startTurn(events, lease, {
      maxAttempts: settings.maxAttempts,
      defaultModel: this.deps.defaultModel,
      now: iso(clock()),
    });
    if (start.kind === 'lost') {
      await releaseJob(events, lease, null, iso(clock()));
      return;
    }
    if (start.kind === 'settled') return;
    if (start.kind === 'exhausted') {
      const { turn } = start;
      const cause = turn.error ?? 'its worker stopped or lost its lease';
      await this.fail(
        lease,
        turn.id,
        `Turn ${turn.seq} was attempted ${turn.attempts} times without finishing (last: ${cause})`,
      );
      return;
    }
    const { job, turn, project } = start;
    run.turnId = turn.id;
    const log = this.log.child({ jobId: job.id, turn: turn.seq, attempt: turn.attempts });
    log.info({ model: job.model }, 'turn started');

    const heartbeat = setInterval(() => this.heartbeat(lease, run), (settings.leaseSeconds * 1000) / 3);
    let result: AgentTurnResult | undefined;
    let thrown: unknown;
    try {
      const { messages: history } = await loadConversation(storage.db, job.id, { withoutTurn: turn.id });
      const sources = (await listRunSourcesOfJob(storage.db, job.id, turn.seq)).map(
        (text) => JSON.parse(text) as SourcePullRequest,
      );
      result = await this.deps.agent.runTurn({
        job: {
          id: job.id,
          projectId: job.project_id,
          repository: job.repository,
          branch: job.branch,
          baseBranch: job.base_branch,
          model: job.model,
          prLink: job.pr_link,
          draft: job.draft === null ? null : job.draft === 1,
          sources,
        },
        project,
        turn: { id: turn.id, seq: turn.seq, prompt: turn.prompt, attempt: turn.attempts },
        history,
        signal: run.controller.signal,
        onProgress: (message) => this.recordProgress(lease, run, turn.seq, message),
      });
    } catch (error) {
      thrown = error;
    } finally {
      clearInterval(heartbeat);
    }
    // Steps still being written come before the turn's outcome.
    await run.steps;

    if (run.stopReason === 'shutdown') {
      await releaseJob(events, lease, turn.id, iso(clock()));
      log.info('turn released for another worker');
    } else if (run.stopReason === 'lease-lost') {
      log.warn('turn abandoned: job archived or lease lost');
    } else if (thrown !== undefined || !result) {
      log.warn({ err: thrown }, 'turn raised an error');
      await this.retryLater(lease, turn, thrown);
    } else {
      await finishTurn(events, lease, turn.id, result, iso(clock()));
      log.info({ outcome: result.outcome }, 'turn finished');
    }
  }

  /** Queues a step event behind the turn's earlier ones; a step that cannot be written is only logged. */
  private recordProgress(lease: Lease, run: RunningTurn, turnSeq: number, message: AgentMessage): void {
    run.steps = run.steps.then(async () => {
      if (run.stopReason !== null) return;
      try {
        await recordStep(this.deps.events, lease, turnSeq, message, iso(this.deps.clock()));
      } catch (error) {
        this.log.warn({ err: error, jobId: lease.jobId }, 'could not record a step of the turn');
      }
    });
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

  /** An unexpected error: put the turn back with a backoff, or fail it when out of attempts. */
  private async retryLater(lease: Lease, turn: TurnRow, error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    if (turn.attempts >= this.deps.settings.maxAttempts) {
      await this.fail(lease, turn.id, `Turn ${turn.seq} failed after ${turn.attempts} attempts: ${message}`);
      return;
    }
    const now = this.deps.clock();
    const backoffMs = Math.min(1000 * 2 ** (turn.attempts - 1), 30_000);
    await retryTurn(this.deps.events, lease, turn.id, message, {
      now: iso(now),
      notBefore: iso(new Date(now.getTime() + backoffMs)),
    });
  }

  private fail(lease: Lease, turnId: string, reason: string): Promise<void> {
    const result: TurnOutcome = { outcome: 'failed', reason, usage: null, messages: [] };
    return finishTurn(this.deps.events, lease, turnId, result, iso(this.deps.clock()));
  }
}

import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../src/app/services.ts';
import type { JobView } from '../../src/domain/jobs/job-view.ts';
import { Worker } from '../../src/domain/runner/worker.ts';
import { claimJob } from '../../src/storage/queries/jobs.ts';
import { firstOpenTurn, updateTurnIfStatus } from '../../src/storage/queries/turns.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { testBackend } from '../helpers/storage.ts';
import { PromptScriptedAgent } from '../helpers/test-agent.ts';

const FAST_WORKER = {
  DOCWRIGHT_POLL_INTERVAL_MS: '50',
  DOCWRIGHT_LEASE_SECONDS: '1',
  DOCWRIGHT_SHUTDOWN_GRACE_SECONDS: '5',
};

describe(`job runner on ${testBackend}`, () => {
  let t: TestApp;
  let worker: Worker | null = null;
  let agent: PromptScriptedAgent;

  afterEach(async () => {
    await worker?.stop();
    worker = null;
    await t?.close();
  });

  async function start(env: Record<string, string> = {}, options: { startWorker?: boolean } = {}) {
    agent = new PromptScriptedAgent();
    t = await startTestApp({ env: { ...FAST_WORKER, ...env }, agent });
    if (options.startWorker !== false) {
      worker = createWorker(t.services, pino({ level: 'silent' }));
      worker.start();
    }
  }

  const create = async (prompt: string) => {
    const project = await t.services.projects.get(t.project.id);
    return t.services.jobs.create(project, prompt);
  };
  const get = (id: string) => t.services.jobs.get(t.project.id, id);
  const waitFor = (id: string, status: JobView['status'], timeout = 10_000) =>
    expect.poll(async () => (await get(id)).status, { timeout, interval: 25 }).toBe(status);
  const turns = async (id: string) => (await t.services.jobs.conversation(t.project.id, id)).turns;

  /** A worker that claims the job, starts its turn, then vanishes without a heartbeat. */
  async function simulateDeadWorker(jobId: string, leaseMs: number) {
    const { db, dialect } = t.services.storage;
    const now = new Date();
    const claimed = await claimJob(db, dialect, {
      owner: 'dead-worker',
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
    });
    expect(claimed?.id).toBe(jobId);
    const turn = await firstOpenTurn(db, jobId);
    await updateTurnIfStatus(db, turn?.id ?? '', ['pending'], { status: 'running', attempts: 1 });
  }

  it('runs a turn to completed, with the agent messages and usage stored in order', async () => {
    await start();
    const job = await create('pr: add a page');
    await waitFor(job.id, 'completed');
    const done = await get(job.id);
    expect(done.prLink).toBe(`https://example.com/pr/${job.id}`);
    expect(done.failureReason).toBeNull();
    const conversation = await t.services.jobs.conversation(t.project.id, job.id);
    expect(conversation.turns).toEqual([
      expect.objectContaining({
        turn: 1,
        status: 'succeeded',
        attempts: 1,
        // No model is configured here, so no price: the cost is unknown (null), not 0.
        usage: { inputTokens: 10, outputTokens: 1, cachedInputTokens: 0, costUsd: null },
      }),
    ]);
    expect(done.usage).toEqual({ inputTokens: 10, outputTokens: 1, costUsd: null, unpricedTurns: 1 });
    expect(conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(conversation.messages[2]?.tool).toEqual({
      name: 'read_file',
      input: { path: 'index.mdx' },
      output: '# Hello',
    });
  });

  it('completes with a null prLink when nothing changed', async () => {
    await start();
    const job = await create('What does the webhooks page say?');
    await waitFor(job.id, 'completed');
    expect((await get(job.id)).prLink).toBeNull();
  });

  it('fails with the agent reason, and a follow-up makes the job active again', async () => {
    await start();
    const job = await create('fail:the repository could not be cloned');
    await waitFor(job.id, 'failed');
    expect((await get(job.id)).failureReason).toBe('the repository could not be cloned');

    const reopened = await t.services.jobs.message(t.project.id, job.id, 'try again');
    expect(reopened.status).toBe('active');
    expect(reopened.failureReason).toBeNull();
    await waitFor(job.id, 'completed');
    expect((await turns(job.id)).map((x) => x.status)).toEqual(['failed', 'succeeded']);
  });

  it('queues a follow-up behind the running turn and runs turns one at a time, in order', async () => {
    await start({ DOCWRIGHT_WORKER_CONCURRENCY: '4' });
    const job = await create('sleep:300 first');
    await expect.poll(async () => (await turns(job.id))[0]?.status).toBe('running');
    await t.services.jobs.message(t.project.id, job.id, 'sleep:50 second');
    await t.services.jobs.message(t.project.id, job.id, 'pr: third');
    expect((await get(job.id)).status).toBe('active');
    await waitFor(job.id, 'completed');

    const calls = agent.calls.filter((c) => c.job.id === job.id);
    expect(calls.map((c) => c.turn.seq)).toEqual([1, 2, 3]);
    // Each later turn sees the conversation of the earlier ones.
    expect(calls[2]?.history.filter((m) => m.role === 'user').map((m) => m.text)).toEqual([
      'sleep:300 first',
      'sleep:50 second',
    ]);
    const finished = await turns(job.id);
    for (let i = 1; i < finished.length; i++) {
      expect(Date.parse(finished[i]?.startedAt ?? '')).toBeGreaterThanOrEqual(
        Date.parse(finished[i - 1]?.finishedAt ?? ''),
      );
    }
    expect((await get(job.id)).prLink).toBe(`https://example.com/pr/${job.id}`);
  });

  it('archive stops a running turn and cancels pending ones', async () => {
    await start();
    const job = await create('hang until archived');
    await t.services.jobs.message(t.project.id, job.id, 'never runs');
    await expect.poll(() => agent.calls.some((c) => c.job.id === job.id)).toBe(true);
    const call = agent.calls.find((c) => c.job.id === job.id);
    const archived = await t.services.jobs.archive(t.project.id, job.id);
    expect(archived.status).toBe('archived');
    // The heartbeat notices within a third of the lease and aborts the agent.
    await expect.poll(() => call?.signal.aborted, { timeout: 3000 }).toBe(true);
    await expect.poll(() => worker?.busy, { timeout: 3000 }).toBe(0);
    expect((await turns(job.id)).map((x) => x.status)).toEqual(['cancelled', 'cancelled']);
    expect((await get(job.id)).status).toBe('archived');
    expect(agent.calls.filter((c) => c.job.id === job.id)).toHaveLength(1);
  });

  it('retries a turn that raised an error, then fails the job once attempts run out', async () => {
    await start({ DOCWRIGHT_MAX_ATTEMPTS: '2' });
    const job = await create('throw:socket hang up');
    await waitFor(job.id, 'failed', 15_000);
    const failed = await get(job.id);
    expect(failed.failureReason).toMatch(/failed after 2 attempts: socket hang up/);
    expect(agent.calls.filter((c) => c.job.id === job.id).map((c) => c.turn.attempt)).toEqual([1, 2]);
  });

  it('reclaims a turn whose worker died once the lease expires, counting the attempt', async () => {
    await start({}, { startWorker: false });
    const job = await create('after a crash');
    await simulateDeadWorker(job.id, 700);

    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(agent.calls).toHaveLength(0); // the lease still holds
    await waitFor(job.id, 'completed');
    expect(agent.calls.map((c) => c.turn.attempt)).toEqual([2]);
    expect((await turns(job.id))[0]?.attempts).toBe(2);
  });

  it('fails a turn abandoned more often than the attempt limit', async () => {
    await start({ DOCWRIGHT_MAX_ATTEMPTS: '1' }, { startWorker: false });
    const job = await create('abandoned');
    await simulateDeadWorker(job.id, 100);
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    await waitFor(job.id, 'failed');
    expect((await get(job.id)).failureReason).toMatch(/attempted 1 times without finishing/);
    expect(agent.calls).toHaveLength(0);
  });

  it('on shutdown lets a running turn finish within the grace period', async () => {
    await start();
    const job = await create('sleep:400 short work');
    await expect.poll(async () => (await turns(job.id))[0]?.status).toBe('running');
    await worker?.stop();
    worker = null;
    expect((await get(job.id)).status).toBe('completed');
  });

  it('after the grace period releases the turn for another worker without spending an attempt', async () => {
    await start({ DOCWRIGHT_SHUTDOWN_GRACE_SECONDS: '0.2' });
    const job = await create('hang-once long work');
    await expect.poll(async () => (await turns(job.id))[0]?.status).toBe('running');
    await worker?.stop();
    worker = null;
    const released = (await turns(job.id))[0];
    expect(released?.status).toBe('pending');
    expect(released?.attempts).toBe(0);
    expect((await get(job.id)).status).toBe('active');

    // The next worker starts the turn as a first attempt again (here with an agent that finishes).
    const next = new PromptScriptedAgent();
    next.runTurn = async (input) => ({
      outcome: 'succeeded',
      summary: `attempt ${input.turn.attempt}`,
      changedFiles: [],
      prLink: null,
      usage: null,
      messages: [],
    });
    worker = new Worker({
      storage: t.services.storage,
      events: t.services.jobEvents,
      agent: next,
      clock: t.services.clock,
      logger: pino({ level: 'silent' }),
      workSignal: t.services.workSignal,
      defaultModel: null,
      modelPrices: t.services.config.modelPrices,
      settings: t.services.config.worker,
    });
    worker.start();
    await waitFor(job.id, 'completed');
    expect((await turns(job.id))[0]).toMatchObject({ attempts: 1, summary: 'attempt 1' });
  });

  it('without a configured model fails promptly and says how to configure one', async () => {
    // The agent the server builds by default, with no DOCWRIGHT_MODEL set.
    t = await startTestApp({ env: FAST_WORKER });
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    const job = await create('Add a changelog page');
    expect(job.model).toBeNull();
    await waitFor(job.id, 'failed', 2000);
    expect((await get(job.id)).failureReason).toMatch(/No model configured: set DOCWRIGHT_MODEL/);
  });
});

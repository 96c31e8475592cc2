import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../../src/app/services.ts';
import type { Automation } from '../../../src/domain/automations/automation.ts';
import type { AutomationRunView } from '../../../src/domain/automations/run-view.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import { PromptScriptedAgent } from '../../helpers/test-agent.ts';

const ENV = {
  DOCWRIGHT_POLL_INTERVAL_MS: '30',
  DOCWRIGHT_LEASE_SECONDS: '2',
  DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=',
};

describe(`automation runs through startRun (${testBackend})`, () => {
  let t: TestApp;
  let agent: PromptScriptedAgent;
  let worker: Worker | null;

  beforeEach(async () => {
    agent = new PromptScriptedAgent();
    t = await startTestApp({ env: ENV, agent });
    worker = null;
  });
  afterEach(async () => {
    await worker?.stop();
    await t?.close();
  });

  const startWorker = () => {
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
  };
  const automation = async (input: {
    instructions: string;
    trigger?: { kind: string } & Record<string, unknown>;
    draft?: boolean;
    maxRunsPerDay?: number;
  }): Promise<Automation> => {
    const created = await t.services.automations.create(t.project.id, {
      name: 'Follow the API',
      trigger: input.trigger ?? { kind: 'manual' },
      instructions: input.instructions,
      ...(input.draft !== undefined ? { draft: input.draft } : {}),
      ...(input.maxRunsPerDay !== undefined ? { maxRunsPerDay: input.maxRunsPerDay } : {}),
    });
    return t.services.automations.find(t.project.id, created.id);
  };
  const runs = async (id: string) =>
    (await t.services.automations.runs(t.project.id, id, { limit: 50 })).runs;
  const settled = (id: string, count: number) =>
    expect
      .poll(async () => (await runs(id)).filter((r) => !['queued', 'running'].includes(r.status)).length, {
        timeout: 10_000,
        interval: 30,
      })
      .toBe(count);
  const runCompletedBodies = async () =>
    (
      await t.services.storage.db
        .selectFrom('webhook_deliveries')
        .select('body')
        .where('type', '=', 'automation.run_completed')
        .orderBy('created_at')
        .execute()
    ).map((r) => JSON.parse(r.body) as { data: { automation: { id: string }; run: AutomationRunView } });

  it('a run whose job makes no pull request is "no change needed", with the answer, announced by webhook', async () => {
    await t.services.webhooks.create(t.project.id, {
      url: 'https://hooks.example.com/in',
      events: ['automation.run_completed'],
    });
    const a = await automation({ instructions: 'Check the changelog against the release notes' });
    const started = await t.services.automations.startRun(a, {
      kind: 'manual',
      dedupeKey: null,
      context: 'Release 2.0 is out',
    });
    expect(started.status).toBe('started');
    expect(started.run).toMatchObject({ status: 'queued', trigger: 'manual', jobId: started.jobId });
    startWorker();
    await settled(a.id, 1);
    const [run] = await runs(a.id);
    expect(run).toMatchObject({ status: 'no_change', prLink: null, jobId: started.jobId, followUp: false });
    expect(run?.reason).toMatch(/^did: Check the changelog/);
    const prompt = agent.calls[0]?.turn.prompt ?? '';
    expect(prompt).toContain('Check the changelog against the release notes');
    expect(prompt).toContain('Context:\nRelease 2.0 is out');
    expect(prompt).toMatch(/answer that no change is needed and why/);
    // The webhook event was written with the run's outcome.
    const bodies = await runCompletedBodies();
    expect(bodies).toHaveLength(1);
    expect(bodies[0]?.data.automation.id).toBe(a.id);
    expect(bodies[0]?.data.run).toMatchObject({ id: run?.id, status: 'no_change' });
  });

  it('while its pull request is open, a later run adds a turn to the same job and lists every source PR', async () => {
    const a = await automation({
      instructions: 'pr document what the pull request changed',
      trigger: { kind: 'code_change', provider: 'github', repository: 'acme/api' },
      draft: false,
    });
    const source = (n: number) => ({
      url: `https://github.com/acme/api/pull/${n}`,
      title: `Change ${n}`,
      number: n,
      author: 'octocat',
    });
    startWorker();
    const first = await t.services.automations.startRun(a, {
      kind: 'code_change',
      dedupeKey: 'pr:1:abc',
      context: 'Adds an endpoint',
      source: source(1),
    });
    await settled(a.id, 1);
    const second = await t.services.automations.startRun(a, {
      kind: 'code_change',
      dedupeKey: 'pr:2:def',
      context: 'Renames a field',
      source: source(2),
    });
    expect(second).toMatchObject({ status: 'followed_up', jobId: first.jobId });
    await settled(a.id, 2);
    const listed = await runs(a.id);
    expect(listed.map((r) => [r.status, r.followUp, r.source?.number])).toEqual([
      ['completed', true, 2],
      ['completed', false, 1],
    ]);
    expect(listed[0]?.prLink).toBe(`https://example.com/pr/${first.jobId}`);
    // Each run shows its own turn's tokens (the scripted agent reports 10·n in and n out for
    // turn n): the follow-up run does not count the first run's turn.
    expect(first.run.usage).toBeNull();
    expect(listed.map((r) => [r.usage?.inputTokens, r.usage?.outputTokens])).toEqual([
      [20, 2],
      [10, 1],
    ]);
    const { turns } = await t.services.jobs.conversation(t.project.id, first.jobId as string);
    expect(listed.map((r) => r.usage?.costUsd)).toEqual([turns[1]?.usage?.costUsd, turns[0]?.usage?.costUsd]);
    // The agent was told the job's draft choice and, each turn, the sources covered so far.
    expect(agent.calls.map((c) => [c.job.id, c.job.draft, c.job.sources?.map((s) => s.number)])).toEqual([
      [first.jobId, false, [1]],
      [first.jobId, false, [1, 2]],
    ]);
    expect(agent.calls[1]?.turn.prompt).toMatch(/adds to the documentation pull request/);
    // Once the job is archived, the next run starts a new job.
    await t.services.jobs.archive(t.project.id, first.jobId as string);
    const third = await t.services.automations.startRun(a, {
      kind: 'code_change',
      dedupeKey: 'pr:3:ghi',
      context: '',
      source: source(3),
    });
    expect(third.status).toBe('started');
    expect(third.jobId).not.toBe(first.jobId);
  });

  it('a redelivered trigger (same dedupe key) starts nothing and returns the first run', async () => {
    const a = await automation({ instructions: 'Update the docs' });
    const trigger = { kind: 'manual' as const, dedupeKey: 'delivery-42', context: '' };
    const [one, two] = await Promise.all([
      t.services.automations.startRun(a, trigger),
      t.services.automations.startRun(a, trigger),
    ]);
    expect([one?.status, two?.status].sort()).toEqual(['duplicate', 'started']);
    expect(one?.run.id).toBe(two?.run.id);
    expect(one?.jobId).toBe(two?.jobId);
    expect(await runs(a.id)).toHaveLength(1);
    expect((await t.services.jobs.list(t.project.id, { limit: 10 })).jobs).toHaveLength(1);
  });

  it('over the daily limit a run is recorded as rate limited and starts no job', async () => {
    const a = await automation({ instructions: 'Update the docs', maxRunsPerDay: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(
        (await t.services.automations.startRun(a, { kind: 'manual', dedupeKey: null, context: '' })).status,
      );
    }
    expect(statuses).toEqual(['started', 'followed_up', 'rate_limited']);
    const [latest] = await runs(a.id);
    expect(latest).toMatchObject({ status: 'rate_limited', jobId: null });
    expect(latest?.reason).toMatch(/daily limit: 2 runs/);
  });

  it('archiving the job before the run ends fails the run', async () => {
    const a = await automation({ instructions: 'Update the docs' });
    const started = await t.services.automations.startRun(a, {
      kind: 'manual',
      dedupeKey: null,
      context: '',
    });
    await t.services.jobs.archive(t.project.id, started.jobId as string);
    const [run] = await runs(a.id);
    expect(run).toMatchObject({ status: 'failed', reason: 'The job was archived before the run finished' });
  });

  it('a new job opens its pull request as the automation says, whatever the project setting', async () => {
    const a = await automation({ instructions: 'pr Update the docs', draft: true });
    const started = await t.services.automations.startRun(a, {
      kind: 'manual',
      dedupeKey: null,
      context: '',
    });
    const row = await t.services.storage.db
      .selectFrom('jobs')
      .select('draft')
      .where('id', '=', started.jobId as string)
      .executeTakeFirstOrThrow();
    expect(row.draft).toBe(1);
    // A job created through the jobs API follows the project (null).
    const plain = await t.services.jobs.create(await t.services.projects.get(t.project.id), 'Add a page');
    const plainRow = await t.services.storage.db
      .selectFrom('jobs')
      .select('draft')
      .where('id', '=', plain.id)
      .executeTakeFirstOrThrow();
    expect(plainRow.draft).toBeNull();
  });
});

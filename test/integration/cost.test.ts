import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createDocumentationAgent } from '../../src/app/create-agent.ts';
import { createWorker } from '../../src/app/services.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { JobView } from '../../src/domain/jobs/job-view.ts';
import type { Worker } from '../../src/domain/runner/worker.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { signIn } from '../helpers/dashboard-session.ts';
import { git } from '../helpers/git-repos.ts';
import {
  type ScriptedOpenAIServer,
  type ScriptStep,
  startScriptedOpenAIServer,
} from '../helpers/scripted-openai-server.ts';
import { testBackend } from '../helpers/storage.ts';
import { eventually, startWebhookReceiver } from '../helpers/webhook-receiver.ts';

const EXAMPLE_SITE = fileURLToPath(new URL('../../examples/docs-site', import.meta.url));
const MODEL = 'openai-compatible:test-model';
/** USD per million tokens of the test model, given as an override of the shipped table. */
const PRICES = { [MODEL]: { input: 2, cachedInput: 0.5, output: 8 } };

/**
 * One turn that answers without changing anything, in one model call reporting 1,000,000 input
 * tokens (400,000 of them cached) and 100,000 output tokens: 600,000 × $2 + 400,000 × $0.50 +
 * 100,000 × $8 per million = $2.20 at PRICES.
 */
const answerTurn = (summary = 'Nothing to change.'): ScriptStep => ({
  toolCalls: [{ name: 'finish', arguments: { summary } }],
  usage: { promptTokens: 1_000_000, completionTokens: 100_000, cachedTokens: 400_000 },
});

interface Turn {
  status: string;
  attempts: number;
  usage: {
    inputTokens: number;
    outputTokens: number;
    cachedInputTokens: number;
    costUsd: number | null;
  } | null;
}

describe(`estimated cost and monthly budgets, on ${testBackend}`, { timeout: 60_000 }, () => {
  let t: TestApp;
  let model: ScriptedOpenAIServer;
  let worker: Worker | null = null;
  const cleanup: Array<() => Promise<void> | void> = [];

  afterEach(async () => {
    await worker?.stop();
    worker = null;
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function start(env: Record<string, string> = {}) {
    model = await startScriptedOpenAIServer([], { apiKey: 'sk-test-key' });
    cleanup.push(() => model.close());
    const repo = mkdtempSync(path.join(tmpdir(), 'docwright-cost-repo-'));
    const dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-cost-data-'));
    cleanup.push(() => {
      rmSync(repo, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    });
    cpSync(EXAMPLE_SITE, repo, { recursive: true });
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'add', '--all');
    git(repo, '-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'Docs');
    const settings = {
      DOCWRIGHT_MODEL: MODEL,
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
      DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: 'sk-test-key',
      DOCWRIGHT_MODEL_PRICES: JSON.stringify(PRICES),
      DOCWRIGHT_POLL_INTERVAL_MS: '50',
      DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=',
      DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: 'true',
      ...env,
    };
    const config = loadConfig({ ...settings, DOCWRIGHT_DATA_DIR: dataDir });
    const agent = createDocumentationAgent(config, pino({ level: 'silent' }), { secretBox: null });
    t = await startTestApp({ env: settings, agent });
    cleanup.push(() => t.close());
    await t.services.projects.relocate(t.project.id, { repository: repo });
  }

  const startWorker = (services = t.services) => {
    worker = createWorker(services, pino({ level: 'silent' }));
    worker.start();
  };
  const api = async <T>(method: string, url: string, body?: unknown) => {
    const response = await t.request(method, `/v2/agent/${t.project.id}${url}`, { body });
    return { status: response.status, body: (await response.json()) as T };
  };
  const waitForJob = async (id: string, status: JobView['status']) => {
    let job: JobView | undefined;
    await expect
      .poll(
        async () => {
          job = (await api<JobView>('GET', `/job/${id}`)).body;
          return job.status;
        },
        { timeout: 20_000, interval: 50 },
      )
      .toBe(status);
    return job as JobView;
  };
  const turnsOf = async (id: string) =>
    (await api<{ turns: Turn[] }>('GET', `/job/${id}/messages`)).body.turns;

  it('estimates each turn when it is recorded and shows the sums on the job, the list, the stream and webhooks', async () => {
    await start();
    const receiver = await startWebhookReceiver();
    cleanup.push(receiver.close);
    const endpoint = await api<{ id: string; secret: string }>('POST', '/webhooks', {
      url: receiver.url(),
      events: ['job.completed'],
    });
    expect(endpoint.status).toBe(201);
    receiver.verifyWith(endpoint.body.secret);

    model.push(answerTurn());
    const created = await api<JobView>('POST', '/job', { prompt: 'Is the quickstart up to date?' });
    expect(created.status).toBe(201);
    // Nothing is recorded before a turn ends: 0 tokens, and a known cost of 0.
    expect(created.body.usage).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0, unpricedTurns: 0 });
    startWorker();
    const job = await waitForJob(created.body.id, 'completed');
    expect(job.usage).toEqual({
      inputTokens: 1_000_000,
      outputTokens: 100_000,
      costUsd: 2.2,
      unpricedTurns: 0,
    });
    expect((await turnsOf(job.id))[0]?.usage).toEqual({
      inputTokens: 1_000_000,
      outputTokens: 100_000,
      cachedInputTokens: 400_000,
      costUsd: 2.2,
    });

    // The list shows the same job view.
    const list = await api<{ jobs: JobView[] }>('GET', '/jobs');
    expect(list.body.jobs.find((j) => j.id === job.id)?.usage).toEqual(job.usage);

    // The webhook's data.job is the job view, usage included.
    const { webhookDispatcher } = t.services;
    webhookDispatcher.start();
    cleanup.push(() => webhookDispatcher.stop());
    const delivery = await eventually(() => receiver.received.find((d) => d.json.type === 'job.completed'));
    expect(delivery.verified).toBe(true);
    expect((delivery.json.data.job as JobView).usage).toEqual(job.usage);

    // The event stream's last status event is the job view too.
    const stream = await t.request('GET', `/v2/agent/${t.project.id}/job/${job.id}/events`, {
      headers: { accept: 'text/event-stream' },
    });
    const reader = stream.body?.getReader();
    let text = '';
    while (!text.includes('"status":"completed"') && reader) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    await reader?.cancel();
    const completed = text
      .split('\n\n')
      .filter((frame) => frame.includes('event: status'))
      .map((frame) => JSON.parse(frame.split('\ndata: ')[1] ?? 'null') as JobView)
      .find((view) => view.status === 'completed');
    expect(completed?.usage).toEqual(job.usage);

    // A later price change does not rewrite the recorded turn: a worker with new prices
    // estimates the next turn at them, and the job sums both.
    await worker?.stop();
    const repriced = new Map(t.services.config.modelPrices);
    repriced.set(MODEL, { input: 4, output: 16 });
    startWorker({ ...t.services, config: { ...t.services.config, modelPrices: repriced } });
    model.push(answerTurn());
    expect((await api('POST', `/job/${job.id}/message`, { prompt: 'And the API reference?' })).status).toBe(
      200,
    );
    const again = await waitForJob(job.id, 'completed');
    const turns = await turnsOf(job.id);
    expect(turns.map((turn) => turn.usage?.costUsd)).toEqual([2.2, 5.6]);
    expect(again.usage).toEqual({
      inputTokens: 2_000_000,
      outputTokens: 200_000,
      costUsd: 7.8,
      unpricedTurns: 0,
    });
  });

  it('shows an unknown cost as null, not 0, for a model without a price', async () => {
    await start();
    await t.services.projectSettings.update(t.project.id, { model: 'openai-compatible:unpriced-model' });
    model.push(answerTurn());
    const created = await api<JobView>('POST', '/job', { prompt: 'Check the links' });
    startWorker();
    const job = await waitForJob(created.body.id, 'completed');
    expect(job.model).toBe('openai-compatible:unpriced-model');
    expect(job.usage).toEqual({
      inputTokens: 1_000_000,
      outputTokens: 100_000,
      costUsd: null,
      unpricedTurns: 1,
    });
    expect((await turnsOf(job.id))[0]?.usage?.costUsd).toBeNull();

    // A priced turn later: costUsd is what is known, unpricedTurns says what it leaves out.
    await t.services.projectSettings.update(t.project.id, { model: null });
    model.push(answerTurn());
    await api('POST', `/job/${job.id}/message`, { prompt: 'Again' });
    const again = await waitForJob(job.id, 'completed');
    expect(again.usage).toEqual({
      inputTokens: 2_000_000,
      outputTokens: 200_000,
      costUsd: 2.2,
      unpricedTurns: 1,
    });
  });

  it('once the monthly budget is spent, refuses new jobs and messages with 402 and fails queued turns', async () => {
    await start();
    const admin = await signIn(t, { role: 'admin' });
    const settingsUrl = `/dashboard/api/projects/${t.project.id}/settings`;
    const setBudget = async (monthlyBudgetUsd: number | null) => {
      const response = await admin.request('PATCH', settingsUrl, { body: { agent: { monthlyBudgetUsd } } });
      expect(response.status).toBe(200);
      return (await response.json()) as {
        agent: { monthlyBudgetUsd: number | null };
        spend: {
          month: string;
          budgetUsd: number | null;
          spentUsd: number;
          budgetSpent: boolean;
          resetsOn: string;
        };
      };
    };
    const month = new Date().toISOString().slice(0, 7);
    expect((await setBudget(3)).spend).toMatchObject({
      month,
      budgetUsd: 3,
      spentUsd: 0,
      budgetSpent: false,
    });

    model.push(answerTurn());
    const first = await api<JobView>('POST', '/job', { prompt: 'First' });
    expect(first.status).toBe(201);
    startWorker();
    await waitForJob(first.body.id, 'completed');

    // $2.20 of $3 spent: a follow-up is still accepted; it is queued while no worker runs, and
    // the budget is lowered before it starts.
    await worker?.stop();
    worker = null;
    expect((await api('POST', `/job/${first.body.id}/message`, { prompt: 'Second' })).status).toBe(200);
    const lowered = await setBudget(2);
    expect(lowered.agent.monthlyBudgetUsd).toBe(2);
    expect(lowered.spend).toMatchObject({ month, budgetUsd: 2, spentUsd: 2.2, budgetSpent: true });
    const reason = `Monthly budget of $2.00 for this project is spent ($2.20 used in ${month}, UTC); raise it in Settings or wait until ${lowered.spend.resetsOn} (UTC)`;

    startWorker();
    const failed = await waitForJob(first.body.id, 'failed');
    expect(failed.failureReason).toBe(reason);
    const turns = await turnsOf(first.body.id);
    // The refused turn never started: no attempt, no model call.
    expect(turns[1]).toMatchObject({ status: 'failed', attempts: 0, usage: null });
    expect(model.requests).toHaveLength(1);

    // Over HTTP, nothing more is queued: 402 with the same reason.
    const refused = await api<{ error: string }>('POST', '/job', { prompt: 'Third' });
    expect(refused).toMatchObject({ status: 402, body: { error: reason } });
    const refusedMessage = await api<{ error: string }>('POST', `/job/${first.body.id}/message`, {
      prompt: 'Fourth',
    });
    expect(refusedMessage).toMatchObject({ status: 402, body: { error: reason } });
    expect((await api<{ jobs: JobView[] }>('GET', '/jobs')).body.jobs).toHaveLength(1);

    // Raising the budget (or removing it) lets work through again.
    await setBudget(null);
    model.push(answerTurn());
    expect((await api('POST', `/job/${first.body.id}/message`, { prompt: 'Fifth' })).status).toBe(200);
    await waitForJob(first.body.id, 'completed');
  });

  it('refuses a budget that is not a non-negative number of dollars, naming the field', async () => {
    await start();
    const admin = await signIn(t, { role: 'admin' });
    const url = `/dashboard/api/projects/${t.project.id}/settings`;
    for (const monthlyBudgetUsd of [-1, '5', 2_000_000_000]) {
      const response = await admin.request('PATCH', url, { body: { agent: { monthlyBudgetUsd } } });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toContain('monthlyBudgetUsd');
    }
    const viewer = await signIn(t, { role: 'viewer' });
    expect((await viewer.request('PATCH', url, { body: { agent: { monthlyBudgetUsd: 5 } } })).status).toBe(
      403,
    );
    const rounded = await admin.request('PATCH', url, { body: { agent: { monthlyBudgetUsd: 12.345 } } });
    expect(((await rounded.json()) as { agent: { monthlyBudgetUsd: number } }).agent.monthlyBudgetUsd).toBe(
      12.35,
    );
  });
});

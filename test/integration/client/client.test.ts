import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../../src/app/services.ts';
import {
  createClient,
  DocwrightApiError,
  DocwrightTimeoutError,
  type PageViewEvent,
} from '../../../src/client/index.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import { PromptScriptedAgent } from '../../helpers/test-agent.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe(`docwright/client against a running app on ${testBackend}`, () => {
  let t: TestApp;
  let worker: Worker | null = null;
  afterEach(async () => {
    await worker?.stop();
    worker = null;
    // fetch may leave a spare connection that never sends a request; the server would wait
    // for it until its headers timeout.
    t?.app.server.closeAllConnections();
    await t?.close();
  });

  /** The app, a worker with the scripted agent, and a client that records the URLs it fetches. */
  async function start(options: { worker?: boolean; fetch?: typeof fetch } = {}) {
    t = await startTestApp({ agent: new PromptScriptedAgent(), env: { DOCWRIGHT_POLL_INTERVAL_MS: '50' } });
    const startWorker = () => {
      worker = createWorker(t.services, pino({ level: 'silent' }));
      worker.start();
    };
    if (options.worker !== false) startWorker();
    const fetched: string[] = [];
    const inner = options.fetch ?? fetch;
    const client = createClient({
      baseUrl: `${t.baseUrl}/`,
      apiKey: t.key,
      fetch: (input, init) => {
        const request = new Request(input, init);
        fetched.push(`${request.method} ${new URL(request.url).pathname}`);
        return inner(request);
      },
    });
    return { client, fetched, p: t.project.id, startWorker };
  }

  async function apiError(promise: Promise<unknown>): Promise<DocwrightApiError> {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DocwrightApiError);
    return error as DocwrightApiError;
  }

  it('creates, reads, lists, follows up and archives jobs, and reads the conversation', async () => {
    const { client, p } = await start();
    const created = await client.jobs.create(p, 'Document the rate limits');
    expect(created).toMatchObject({ status: 'active', prLink: null });
    expect(await client.jobs.get(p, created.id)).toMatchObject({ id: created.id });

    const done = await client.waitForJob(p, created.id, { timeout: 20_000 });
    expect(done.status).toBe('completed');
    const again = await client.jobs.followUp(p, created.id, 'pr: and link it');
    expect(again.status).toBe('active');
    const finished = await client.waitForJob(p, created.id, { timeout: 20_000 });
    expect(finished).toMatchObject({ status: 'completed', prLink: `https://example.com/pr/${created.id}` });

    const conversation = await client.jobs.conversation(p, created.id);
    expect(conversation.turns.map((turn) => [turn.turn, turn.prompt, turn.status])).toEqual([
      [1, 'Document the rate limits', 'succeeded'],
      [2, 'pr: and link it', 'succeeded'],
    ]);
    expect(conversation.messages.filter((m) => m.role === 'user').map((m) => m.text)).toEqual([
      'Document the rate limits',
      'pr: and link it',
    ]);

    expect((await client.jobs.list(p, { status: 'completed' })).jobs.map((j) => j.id)).toEqual([created.id]);
    const second = await client.jobs.create(p, 'A second page');
    const firstPage = await client.jobs.list(p, { limit: 1 });
    expect(firstPage.jobs.map((j) => j.id)).toEqual([second.id]);
    expect(firstPage.nextCursor).toEqual(expect.any(String));
    const rest = await client.jobs.list(p, { limit: 1, cursor: firstPage.nextCursor ?? '' });
    expect(rest).toEqual({ jobs: [expect.objectContaining({ id: created.id })], nextCursor: null });

    const archived = await client.jobs.archive(p, second.id);
    expect(archived).toMatchObject({ id: second.id, status: 'archived' });
  }, 60_000);

  it('waitForJob follows the event stream and resolves when the job finishes', async () => {
    const { client, fetched, p, startWorker } = await start({ worker: false });
    const job = await client.jobs.create(p, 'sleep:200 then finish');
    fetched.length = 0;
    const waiting = client.waitForJob(p, job.id, { timeout: 20_000, pollIntervalMs: 60_000 });
    // The job runs only once the client waits on its stream.
    await expect.poll(() => fetched).toEqual([`GET /v2/agent/${p}/job/${job.id}/events`]);
    startWorker();
    expect(await waiting).toMatchObject({ id: job.id, status: 'completed' });
    // One stream, and no poll of the job (a poll would have waited a minute).
    expect(fetched).toEqual([`GET /v2/agent/${p}/job/${job.id}/events`]);

    // A finished job: its stream replays and ends with the final status at once.
    const failed = await client.jobs.create(p, 'fail:no such page');
    expect(await client.waitForJob(p, failed.id, { timeout: 20_000 })).toMatchObject({
      status: 'failed',
      failureReason: 'no such page',
    });
  });

  it('waitForJob polls without the event stream: when told to, and when the server has none', async () => {
    // A server of before the event stream: its events route is not found.
    const { client, fetched, p, startWorker } = await start({
      worker: false,
      fetch: async (input) => {
        const request = input as Request;
        if (request.url.endsWith('/events')) {
          return Response.json({ error: 'Route GET:/events not found' }, { status: 404 });
        }
        return fetch(request);
      },
    });
    const job = await client.jobs.create(p, 'sleep:100 slowly');
    fetched.length = 0;
    const waiting = client.waitForJob(p, job.id, { timeout: 20_000, pollIntervalMs: 50 });
    // The job runs only once the client has fallen back to polling it.
    await expect.poll(() => fetched.length).toBeGreaterThanOrEqual(3);
    startWorker();
    expect(await waiting).toMatchObject({ id: job.id, status: 'completed' });
    expect(fetched[0]).toBe(`GET /v2/agent/${p}/job/${job.id}/events`);
    expect(new Set(fetched.slice(1))).toEqual(new Set([`GET /v2/agent/${p}/job/${job.id}`]));

    const other = await client.jobs.create(p, 'sleep:100 polled');
    fetched.length = 0;
    expect(await client.waitForJob(p, other.id, { events: false, pollIntervalMs: 50 })).toMatchObject({
      status: 'completed',
    });
    expect(fetched.every((f) => f === `GET /v2/agent/${p}/job/${other.id}`)).toBe(true);
  });

  it('waitForJob waits out answers that say "not now" (503, 429) for their Retry-After, and fails on others', async () => {
    // A proxy in front of a server whose storage restarts: two answers 503, then the job.
    let refusals = 0;
    const { client, p } = await start({
      fetch: async (input) => {
        const request = input as Request;
        if (request.method === 'GET' && /\/job\/[^/]+$/.test(new URL(request.url).pathname) && refusals < 2) {
          refusals++;
          return Response.json(
            { error: 'Storage is unavailable for a moment', requestId: 'r1' },
            { status: refusals === 1 ? 503 : 429, headers: { 'retry-after': refusals === 1 ? '1' : '0' } },
          );
        }
        return fetch(request);
      },
    });
    const job = await client.jobs.create(p, 'sleep:50 done');
    const started = Date.now();
    expect(
      await client.waitForJob(p, job.id, { events: false, timeout: 20_000, pollIntervalMs: 50 }),
    ).toMatchObject({ id: job.id, status: 'completed' });
    expect(refusals).toBe(2);
    // The first answer asked for a second.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);

    const refused = await apiError(client.jobs.get(p, job.id).then(() => client.jobs.get(p, 'job_missing')));
    expect(refused).toMatchObject({ status: 404, transient: false, retryAfterSeconds: undefined });
  });

  it('reads Retry-After into the error, as seconds or as a date', () => {
    const inSeconds = new DocwrightApiError(503, { error: 'x' }, new Headers({ 'retry-after': '5' }));
    expect(inSeconds).toMatchObject({ status: 503, transient: true, retryAfterSeconds: 5, message: 'x' });
    const at = new Date(Date.now() + 30_000).toUTCString();
    const asDate = new DocwrightApiError(429, null, new Headers({ 'retry-after': at }));
    expect(asDate.retryAfterSeconds).toBeGreaterThanOrEqual(28);
    expect(asDate.retryAfterSeconds).toBeLessThanOrEqual(30);
    expect(new DocwrightApiError(500, null).transient).toBe(false);
  });

  it('waitForJob gives up after its timeout, on the stream and when polling', async () => {
    const { client, p } = await start({ worker: false });
    const job = await client.jobs.create(p, 'nobody runs this');
    for (const events of [true, false]) {
      const started = Date.now();
      const error = await client.waitForJob(p, job.id, { timeout: 300, events, pollIntervalMs: 50 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DocwrightTimeoutError);
      expect((error as Error).message).toBe(`Job ${job.id} did not finish within 300 ms`);
      expect(Date.now() - started).toBeLessThan(5_000);
    }
  });

  it("surfaces the server's error message and status", async () => {
    const { client, p } = await start({ worker: false });
    const missing = await apiError(client.jobs.get(p, 'job_missing'));
    expect(missing).toMatchObject({
      status: 404,
      message: `Job job_missing not found in project ${p}`,
      requestId: expect.any(String),
    });
    const empty = await apiError(client.jobs.create(p, ''));
    expect(empty.status).toBe(400);
    expect(empty.message).toMatch(/prompt/);
    expect((await apiError(client.waitForJob(p, 'job_missing', { timeout: 5_000 }))).status).toBe(404);

    const { key: readKey } = await t.services.keys.create(p, 'reader', 'read');
    const reader = createClient({ baseUrl: t.baseUrl, apiKey: readKey });
    expect(await apiError(reader.jobs.create(p, 'Add a page'))).toMatchObject({
      status: 403,
      message: 'An API key with scope "read" cannot call this endpoint',
    });
    const other = await t.services.projects.create({
      name: 'Other',
      repository: 'https://example.com/o.git',
    });
    expect(await apiError(reader.jobs.list(other.id))).toMatchObject({
      status: 403,
      message: 'This API key belongs to another project',
    });
    const stranger = createClient({ baseUrl: t.baseUrl, apiKey: 'dw_not-a-key' });
    expect((await apiError(stranger.jobs.list(p))).status).toBe(401);
  });

  it('ingests page views in batches, with rejections at their index, and resends a batch of ids after "not now"', async () => {
    // A proxy in front of the server answers the second POST 503 once, as a restarting database would.
    let posts = 0;
    const { client, fetched, p } = await start({
      worker: false,
      fetch: async (input) => {
        const request = input as Request;
        if (request.method === 'POST' && request.url.endsWith('/events') && ++posts === 2)
          return Response.json(
            { error: 'Storage is unavailable for a moment', requestId: 'r' },
            { status: 503, headers: { 'retry-after': '0' } },
          );
        return fetch(request);
      },
    });
    const view = (i: number, id = true) => ({
      ...(id ? { id: `v${i}` } : {}),
      timestamp: Date.UTC(2026, 2, 1, 9) + i * 1000,
      path: `/page-${i % 7}`,
      userAgent: CHROME,
      ip: `203.0.113.${i % 200}`,
    });
    const events: PageViewEvent[] = Array.from({ length: 2_500 }, (_, i) => view(i));
    const bad = { ...view(1_700), timestamp: 'yesterday' };
    events[1_700] = bad;
    fetched.length = 0;
    expect(await client.analytics.ingest(p, events)).toEqual({
      accepted: 2_499,
      duplicates: 0,
      rejected: [{ index: 1_700, reason: expect.stringMatching(/timestamp/) }],
    });
    // Three batches; the second one twice (the 503, then again).
    expect(fetched.filter((f) => f === `POST /v1/analytics/${p}/events`).length).toBe(4);
    expect(await client.analytics.ingest(p, events.slice(0, 10), { batchSize: 4 })).toMatchObject({
      accepted: 0,
      duplicates: 10,
    });
    const report = await client.analytics.visitors(p, { dateFrom: '2026-03-01', dateTo: '2026-03-02' });
    expect(report.totals.human).toBe(200);

    // Without ids a resent batch could count twice: the 503 is the caller's to handle.
    posts = 0;
    await client.analytics.ingest(p, [view(1, false)]);
    const refused = await apiError(client.analytics.ingest(p, [view(2, false)]));
    expect(refused).toMatchObject({ status: 503, transient: true, retryAfterSeconds: 0 });
  });

  it('exports visitors per page, with dateTo exclusive, paging and verifiedOnly', async () => {
    const { client, p } = await start({ worker: false });
    const ingested = await t.services.analytics.ingest(p, [
      { timestamp: '2026-03-01T09:00:00Z', path: '/quickstart', userAgent: CHROME, ip: '203.0.113.1' },
      { timestamp: '2026-03-01T10:00:00Z', path: '/quickstart', userAgent: CHROME, ip: '203.0.113.2' },
      { timestamp: '2026-03-01T11:00:00Z', path: '/api', userAgent: CHROME, ip: '203.0.113.1' },
      { timestamp: '2026-03-02T00:00:00Z', path: '/later', userAgent: CHROME, ip: '203.0.113.1' },
    ]);
    expect(ingested.accepted).toBe(4);
    const counts = (human: number) => ({
      human,
      ai: 0,
      total: human,
      aiAssistant: 0,
      aiSearch: 0,
      aiTraining: 0,
      aiOther: 0,
    });
    const report = await client.analytics.visitors(p, {
      dateFrom: '2026-03-01',
      dateTo: '2026-03-02',
      limit: 1,
      verifiedOnly: true,
    });
    expect(report).toEqual({
      totals: counts(2),
      visitors: [{ path: '/quickstart', ...counts(2) }],
      hasMore: true,
    });
    const next = await client.analytics.visitors(p, {
      dateFrom: '2026-03-01',
      dateTo: '2026-03-02',
      limit: 1,
      offset: 1,
    });
    expect(next).toEqual({ totals: counts(2), visitors: [{ path: '/api', ...counts(1) }], hasMore: false });
    const bad = await apiError(client.analytics.visitors(p, { dateFrom: 'yesterday' }));
    expect(bad.status).toBe(400);
    expect(bad.message).toMatch(/dateFrom/);
  });
});

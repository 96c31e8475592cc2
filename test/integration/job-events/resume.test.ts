import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../../src/app/services.ts';
import { iso } from '../../../src/domain/clock.ts';
import type { JobView } from '../../../src/domain/jobs/job-view.ts';
import { claimJob } from '../../../src/domain/jobs/lifecycle/claim-job.ts';
import { recordStep } from '../../../src/domain/jobs/lifecycle/record-step.ts';
import { startTurn } from '../../../src/domain/jobs/lifecycle/start-turn.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { listJobEventsAfter } from '../../../src/storage/queries/job-events.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { type ParsedEvent, SseReader } from '../../helpers/sse.ts';
import { testBackend } from '../../helpers/storage.ts';
import { PromptScriptedAgent } from '../../helpers/test-agent.ts';

describe(`job event stream: resume, heartbeat, end, errors, on ${testBackend}`, () => {
  let t: TestApp;
  let worker: Worker | null = null;

  afterEach(async () => {
    await worker?.stop();
    worker = null;
    await t?.close();
  });

  const start = async (env: Record<string, string> = {}) => {
    t = await startTestApp({
      agent: new PromptScriptedAgent(),
      env: { DOCWRIGHT_POLL_INTERVAL_MS: '50', ...env },
    });
  };
  const startWorker = () => {
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
  };
  const create = async (prompt: string) =>
    (await (
      await t.request('POST', `/v2/agent/${t.project.id}/job`, { body: { prompt } })
    ).json()) as JobView;
  const eventsUrl = (jobId: string, query = '') => `/v2/agent/${t.project.id}/job/${jobId}/events${query}`;
  const open = async (jobId: string, headers: Record<string, string> = {}, query = '') => {
    const response = await t.request('GET', eventsUrl(jobId, query), { headers });
    expect(response.status).toBe(200);
    return new SseReader(response);
  };
  const readAll = async (jobId: string, headers: Record<string, string> = {}, query = '') => {
    const stream = await open(jobId, headers, query);
    await stream.readToEnd();
    return stream.events;
  };
  const waitFor = async (jobId: string, status: JobView['status']) =>
    expect
      .poll(async () => (await t.services.jobs.get(t.project.id, jobId)).status, {
        timeout: 10_000,
        interval: 20,
      })
      .toBe(status);

  it('resumes after any event with exactly the events that follow, and answers 204 after the last', async () => {
    await start();
    startWorker();
    const job = await create('pr add a page');
    await waitFor(job.id, 'completed');
    await t.request('POST', `/v2/agent/${t.project.id}/job/${job.id}/message`, {
      body: { prompt: 'fail:no' },
    });
    await waitFor(job.id, 'failed');

    const all = await readAll(job.id);
    const logged = all.slice(1);
    expect(all[0]).toMatchObject({ id: 0, event: 'status', data: { status: 'failed' } });
    // Two turns: the first completed the job, the second re-opened it and failed it.
    expect(logged.filter((e) => e.event === 'status').map((e) => (e.data as JobView).status)).toEqual([
      'active',
      'active',
      'completed',
      'active',
      'active',
      'failed',
    ]);
    const ids = logged.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);

    // From every position: the rest, no duplicates, no gaps, no leading status snapshot.
    for (let k = 0; k < logged.length - 1; k++) {
      const rest = await readAll(job.id, { 'last-event-id': String(logged[k]?.id) });
      expect(rest, `after event ${logged[k]?.id}`).toEqual(logged.slice(k + 1));
    }
    // Resuming from 0 (the snapshot's id) replays everything.
    expect(await readAll(job.id, { 'last-event-id': '0' })).toEqual(logged);
    // The query parameter works the same; the header, which EventSource updates on reconnect, wins.
    const third = logged[2]?.id as number;
    expect(await readAll(job.id, {}, `?lastEventId=${third}`)).toEqual(logged.slice(3));
    expect(
      await readAll(job.id, { 'last-event-id': String(logged[4]?.id) }, `?lastEventId=${third}`),
    ).toEqual(logged.slice(5));
    // After the last event of a finished job there is nothing to wait for: 204 tells EventSource to stop.
    const done = await t.request('GET', eventsUrl(job.id), {
      headers: { 'last-event-id': String(ids.at(-1)) },
    });
    expect(done.status).toBe(204);
    expect(await done.text()).toBe('');
  });

  it('resumes a live stream where it broke off: the events written meanwhile, then the live ones', async () => {
    // A short lease: the worker's heartbeat notices the archive soon and stops the turn.
    await start({ DOCWRIGHT_LEASE_SECONDS: '0.6' });
    const job = await create('hang until archived');
    const first = await open(job.id);
    await first.readUntil(() => first.events.some((e) => e.event === 'message'));
    const seen = first.events;
    await first.cancel();

    // While nobody listens, the job starts (its first step written) and is archived.
    startWorker();
    await expect
      .poll(async () => (await listJobEventsAfter(t.services.storage.db, job.id, 0, 100)).map((e) => e.type))
      .toContain('step');
    await t.request('POST', `/v2/agent/${t.project.id}/job/${job.id}/archive`);
    const rest = await readAll(job.id, { 'last-event-id': String(seen.at(-1)?.id) });
    expect(rest.map((e) => e.id).every((id) => id > (seen.at(-1)?.id as number))).toBe(true);
    expect(rest.map(kind)).toEqual([
      'turn started',
      'status active',
      'step assistant',
      'turn cancelled',
      'status archived',
    ]);
    // Both parts together are the whole log.
    expect([...seen.slice(1), ...rest]).toEqual((await readAll(job.id)).slice(1));
  });

  it('sends the retry hint and a comment heartbeat, ends once archived, and frees a stream whose client left', async () => {
    await start({ DOCWRIGHT_EVENTS_HEARTBEAT_SECONDS: '0.1' });
    const job = await create('waits for a worker');
    const stream = await open(job.id);
    await stream.readUntil((frames) => frames.filter((f) => f.kind === 'comment').length >= 3, 5000);
    expect(stream.frames[0]).toEqual({ kind: 'retry', ms: 2000 });
    expect(
      stream.frames
        .filter((f) => f.kind === 'comment')
        .every((f) => f.kind === 'comment' && f.text === 'keep-alive'),
    ).toBe(true);
    expect(stream.events.map(kind)).toEqual([
      'status active',
      'status active',
      'turn queued',
      'message user',
    ]);
    expect(t.services.jobEventFeed.waiting).toBe(1);

    // A second stream of the same job; its client goes away: nothing of it stays behind.
    const other = await open(job.id);
    await other.readUntil(() => other.events.length === 4);
    await expect.poll(() => t.services.jobEventFeed.waiting).toBe(2);
    await other.cancel();
    await expect.poll(() => t.services.jobEventFeed.waiting).toBe(1);

    await t.request('POST', `/v2/agent/${t.project.id}/job/${job.id}/archive`);
    await stream.readToEnd(5000);
    expect(stream.events.slice(4).map(kind)).toEqual(['turn cancelled', 'status archived']);
    expect(t.services.jobEventFeed.waiting).toBe(0);
  });

  it('ends a stream after its lifetime even while the job runs, and a revoked key cannot resume it', async () => {
    await start({ DOCWRIGHT_EVENTS_STREAM_SECONDS: '0.5' });
    const job = await create('waits for a worker');
    const { key, info } = await t.services.keys.create(t.project.id, 'watcher', 'read');
    const response = await t.request('GET', eventsUrl(job.id), { key });
    const stream = new SseReader(response);
    const opened = Date.now();
    await stream.readToEnd(5000);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(400);
    expect(stream.events.map(kind)).toEqual([
      'status active',
      'status active',
      'turn queued',
      'message user',
    ]);
    expect((await t.services.jobs.get(t.project.id, job.id)).status).toBe('active');

    const last = String(stream.events.at(-1)?.id);
    const resumed = await t.request('GET', eventsUrl(job.id), { key, headers: { 'last-event-id': last } });
    expect(resumed.status).toBe(200);
    // Nothing new: the resumed stream waits, and ends again at the end of its lifetime.
    const again = new SseReader(resumed);
    await again.readToEnd(5000);
    expect(again.events).toEqual([]);
    await t.services.keys.revoke(info.id);
    const refused = await t.request('GET', eventsUrl(job.id), { key, headers: { 'last-event-id': last } });
    expect(refused.status).toBe(401);
  });

  it('lets the server close while streams are open', async () => {
    await start();
    const job = await create('waits for a worker');
    const stream = await open(job.id);
    await stream.readUntil(() => stream.events.length === 4);
    const started = Date.now();
    await t.app.close();
    expect(Date.now() - started).toBeLessThan(2000);
    await stream.readToEnd(2000);
  });

  it('refuses a malformed position, unknown parameters, and jobs it cannot see, as JSON errors', async () => {
    await start();
    const job = await create('waits');
    const bad = [
      await t.request('GET', eventsUrl(job.id), { headers: { 'last-event-id': 'abc' } }),
      await t.request('GET', eventsUrl(job.id, '?lastEventId=-1')),
      await t.request('GET', eventsUrl(job.id, '?from=3')),
    ];
    expect(bad.map((r) => r.status)).toEqual([400, 400, 400]);
    const errors = (await Promise.all(bad.map((r) => r.json()))) as { error: string }[];
    expect(errors[0]?.error).toMatch(/last-event-id/);
    expect(errors[1]?.error).toMatch(/lastEventId/);
    expect(errors[2]?.error).toMatch(/unknown parameter "from"/);
    const missing = await t.request('GET', eventsUrl('job_missing'));
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: string }).error).toMatch(/job_missing/);
  });

  it('writes a step only while the worker holds the lease', async () => {
    await start();
    const job = await create('steps');
    const { storage, jobEvents, clock } = t.services;
    const now = iso(clock());
    const claimed = await claimJob(storage, {
      owner: 'w1',
      now,
      leaseUntil: iso(new Date(Date.now() + 60_000)),
    });
    expect(claimed?.id).toBe(job.id);
    const started = await startTurn(
      jobEvents,
      { jobId: job.id, owner: 'w1' },
      { maxAttempts: 3, defaultModel: null, now },
    );
    expect(started.kind).toBe('started');
    const step = { role: 'assistant', text: 'x'.repeat(20_000) } as const;
    expect(await recordStep(jobEvents, { jobId: job.id, owner: 'w2' }, 1, step, now)).toBe(false);
    expect(await recordStep(jobEvents, { jobId: job.id, owner: 'w1' }, 1, step, now)).toBe(true);
    const steps = (await listJobEventsAfter(storage.db, job.id, 0, 100)).filter((e) => e.type === 'step');
    expect(steps).toHaveLength(1);
    // Cut to a size a browser renders at once, saying how much was left out.
    const text = (JSON.parse(steps[0]?.data as string) as { text: string }).text;
    expect(text).toMatch(/^x{8000}\[… 12000 more characters\]$/);
    await t.services.jobs.archive(t.project.id, job.id);
    expect(await recordStep(jobEvents, { jobId: job.id, owner: 'w1' }, 1, step, now)).toBe(false);
  });
});

function kind(event: ParsedEvent): string {
  const data = event.data as Record<string, unknown>;
  if (event.event === 'status') return `status ${data.status}`;
  if (event.event === 'turn') return `turn ${data.change}`;
  if (event.event === 'step' || event.event === 'message') return `${event.event} ${data.role}`;
  return event.event;
}

import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { openRaw, type RawClient, type RawOutcome, requestHead } from '../helpers/raw-http.ts';
import { SseReader } from '../helpers/sse.ts';
import { testBackend } from '../helpers/storage.ts';

/**
 * Slow clients, on real sockets: stalled or trickling requests are answered 408 and closed
 * within the configured bounds, stalled ingestion bodies do not keep others' ingestion waiting,
 * one address cannot hold more than a few unauthenticated bodies open, and a response that
 * lasts (an event stream) is not cut by bounds meant for receiving requests.
 */
describe(`slow clients on ${testBackend}`, () => {
  let t: TestApp | undefined;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await t?.close();
    t = undefined;
  });

  const open = (app: TestApp, data: string, options: { localAddress?: string } = {}) => {
    const client = openRaw(app.baseUrl, data, options);
    clients.push(client);
    return client;
  };
  const batch = (name: string) =>
    JSON.stringify({
      events: [
        {
          id: name,
          timestamp: '2025-03-01T12:00:00Z',
          path: `/${name}`,
          userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
          ip: '203.0.113.7',
        },
      ],
    });
  /** Headers announcing a 100,000-byte JSON body, then its first bytes, then nothing. */
  const stalledPost = (path: string, headers: Record<string, string> = {}) => {
    const head = requestHead('POST', path, {
      'content-type': 'application/json',
      'content-length': '100000',
      ...headers,
    });
    return `${head}{"events": [`;
  };
  const errorOf = (outcome: RawOutcome | undefined) => (outcome?.body as { error?: string } | null)?.error;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('answers another client within 10 s while 40 stalled ingestion bodies are open (default settings)', async () => {
    const app = await startTestApp();
    t = app;
    const { key: ingestKey } = await app.services.keys.create(app.project.id, 'stalled', 'ingest');
    const events = `/v1/analytics/${app.project.id}/events`;
    const stalled = Array.from({ length: 40 }, () =>
      open(app, stalledPost(events, { authorization: `Bearer ${ingestKey}` })),
    );
    // The default 32 slots are all held by stalled bodies, 8 more wait behind them.
    await expect.poll(() => [app.app.ingestGate.inside, app.app.ingestGate.waiting]).toEqual([32, 8]);

    const startedAt = performance.now();
    const answer = await app.request('POST', events, {
      body: JSON.parse(batch('on-time')),
      headers: { connection: 'close' },
    });
    const tookMs = performance.now() - startedAt;
    expect(answer.status).toBe(202);
    expect(await answer.json()).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    expect(tookMs).toBeLessThan(10_000);

    // Stalled bodies that held slots were answered 408 and closed, as many as those waiting
    // needed (the 8 stalled ones and this one) or a few more; their places went on.
    await expect.poll(() => stalled.filter((client) => !client.isOpen()).length).toBeGreaterThanOrEqual(9);
    const outcome = await stalled.find((client) => !client.isOpen())?.closed;
    expect(outcome?.status).toBe(408);
    expect(errorOf(outcome)).toMatch(/stalled .*no byte for 5 s/);
  }, 30_000);

  it('closes every stalled or trickling connection, keyed or not, within the configured bounds', async () => {
    const warnings: string[] = [];
    const app = await startTestApp({
      log: (line) => {
        if ((JSON.parse(line) as { level: number }).level >= 40) warnings.push(line);
      },
      env: {
        DOCWRIGHT_HEADERS_TIMEOUT_SECONDS: '1',
        DOCWRIGHT_BODY_TIMEOUT_SECONDS: '2',
        DOCWRIGHT_REQUEST_TIMEOUT_SECONDS: '4',
        DOCWRIGHT_ANALYTICS_INGEST_CONCURRENCY: '1',
      },
    });
    t = app;
    const p = app.project.id;
    const key = { authorization: `Bearer ${app.key}` };
    const cases = {
      silent: open(app, ''),
      headersTrickling: open(app, 'POST /v1/hooks/github/'),
      webhookBody: open(app, stalledPost(`/v1/hooks/github/${p}`, { 'x-github-event': 'pull_request' })),
      signInBody: open(app, stalledPost('/dashboard/api/session')),
      unkeyedIngestion: open(app, stalledPost(`/v1/analytics/${p}/events`)),
      unknownRoute: open(app, stalledPost('/v1/nothing-here')),
      webhookNotJson: open(app, stalledPost(`/v1/hooks/gitlab/${p}`, { 'content-type': 'text/xml' })),
      keyedJob: open(app, stalledPost(`/v2/agent/${p}/job`, key)),
      // Whichever is authenticated first holds the one slot until its body's bound (2 s), the
      // next then until the whole request's (4 s); the last waits for a slot until that bound.
      keyedIngestion: open(app, stalledPost(`/v1/analytics/${p}/events`, key)),
      keyedIngestionNext: open(app, stalledPost(`/v1/analytics/${p}/events`, key)),
      keyedIngestionWaiting: open(app, stalledPost(`/v1/analytics/${p}/events`, key)),
    };
    cases.headersTrickling.trickle(`${p} HTTP/1.1\r\nHost: docwright.test\r\n`, 200);

    const outcomes = Object.fromEntries(
      await Promise.all(
        Object.entries(cases).map(async ([name, client]) => [name, await client.closed] as const),
      ),
    );
    // The longest bound is the whole request's, 4 s; Node checks it every quarter of the headers' bound.
    for (const [name, outcome] of Object.entries(outcomes)) {
      expect(outcome.afterMs, `${name} closed in time`).toBeLessThan(8_000);
    }
    // Answered at once, before their bodies: closed with the answer, the rest unread.
    expect([outcomes.unkeyedIngestion?.status, outcomes.webhookNotJson?.status]).toEqual([401, 415]);
    for (const name of ['unkeyedIngestion', 'webhookNotJson'] as const) {
      expect(outcomes[name]?.afterMs, name).toBeLessThan(1_000);
    }
    for (const name of ['silent', 'headersTrickling'] as const) {
      expect(outcomes[name]?.status, name).toBe(408);
      expect(errorOf(outcomes[name])).toMatch(/headers must arrive within 1 s/);
    }
    // Fastify reads a body before it finds no route for it: bounded like any other.
    for (const name of ['webhookBody', 'signInBody', 'keyedJob', 'unknownRoute'] as const) {
      expect(outcomes[name]?.status, name).toBe(408);
      expect(errorOf(outcomes[name])).toMatch(/did not arrive within 2 s/);
      expect(outcomes[name]?.afterMs, name).toBeGreaterThanOrEqual(1_900);
    }
    // Which of the three reaches the gate first depends on how fast each key is looked up.
    const ingestion = (['keyedIngestion', 'keyedIngestionNext', 'keyedIngestionWaiting'] as const).map(
      (name) => outcomes[name],
    );
    expect(ingestion.map((outcome) => outcome?.status)).toEqual([408, 408, 408]);
    // The first admitted is cut by its body's bound, the last by the whole request's while it
    // waits; the middle one meets both bounds at about 4 s, so either may cut it.
    const bodyBound = ingestion.filter((o) => /did not arrive within 2 s/.test(errorOf(o) ?? '')).length;
    const requestBound = ingestion.filter((o) =>
      /all of it \(with any wait for an ingestion slot\) within 4 s/.test(errorOf(o) ?? ''),
    ).length;
    expect([bodyBound + requestBound, Math.min(bodyBound, requestBound)]).toEqual([3, 1]);
    // Nothing holds a slot or waits for one any more, and nothing went wrong on the way.
    expect([app.app.ingestGate.inside, app.app.ingestGate.waiting]).toEqual([0, 0]);
    expect(warnings).toEqual([]);
  }, 30_000);

  it('closes an anonymous webhook request trickling its body a byte at a time', async () => {
    const app = await startTestApp({ env: { DOCWRIGHT_BODY_TIMEOUT_SECONDS: '2' } });
    t = app;
    const payload = JSON.stringify({ action: 'closed', padding: 'x'.repeat(200) });
    const client = open(
      app,
      requestHead('POST', `/v1/hooks/github/${app.project.id}`, {
        'content-type': 'application/json',
        'content-length': String(payload.length),
        'x-github-event': 'pull_request',
      }),
    );
    // Steadily, but too slowly to finish: 5 bytes a second for 200-odd bytes.
    client.trickle(payload, 200);
    const outcome = await client.closed;
    expect(outcome.status).toBe(408);
    expect(outcome.body).toMatchObject({ error: expect.stringMatching(/did not arrive within 2 s/) });
    expect(outcome.afterMs).toBeGreaterThanOrEqual(1_900);
    expect(outcome.afterMs).toBeLessThan(6_000);
  }, 20_000);

  it('refuses an address its fourth unauthenticated body in progress, not another address nor keyed requests', async () => {
    const app = await startTestApp({
      env: { DOCWRIGHT_UNAUTHENTICATED_BODIES_PER_ADDRESS: '3', DOCWRIGHT_BODY_TIMEOUT_SECONDS: '20' },
    });
    t = app;
    const hook = `/v1/hooks/github/${app.project.id}`;
    const flooder = { localAddress: '127.0.0.2' };
    const held = [1, 2, 3].map(() => open(app, stalledPost(hook), flooder));
    // Each is read: the third is in progress before the fourth arrives.
    await sleep(300);
    const refused = open(app, stalledPost(hook), flooder);
    const outcome = await refused.closed;
    expect(outcome.status).toBe(429);
    expect(outcome.body).toMatchObject({
      error: expect.stringMatching(/at most 3 at once without an API key or session/),
    });
    expect(outcome.text).toMatch(/\r\nretry-after: 20\r\n/i);
    expect(held.every((client) => client.isOpen() && client.received() === '')).toBe(true);

    // Another address is not affected: its slow body is held, its complete delivery answered.
    const neighbour = open(app, stalledPost(hook), { localAddress: '127.0.0.1' });
    const delivery = await app.request('POST', hook, {
      key: null,
      body: { zen: 'Keep it logically awesome.' },
      headers: { 'x-github-event': 'ping' },
    });
    expect(delivery.status).toBe(401);
    // Nor are requests with a key from the same address.
    const keyed = open(
      app,
      stalledPost(`/v2/agent/${app.project.id}/job`, { authorization: `Bearer ${app.key}` }),
      flooder,
    );
    await sleep(500);
    expect(neighbour.isOpen() && neighbour.received() === '').toBe(true);
    expect(keyed.isOpen() && keyed.received() === '').toBe(true);

    // A place given back (the client went away) is the address's again.
    held[0]?.destroy();
    await held[0]?.closed;
    const again = open(app, stalledPost(hook), flooder);
    await sleep(500);
    expect(again.isOpen() && again.received() === '').toBe(true);
  }, 20_000);

  it('counts the address a trusted proxy forwards for, not the proxy', async () => {
    const app = await startTestApp({
      env: { DOCWRIGHT_UNAUTHENTICATED_BODIES_PER_ADDRESS: '1', DOCWRIGHT_TRUSTED_PROXIES: 'loopback' },
    });
    t = app;
    const hook = `/v1/hooks/github/${app.project.id}`;
    const from = (address: string) => stalledPost(hook, { 'x-forwarded-for': address });
    const first = open(app, from('198.51.100.1'));
    await sleep(300);
    const refused = open(app, from('198.51.100.1'));
    const other = open(app, from('198.51.100.2'));
    expect((await refused.closed).status).toBe(429);
    await sleep(300);
    expect([first, other].every((client) => client.isOpen() && client.received() === '')).toBe(true);
  }, 20_000);

  it('keeps a job event stream open past the bounds that close a stalled request beside it', async () => {
    const app = await startTestApp({
      env: {
        DOCWRIGHT_HEADERS_TIMEOUT_SECONDS: '0.5',
        DOCWRIGHT_BODY_TIMEOUT_SECONDS: '0.5',
        DOCWRIGHT_REQUEST_TIMEOUT_SECONDS: '1',
        DOCWRIGHT_EVENTS_HEARTBEAT_SECONDS: '0.2',
      },
    });
    t = app;
    const job = await app.services.jobs.create(
      await app.services.projects.get(app.project.id),
      'write a page',
    );
    const stream = await fetch(`${app.baseUrl}/v2/agent/${app.project.id}/job/${job.id}/events`, {
      headers: { authorization: `Bearer ${app.key}`, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    const reader = new SseReader(stream);
    const stalled = open(app, stalledPost(`/v1/hooks/github/${app.project.id}`));
    const openedAt = performance.now();

    expect((await stalled.closed).status).toBe(408);
    // Four times the whole request's bound and more: heartbeats still arrive.
    await sleep(Math.max(0, 4_000 - (performance.now() - openedAt)));
    const comments = () => reader.frames.filter((frame) => frame.kind === 'comment').length;
    await reader.readUntil((frames) => frames.some((frame) => frame.kind === 'comment'), 5_000);
    const before = comments();
    await reader.readUntil(() => comments() > before + 2, 5_000);
    expect(reader.done).toBe(false);
    await reader.cancel();
  }, 30_000);
});

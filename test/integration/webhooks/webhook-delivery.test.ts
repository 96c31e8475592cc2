import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../../src/app/services.ts';
import { OutboundPolicy } from '../../../src/domain/network/outbound-policy.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { DEFAULT_RETRY_POLICY } from '../../../src/domain/webhooks/backoff.ts';
import { WebhookDispatcher } from '../../../src/domain/webhooks/dispatcher.ts';
import { HttpWebhookTransport } from '../../../src/integrations/webhooks/http-transport.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import { PromptScriptedAgent } from '../../helpers/test-agent.ts';
import {
  type DeliveryBody,
  type EndpointBody,
  eventually,
  type JobBody,
  json,
  startWebhookReceiver,
} from '../../helpers/webhook-receiver.ts';

const ENV = {
  // A base64 key: no key derivation at start-up.
  DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=',
  DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: 'true',
  DOCWRIGHT_WEBHOOKS_RETRY_BASE_SECONDS: '0.05',
  DOCWRIGHT_POLL_INTERVAL_MS: '20',
};

describe(`webhook delivery (${testBackend})`, { timeout: 60_000 }, () => {
  let t: TestApp | undefined;
  let worker: Worker | undefined;
  const closers: Array<() => Promise<void>> = [];

  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    for (const close of closers.splice(0)) await close();
    await t?.close();
    t = undefined;
  });

  async function receiverAndEndpoint(
    app: TestApp,
    events: string[] | undefined,
    answer?: Parameters<typeof startWebhookReceiver>[0],
  ) {
    const receiver = await startWebhookReceiver(answer);
    closers.push(receiver.close);
    const response = await app.request('POST', `/v2/agent/${app.project.id}/webhooks`, {
      body: { url: receiver.url(), ...(events ? { events } : {}) },
    });
    expect(response.status).toBe(201);
    const endpoint = (await response.json()) as { id: string; secret: string };
    receiver.verifyWith(endpoint.secret);
    return { receiver, endpoint };
  }

  const deliveries = async (app: TestApp, endpointId: string) =>
    (
      (await (
        await app.request('GET', `/v2/agent/${app.project.id}/webhooks/${endpointId}/deliveries`)
      ).json()) as { deliveries: Array<Record<string, unknown>> }
    ).deliveries;

  it('retries a 500 with backoff and succeeds on the third attempt, signed the same each time', async () => {
    t = await startTestApp({ env: ENV });
    const app = t;
    const { receiver, endpoint } = await receiverAndEndpoint(app, ['job.created'], {
      answer: (_d, received) => (received.length < 2 ? 500 : 200),
    });
    const job = await json<JobBody>(
      app.request('POST', `/v2/agent/${app.project.id}/job`, { body: { prompt: 'Add a page' } }),
    );
    app.services.webhookDispatcher.start();
    closers.push(() => app.services.webhookDispatcher.stop());
    const [delivery] = await eventually(async () => {
      const log = await deliveries(app, endpoint.id);
      return log[0]?.status === 'succeeded' ? log : undefined;
    });
    expect(delivery).toMatchObject({
      type: 'job.created',
      status: 'succeeded',
      attempts: 3,
      lastResponseCode: 200,
    });
    expect(receiver.received.map((r) => r.answered)).toEqual([500, 500, 200]);
    for (const request of receiver.received) {
      expect(request.verified).toBe(true);
      expect(request.headers['docwright-delivery']).toBe(delivery?.id);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toMatch(/^Docwright-Webhooks\//);
      expect(request.body).toBe(receiver.received[0]?.body);
    }
    expect(receiver.received[0]?.json).toEqual({
      id: delivery?.eventId,
      type: 'job.created',
      createdAt: job.createdAt,
      data: { job },
    });
  });

  it('announces a job that completes with a pull request: each event once, data.job as GET …/job/{id}', async () => {
    t = await startTestApp({ env: ENV, agent: new PromptScriptedAgent() });
    const app = t;
    const { receiver, endpoint } = await receiverAndEndpoint(app, undefined);
    worker = createWorker(app.services, pino({ level: 'silent' }));
    worker.start();
    const created = await json<JobBody>(
      app.request('POST', `/v2/agent/${app.project.id}/job`, { body: { prompt: 'pr a new page' } }),
    );
    const completed = await eventually(() => receiver.received.find((r) => r.json.type === 'job.completed'));
    const job = await json<JobBody>(app.request('GET', `/v2/agent/${app.project.id}/job/${created.id}`));
    expect(job.status).toBe('completed');
    expect(completed.json.data).toEqual({ job });
    // Nothing more comes: each event was delivered once.
    await eventually(async () => {
      const log = await deliveries(app, endpoint.id);
      return log.length === 3 && log.every((d) => d.status === 'succeeded') ? log : undefined;
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received.map((r) => r.json.type).sort()).toEqual([
      'job.completed',
      'job.created',
      'job.pull_request_opened',
    ]);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    const opened = receiver.received.find((r) => r.json.type === 'job.pull_request_opened');
    expect(opened?.json.data.job).toMatchObject({ prLink: `https://example.com/pr/${created.id}` });
  });

  it('announces a failed job as job.failed', async () => {
    t = await startTestApp({ env: ENV, agent: new PromptScriptedAgent() });
    const app = t;
    const { receiver } = await receiverAndEndpoint(app, ['job.failed', 'job.completed']);
    worker = createWorker(app.services, pino({ level: 'silent' }));
    worker.start();
    const created = await json<JobBody>(
      app.request('POST', `/v2/agent/${app.project.id}/job`, { body: { prompt: 'fail:no docs repo' } }),
    );
    const failed = await eventually(() => receiver.received.find((r) => r.json.type === 'job.failed'));
    const job = await json<JobBody>(app.request('GET', `/v2/agent/${app.project.id}/job/${created.id}`));
    expect(failed.json.data).toEqual({ job });
    expect(job.failureReason).toBe('no docs repo');
    expect(receiver.received.map((r) => r.json.type)).toEqual(['job.failed']);
  });

  it('sends a test event, and re-sends a delivery by hand with the same event id', async () => {
    t = await startTestApp({ env: ENV });
    const app = t;
    const { receiver, endpoint } = await receiverAndEndpoint(app, ['job.completed']);
    app.services.webhookDispatcher.start();
    closers.push(() => app.services.webhookDispatcher.stop());
    const base = `/v2/agent/${app.project.id}/webhooks/${endpoint.id}`;
    const queued = await json<DeliveryBody>(app.request('POST', `${base}/test`));
    await eventually(() => (receiver.received.length === 1 ? true : undefined));
    expect(receiver.received[0]?.json).toMatchObject({ id: queued.eventId, type: 'webhook.test' });
    expect((await app.request('POST', `${base}/deliveries/${queued.id}/resend`)).status).toBe(202);
    await eventually(() => (receiver.received.length === 2 ? true : undefined));
    expect(receiver.received[1]?.body).toBe(receiver.received[0]?.body);
    expect(receiver.received[1]?.headers['docwright-delivery']).toBe(queued.id);
    const [log] = await eventually(async () => {
      const list = await deliveries(app, endpoint.id);
      return list[0]?.attempts === 2 && list[0]?.status === 'succeeded' ? list : undefined;
    });
    expect(log).toMatchObject({ id: queued.id, attempts: 2, lastResponseCode: 200 });
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    t = await startTestApp({ env: { ...ENV, DOCWRIGHT_WEBHOOKS_RETRY_BASE_SECONDS: '60' } });
    const app = t;
    const { receiver, endpoint } = await receiverAndEndpoint(app, undefined, {
      answer: (d) => (d.path === '/hook' ? 302 : 200),
      headers: (path): Record<string, string> => (path === '/hook' ? { location: '/elsewhere' } : {}),
    });
    app.services.webhookDispatcher.start();
    closers.push(() => app.services.webhookDispatcher.stop());
    await app.request('POST', `/v2/agent/${app.project.id}/webhooks/${endpoint.id}/test`);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(app, endpoint.id);
      return list[0]?.attempts === 1 ? list : undefined;
    });
    expect(delivery).toMatchObject({ status: 'pending', lastResponseCode: 302 });
    expect(delivery?.lastError).toContain('Redirect');
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook']);
  });

  it('never delivers to a host that resolves to a non-public address unless allowed', async () => {
    t = await startTestApp({
      env: {
        ...ENV,
        DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: 'false',
        DOCWRIGHT_WEBHOOKS_RETRY_BASE_SECONDS: '60',
      },
    });
    const app = t;
    const receiver = await startWebhookReceiver();
    closers.push(receiver.close);
    // A literal loopback address is refused at once …
    const literal = await app.request('POST', `/v2/agent/${app.project.id}/webhooks`, {
      body: { url: receiver.url() },
    });
    expect(literal.status).toBe(400);
    expect((await json<{ error: string }>(literal)).error).toMatch(/^url .*loopback/);
    // … a name is checked on the address each delivery connects to.
    const endpoint = await json<EndpointBody>(
      app.request('POST', `/v2/agent/${app.project.id}/webhooks`, {
        body: { url: `http://localhost:${receiver.port}/hook` },
      }),
    );
    app.services.webhookDispatcher.start();
    closers.push(() => app.services.webhookDispatcher.stop());
    await app.request('POST', `/v2/agent/${app.project.id}/webhooks/${endpoint.id}/test`);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(app, endpoint.id);
      return list[0]?.attempts === 1 ? list : undefined;
    });
    expect(delivery).toMatchObject({ status: 'pending', lastResponseCode: null });
    expect(delivery?.lastError).toMatch(/^Refused: localhost resolves to .* loopback/);
    expect(receiver.received).toEqual([]);
  });

  it('fails a delivery for good once the retry window is over', async () => {
    t = await startTestApp({
      env: {
        ...ENV,
        DOCWRIGHT_WEBHOOKS_RETRY_BASE_SECONDS: '0.02',
        DOCWRIGHT_WEBHOOKS_RETRY_HOURS: '0.0002',
      },
    });
    const app = t;
    const { receiver, endpoint } = await receiverAndEndpoint(app, undefined, { answer: () => 503 });
    app.services.webhookDispatcher.start();
    closers.push(() => app.services.webhookDispatcher.stop());
    await app.request('POST', `/v2/agent/${app.project.id}/webhooks/${endpoint.id}/test`);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(app, endpoint.id);
      return list[0]?.status === 'failed' ? list : undefined;
    });
    expect(delivery).toMatchObject({ lastResponseCode: 503, lastError: 'Answered 503', nextAttemptAt: null });
    expect(delivery?.attempts).toBe(receiver.received.length);
    expect(receiver.received.length).toBeGreaterThan(1);
  });

  it('sends each delivery once when several senders claim at the same time', async () => {
    t = await startTestApp({ env: ENV });
    const app = t;
    const { receiver, endpoint } = await receiverAndEndpoint(app, undefined);
    for (let i = 0; i < 40; i++) await app.services.webhooks.test(app.project.id, endpoint.id);
    const senders = ['a', 'b', 'c'].map((name) => {
      const transport = new HttpWebhookTransport({ policy: OutboundPolicy.allowAll() });
      const sender = new WebhookDispatcher({
        storage: app.services.storage,
        clock: app.services.clock,
        box: app.services.secretBox,
        transport,
        logger: pino({ level: 'silent' }),
        owner: `sender-${name}`,
        userAgent: 'Docwright-Webhooks/test',
        settings: {
          concurrency: 4,
          timeoutMs: 5000,
          pollIntervalMs: 10,
          retry: DEFAULT_RETRY_POLICY,
          retention: { keepMs: 30 * 86_400_000, everyMs: 3_600_000, batchSize: 500 },
        },
      });
      closers.push(async () => {
        await sender.stop();
        transport.close();
      });
      return sender;
    });
    for (const sender of senders) sender.start();
    await eventually(() => (receiver.received.length >= 40 ? true : undefined), 20_000);
    await new Promise((r) => setTimeout(r, 300));
    const ids = receiver.received.map((r) => r.headers['docwright-delivery']);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    const log = await deliveries(app, endpoint.id);
    expect(log.every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { type ChildHandle, startWorkerProcess } from '../../helpers/processes.ts';
import { testBackend } from '../../helpers/storage.ts';
import {
  type DeliveryBody,
  type EndpointBody,
  eventually,
  json,
  startWebhookReceiver,
} from '../../helpers/webhook-receiver.ts';

const ENV = {
  DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=',
  DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: 'true',
  DOCWRIGHT_POLL_INTERVAL_MS: '20',
};

/** Worker processes (`docwright worker` with the test agent) sending webhooks, killed mid-way. */
describe(`webhook delivery across worker restarts (${testBackend})`, { timeout: 120_000 }, () => {
  let t: TestApp | undefined;
  const children: ChildHandle[] = [];
  const closers: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const { child } of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
    for (const close of closers.splice(0)) await close();
    await t?.close();
    t = undefined;
  });

  const spawnWorker = async (app: TestApp, env: Record<string, string>) => {
    const handle = await startWorkerProcess({
      ...app.database.env,
      ...ENV,
      DOCWRIGHT_LOG_LEVEL: 'warn',
      ...env,
    });
    children.push(handle);
    return handle;
  };
  const kill = async (handle: ChildHandle) => {
    handle.child.kill('SIGKILL');
    await handle.exited;
  };
  const deliveries = async (app: TestApp, endpointId: string) =>
    (
      (await (
        await app.request('GET', `/v2/agent/${app.project.id}/webhooks/${endpointId}/deliveries`)
      ).json()) as { deliveries: Array<{ id: string; type: string; status: string; attempts: number }> }
    ).deliveries;

  it('a new worker sends only what was not acknowledged: the third attempt after two 500s', async () => {
    t = await startTestApp({ env: ENV });
    const app = t;
    let tests = 0;
    const receiver = await startWebhookReceiver({
      answer: (d) => (d.json.type === 'webhook.test' && ++tests <= 2 ? 500 : 200),
    });
    closers.push(receiver.close);
    const endpoint = await json<EndpointBody>(
      app.request('POST', `/v2/agent/${app.project.id}/webhooks`, {
        body: { url: receiver.url(), events: ['job.created'] },
      }),
    );
    receiver.verifyWith(endpoint.secret);
    // Long enough between attempts for the worker to be killed after the second.
    const first = await spawnWorker(app, { DOCWRIGHT_WEBHOOKS_RETRY_BASE_SECONDS: '1' });
    await app.request('POST', `/v2/agent/${app.project.id}/job`, { body: { prompt: 'sleep:10' } });
    await eventually(() => receiver.received.find((r) => r.json.type === 'job.created'));
    const queued = await json<DeliveryBody>(
      app.request('POST', `/v2/agent/${app.project.id}/webhooks/${endpoint.id}/test`),
    );
    await eventually(async () => {
      const log = await deliveries(app, endpoint.id);
      return log.find((d) => d.id === queued.id && d.attempts === 2);
    });
    await kill(first);
    expect(receiver.received.filter((r) => r.json.type === 'webhook.test')).toHaveLength(2);

    await spawnWorker(app, { DOCWRIGHT_WEBHOOKS_RETRY_BASE_SECONDS: '1' });
    const done = await eventually(
      async () =>
        (await deliveries(app, endpoint.id)).find((d) => d.id === queued.id && d.status === 'succeeded'),
      15_000,
    );
    expect(done.attempts).toBe(3);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.map((r) => [r.json.type, r.answered])).toEqual([
      ['job.created', 200],
      ['webhook.test', 500],
      ['webhook.test', 500],
      ['webhook.test', 200],
    ]);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
  });

  it('a delivery whose worker died before the answer is sent again once its lease expires', async () => {
    t = await startTestApp({ env: ENV });
    const app = t;
    let hold = true;
    const receiver = await startWebhookReceiver();
    closers.push(receiver.close);
    // The first request is never answered: its worker dies while waiting.
    const { createServer } = await import('node:http');
    const stalling = createServer((req, res) => {
      if (hold) {
        hold = false;
        return;
      }
      req.pipe(res);
    });
    await new Promise<void>((r) => stalling.listen(0, '127.0.0.1', r));
    closers.push(
      () =>
        new Promise<void>((r) => {
          stalling.closeAllConnections();
          stalling.close(() => r());
        }),
    );
    const endpoint = await json<EndpointBody>(
      app.request('POST', `/v2/agent/${app.project.id}/webhooks`, { body: { url: receiver.url() } }),
    );
    receiver.verifyWith(endpoint.secret);
    const workerEnv = {
      DOCWRIGHT_WEBHOOKS_TIMEOUT_SECONDS: '1',
      DOCWRIGHT_WEBHOOKS_RETRY_BASE_SECONDS: '60',
    };
    // Point the endpoint at the stalling server for the first attempt only.
    await app.services.storage.db
      .updateTable('webhook_endpoints')
      .set({ url: `http://127.0.0.1:${(stalling.address() as { port: number }).port}/hook` })
      .where('id', '=', endpoint.id)
      .execute();
    const first = await spawnWorker(app, workerEnv);
    const queued = await json<DeliveryBody>(
      app.request('POST', `/v2/agent/${app.project.id}/webhooks/${endpoint.id}/test`),
    );
    await eventually(() => (hold ? undefined : true));
    await kill(first);
    await app.services.storage.db
      .updateTable('webhook_endpoints')
      .set({ url: receiver.url() })
      .where('id', '=', endpoint.id)
      .execute();
    // Not acknowledged, not recorded: still pending under the dead worker's lease.
    expect((await deliveries(app, endpoint.id))[0]).toMatchObject({ status: 'pending', attempts: 0 });
    await spawnWorker(app, workerEnv);
    const done = await eventually(
      async () =>
        (await deliveries(app, endpoint.id)).find((d) => d.id === queued.id && d.status === 'succeeded'),
      15_000,
    );
    expect(done.attempts).toBe(1);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]?.json.id).toBe(queued.eventId);
  });
});

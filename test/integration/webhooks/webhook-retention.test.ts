import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import { type EndpointBody, eventually, json } from '../../helpers/webhook-receiver.ts';

const DAY_MS = 86_400_000;
const ENV = {
  DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=',
  DOCWRIGHT_WEBHOOK_RETENTION_DAYS: '7',
  DOCWRIGHT_POLL_INTERVAL_MS: '20',
};

describe(`webhook delivery retention (${testBackend})`, { timeout: 60_000 }, () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.services.webhookDispatcher.stop();
    await t?.close();
    t = undefined;
  });

  /** Queues `count` test deliveries, then sets each one's status and last change as given. */
  async function deliveriesAged(app: TestApp, rows: Array<{ status: string; ageDays: number }>) {
    const endpoint = await json<EndpointBody>(
      app.request('POST', `/v2/agent/${app.project.id}/webhooks`, {
        body: { url: 'https://hooks.example.com/r' },
      }),
    );
    const ids: string[] = [];
    for (const row of rows) {
      const { id } = await app.services.webhooks.test(app.project.id, endpoint.id);
      const at = new Date(Date.now() - row.ageDays * DAY_MS).toISOString();
      await app.services.storage.db
        .updateTable('webhook_deliveries')
        .set({
          status: row.status,
          updated_at: at,
          created_at: at,
          next_attempt_at: row.status === 'pending' ? new Date(Date.now() + DAY_MS).toISOString() : null,
        })
        .where('id', '=', id)
        .execute();
      ids.push(id);
    }
    return ids;
  }

  const remaining = async (app: TestApp) =>
    (await app.services.storage.db.selectFrom('webhook_deliveries').select('id').execute()).map((r) => r.id);

  it('deletes succeeded and failed deliveries older than the retention, in batches, and never pending ones', async () => {
    t = await startTestApp({ env: ENV });
    const app = t;
    const old = await deliveriesAged(
      app,
      Array.from({ length: 1_203 }, (_, i) => ({ status: i % 3 === 0 ? 'failed' : 'succeeded', ageDays: 8 })),
    );
    const kept = await deliveriesAged(app, [
      { status: 'pending', ageDays: 40 },
      { status: 'succeeded', ageDays: 6 },
      { status: 'failed', ageDays: 6.9 },
    ]);
    // 500 a statement: three batches, the last one short.
    expect(await app.services.webhookDispatcher.prune()).toBe(old.length);
    expect((await remaining(app)).sort()).toEqual([...kept].sort());
    expect(await app.services.webhookDispatcher.prune()).toBe(0);
  });

  it("runs in the worker's sender loop", async () => {
    t = await startTestApp({ env: ENV });
    const app = t;
    const [old, recent] = await deliveriesAged(app, [
      { status: 'succeeded', ageDays: 30 },
      { status: 'succeeded', ageDays: 1 },
    ]);
    app.services.webhookDispatcher.start();
    const left = await eventually(async () => {
      const ids = await remaining(app);
      return ids.includes(old ?? '') ? undefined : ids;
    });
    expect(left).toEqual([recent]);
  });
});

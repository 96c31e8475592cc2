import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../../src/domain/secrets/secret-box.ts';
import { secretContext } from '../../../src/domain/webhooks/webhook-service.ts';
import { refusedAddress, urlHostForms } from '../../helpers/address-forms.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import { type DeliveryBody, type EndpointBody, type JobBody, json } from '../../helpers/webhook-receiver.ts';

const SECRET_KEY = 'a passphrase for the webhook tests';

describe(`webhooks API (${testBackend})`, () => {
  let t: TestApp;
  const path = () => `/v2/agent/${t.project.id}/webhooks`;

  beforeAll(async () => {
    t = await startTestApp({ env: { DOCWRIGHT_SECRET_KEY: SECRET_KEY } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates an endpoint with its secret shown once, lists it without, and deletes it', async () => {
    const created = await t.request('POST', path(), {
      body: { url: 'https://hooks.example.com/docwright', events: ['job.failed', 'job.completed'] },
    });
    expect(created.status).toBe(201);
    const endpoint = await json<EndpointBody>(created);
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^whk_/),
      url: 'https://hooks.example.com/docwright',
      // In the documented order, whatever the order asked.
      events: ['job.completed', 'job.failed'],
      enabled: true,
      previousSecretExpiresAt: null,
      createdAt: expect.any(String),
      updatedAt: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const listed = await json<unknown>(t.request('GET', path()));
    const { secret, ...withoutSecret } = endpoint;
    expect(listed).toEqual({ webhooks: [withoutSecret] });
    // Stored sealed, never in clear.
    const row = await t.services.storage.db
      .selectFrom('webhook_endpoints')
      .select('secret')
      .where('id', '=', endpoint.id as string)
      .executeTakeFirstOrThrow();
    expect(row.secret).not.toContain(secret as string);
    expect(row.secret).toMatch(/^v1\./);

    expect((await t.request('DELETE', `${path()}/${endpoint.id}`)).status).toBe(204);
    expect(await (await t.request('GET', path())).json()).toEqual({ webhooks: [] });
    expect((await t.request('DELETE', `${path()}/${endpoint.id}`)).status).toBe(404);
  });

  it('subscribes to every event type when events is left out', async () => {
    const endpoint = await json<EndpointBody>(
      t.request('POST', path(), { body: { url: 'https://a.example.com/' } }),
    );
    expect(endpoint.events).toEqual([
      'job.created',
      'job.completed',
      'job.failed',
      'job.archived',
      'job.pull_request_opened',
      'automation.run_completed',
    ]);
    await t.request('DELETE', `${path()}/${endpoint.id}`);
  });

  it.each([
    [{ url: 'ftp://example.com/' }, 'url'],
    [{ url: 'https://user:secret@example.com/' }, 'url'],
    [{ url: 'http://127.0.0.1:9/' }, 'url'],
    [{ url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
    [{ url: 'http://[fd00:ec2::254]/' }, 'url'],
    [{ url: 'http://192.168.0.10/' }, 'url'],
    [{ url: '' }, 'url'],
    [{}, 'url'],
    [{ url: 'https://example.com/', events: ['job.exploded'] }, 'events'],
    [{ url: 'https://example.com/', events: [] }, 'events'],
    [{ url: 'https://example.com/', secret: 'mine' }, 'secret'],
  ])('refuses %j with a 400 naming %s', async (body, field) => {
    const response = await t.request('POST', path(), { body });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain(field);
  });

  it('refuses a URL whose host is a non-public address in any form: IPv4-compatible, mapped, NAT64, octal, hex…', async () => {
    for (const url of [
      'http://[::7f00:1]:8080/',
      'http://[::127.0.0.1]/',
      'http://0x7f.1/',
      'http://017700000001/',
    ]) {
      const response = await t.request('POST', path(), { body: { url } });
      expect(response.status, url).toBe(400);
      expect(((await response.json()) as { error: string }).error).toMatch(
        /^url must not point at a non-public address/,
      );
    }
    await fc.assert(
      fc.asyncProperty(refusedAddress.chain(urlHostForms), async (host) => {
        const response = await t.request('POST', path(), { body: { url: `http://${host}:8080/hook` } });
        expect(response.status).toBe(400);
        expect(((await response.json()) as { error: string }).error).toMatch(
          /^url must not point at a non-public address/,
        );
      }),
      { numRuns: 150 },
    );
    expect(await (await t.request('GET', path())).json()).toEqual({ webhooks: [] });
  });

  it('updates the URL, events and enabled flag; what is left out stays', async () => {
    const endpoint = await json<EndpointBody>(
      t.request('POST', path(), { body: { url: 'https://hooks.example.com/old', events: ['job.failed'] } }),
    );
    const changed = await t.request('PATCH', `${path()}/${endpoint.id}`, {
      body: { url: 'https://hooks.example.com/new', events: ['job.failed', 'job.created'] },
    });
    expect(changed.status).toBe(200);
    const updated = await json<EndpointBody>(changed);
    expect(updated).toEqual({
      id: endpoint.id,
      url: 'https://hooks.example.com/new',
      events: ['job.created', 'job.failed'],
      enabled: true,
      previousSecretExpiresAt: null,
      createdAt: endpoint.createdAt,
      updatedAt: expect.any(String),
    });
    const paused = await json<EndpointBody>(
      t.request('PATCH', `${path()}/${endpoint.id}`, { body: { enabled: false } }),
    );
    expect(paused).toMatchObject({
      url: 'https://hooks.example.com/new',
      events: updated.events,
      enabled: false,
    });
    // A paused endpoint is given no new events: the job's creation queues nothing for it.
    await t.request('POST', `/v2/agent/${t.project.id}/job`, { body: { prompt: 'while paused' } });
    const queued = async () =>
      (
        await t.services.storage.db
          .selectFrom('webhook_deliveries')
          .select('type')
          .where('endpoint_id', '=', endpoint.id)
          .execute()
      ).map((r) => r.type);
    expect(await queued()).toEqual([]);
    await t.request('PATCH', `${path()}/${endpoint.id}`, { body: { enabled: true } });
    await t.request('POST', `/v2/agent/${t.project.id}/job`, { body: { prompt: 'resumed' } });
    expect(await queued()).toEqual(['job.created']);
    const listed = await json<{ webhooks: EndpointBody[] }>(t.request('GET', path()));
    expect(listed.webhooks.find((w) => w.id === endpoint.id)).toMatchObject({ enabled: true });
    expect((await t.request('PATCH', `${path()}/whk_nope`, { body: { enabled: false } })).status).toBe(404);
    await t.request('DELETE', `${path()}/${endpoint.id}`);
  });

  it.each([
    [{ url: 'ftp://example.com/' }, 'url'],
    [{ url: 'https://user:secret@example.com/' }, 'url'],
    [{ url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
    [{ url: '' }, 'url'],
    [{ events: ['job.exploded'] }, 'events'],
    [{ events: [] }, 'events'],
    [{ enabled: 'yes' }, 'enabled'],
    [{ secret: 'mine' }, 'secret'],
    [{}, 'body'],
  ])('refuses the update %j with a 400 naming %s', async (body, field) => {
    const endpoint = await json<EndpointBody>(
      t.request('POST', path(), { body: { url: 'https://hooks.example.com/keep' } }),
    );
    const response = await t.request('PATCH', `${path()}/${endpoint.id}`, { body });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain(field);
    // Nothing changed.
    const [kept] = (await json<{ webhooks: EndpointBody[] }>(t.request('GET', path()))).webhooks.filter(
      (w) => w.id === endpoint.id,
    );
    expect(kept).toMatchObject({ url: 'https://hooks.example.com/keep', enabled: true, updatedAt: null });
    await t.request('DELETE', `${path()}/${endpoint.id}`);
  });

  it('rotates the secret: the new one shown once, the old one kept sealed for 24 hours', async () => {
    const endpoint = await json<EndpointBody>(
      t.request('POST', path(), { body: { url: 'https://hooks.example.com/rotate' } }),
    );
    const response = await t.request('POST', `${path()}/${endpoint.id}/rotate-secret`);
    expect(response.status).toBe(200);
    const rotated = await json<EndpointBody>(response);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    const until = Date.parse(rotated.previousSecretExpiresAt ?? '');
    expect(until - Date.parse(rotated.updatedAt ?? '')).toBe(24 * 60 * 60 * 1000);
    const row = await t.services.storage.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    for (const sealed of [row.secret, row.previous_secret ?? '']) {
      expect(sealed).toMatch(/^v1\./);
      expect(sealed).not.toContain(rotated.secret);
      expect(sealed).not.toContain(endpoint.secret);
    }
    // Listed without any secret, with the overlap's end.
    const [listed] = (await json<{ webhooks: EndpointBody[] }>(t.request('GET', path()))).webhooks.filter(
      (w) => w.id === endpoint.id,
    );
    expect(listed).not.toHaveProperty('secret');
    expect(listed?.previousSecretExpiresAt).toBe(rotated.previousSecretExpiresAt);
    expect((await t.request('POST', `${path()}/whk_nope/rotate-secret`)).status).toBe(404);
    await t.request('DELETE', `${path()}/${endpoint.id}`);
  });

  it('queues a test event, lists deliveries and re-sends one; unknown ids are 404', async () => {
    const endpoint = await json<EndpointBody>(
      t.request('POST', path(), { body: { url: 'https://hooks.example.com/x' } }),
    );
    const queued = await t.request('POST', `${path()}/${endpoint.id}/test`);
    expect(queued.status).toBe(202);
    const delivery = await json<DeliveryBody>(queued);
    expect(delivery).toMatchObject({ type: 'webhook.test', status: 'pending', attempts: 0 });
    const log = await json<{ deliveries: DeliveryBody[] }>(
      t.request('GET', `${path()}/${endpoint.id}/deliveries`),
    );
    expect(log.deliveries).toEqual([delivery]);
    const resent = await t.request('POST', `${path()}/${endpoint.id}/deliveries/${delivery.id}/resend`);
    expect(resent.status).toBe(202);
    expect(await resent.json()).toMatchObject({
      id: delivery.id,
      eventId: delivery.eventId,
      status: 'pending',
    });
    expect((await t.request('POST', `${path()}/whk_nope/test`)).status).toBe(404);
    expect((await t.request('GET', `${path()}/whk_nope/deliveries`)).status).toBe(404);
    expect((await t.request('POST', `${path()}/${endpoint.id}/deliveries/whd_nope/resend`)).status).toBe(404);
  });

  it("does not reach another project's endpoints", async () => {
    const endpoint = await json<EndpointBody>(
      t.request('POST', path(), { body: { url: 'https://b.example.com/' } }),
    );
    const other = await t.services.projects.create({
      name: 'Other',
      repository: 'https://example.com/o.git',
    });
    const { key } = await t.services.keys.create(other.id, 'other');
    const otherPath = `/v2/agent/${other.id}/webhooks/${endpoint.id}`;
    expect((await t.request('DELETE', otherPath, { key })).status).toBe(404);
    expect((await t.request('PATCH', otherPath, { key, body: { enabled: false } })).status).toBe(404);
    expect((await t.request('POST', `${otherPath}/rotate-secret`, { key })).status).toBe(404);
    expect((await t.request('POST', `${otherPath}/test`, { key })).status).toBe(404);
    expect((await t.request('GET', `${otherPath}/deliveries`, { key })).status).toBe(404);
  });

  it('creates job deliveries in the same transaction as the job change', async () => {
    const endpoint = await json<EndpointBody>(
      t.request('POST', path(), { body: { url: 'https://c.example.com/', events: ['job.archived'] } }),
    );
    const job = await json<JobBody>(
      t.request('POST', `/v2/agent/${t.project.id}/job`, { body: { prompt: 'x' } }),
    );
    const archived = await json<JobBody>(
      t.request('POST', `/v2/agent/${t.project.id}/job/${job.id}/archive`),
    );
    // Archiving again changes nothing, and announces nothing.
    await t.request('POST', `/v2/agent/${t.project.id}/job/${job.id}/archive`);
    const rows = await t.services.storage.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    expect(rows.map((r) => r.type)).toEqual(['job.archived']);
    expect(JSON.parse(rows[0]?.body ?? '{}')).toEqual({
      id: rows[0]?.event_id,
      type: 'job.archived',
      createdAt: archived.updatedAt,
      data: { job: archived },
    });
  });

  it("creates an endpoint on an install without DOCWRIGHT_SECRET_KEY, its secret sealed with the data directory's key", async () => {
    const bare = await startTestApp();
    try {
      const response = await bare.request('POST', `/v2/agent/${bare.project.id}/webhooks`, {
        body: { url: 'https://example.com/' },
      });
      expect(response.status).toBe(201);
      const { id, secret } = await json<EndpointBody & { secret: string }>(response);
      expect(bare.services.secretKey).toMatchObject({
        from: 'file',
        file: join(bare.database.dir, 'secret.key'),
      });
      const stored = await bare.services.storage.db
        .selectFrom('webhook_endpoints')
        .select('secret')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      const fileKey = new SecretBox(readFileSync(join(bare.database.dir, 'secret.key'), 'utf8'));
      expect(fileKey.open(stored.secret, secretContext(id))).toBe(secret);
    } finally {
      await bare.close();
    }
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import type { SecretBox } from '../../../src/domain/secrets/secret-box.ts';
import { secretContext } from '../../../src/domain/webhooks/webhook-service.ts';
import { findWebhookEndpoint } from '../../../src/storage/queries/webhook-endpoints.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import {
  type DeliveryBody,
  type EndpointBody,
  eventually,
  json,
  type ReceivedDelivery,
  startWebhookReceiver,
} from '../../helpers/webhook-receiver.ts';

const ENV = {
  DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=',
  DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: 'true',
  DOCWRIGHT_POLL_INTERVAL_MS: '20',
};
const DAY_MS = 24 * 60 * 60 * 1000;

describe(`webhook secret rotation (${testBackend})`, { timeout: 60_000 }, () => {
  let t: TestApp | undefined;
  const closers: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await t?.close();
    t = undefined;
  });

  it('signs with the new and the old secret for 24 hours after a rotation, then with the new one only', async () => {
    // Docwright's clock and the receiver's move together, so the signed timestamp stays fresh.
    let offsetMs = 0;
    const now = () => Date.now() + offsetMs;
    t = await startTestApp({ env: ENV, clock: () => new Date(now()) });
    const app = t;
    const receiver = await startWebhookReceiver({ now });
    closers.push(receiver.close);
    const base = `/v2/agent/${app.project.id}/webhooks`;
    const endpoint = await json<EndpointBody>(app.request('POST', base, { body: { url: receiver.url() } }));
    app.services.webhookDispatcher.start();
    closers.push(() => app.services.webhookDispatcher.stop());

    /** Sends a test event and waits for the receiver to get it. */
    const deliver = async (): Promise<ReceivedDelivery> => {
      const queued = await json<DeliveryBody>(app.request('POST', `${base}/${endpoint.id}/test`));
      return eventually(() => receiver.received.find((r) => r.headers['docwright-delivery'] === queued.id));
    };

    receiver.verifyWith(endpoint.secret);
    const before = await deliver();
    expect(before).toMatchObject({ verified: true, v1Count: 1, signedWith: [endpoint.secret] });

    const rotated = await json<EndpointBody>(app.request('POST', `${base}/${endpoint.id}/rotate-secret`));
    // A receiver holding both secrets sees both signatures, the new one first.
    receiver.verifyWith(rotated.secret, endpoint.secret);
    const during = await deliver();
    expect(during.headers['docwright-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(during).toMatchObject({
      verified: true,
      v1Count: 2,
      signedWith: [rotated.secret, endpoint.secret],
    });
    // The first v1 is the new secret's: a receiver that switched verifies.
    receiver.verifyWith(rotated.secret);
    const newOnly = await deliver();
    expect(newOnly).toMatchObject({ verified: true, v1Count: 2, signedWith: [rotated.secret] });

    // Just before the overlap ends, a receiver still on the old secret verifies.
    offsetMs = DAY_MS - 60_000;
    receiver.verifyWith(endpoint.secret);
    expect(await deliver()).toMatchObject({ verified: true, v1Count: 2, signedWith: [endpoint.secret] });

    // After it, only the new secret signs: the old one no longer verifies.
    offsetMs = DAY_MS + 1_000;
    const after = await deliver();
    expect(after).toMatchObject({ verified: false, v1Count: 1, signedWith: [] });
    receiver.verifyWith(rotated.secret, endpoint.secret);
    const again = await deliver();
    expect(again).toMatchObject({ verified: true, v1Count: 1, signedWith: [rotated.secret] });
    const [listed] = (await json<{ webhooks: EndpointBody[] }>(app.request('GET', base))).webhooks;
    expect(listed?.previousSecretExpiresAt).toBeNull();
  });

  it('rotating again during the overlap keeps only the latest two secrets', async () => {
    t = await startTestApp({ env: ENV });
    const app = t;
    const receiver = await startWebhookReceiver();
    closers.push(receiver.close);
    const base = `/v2/agent/${app.project.id}/webhooks`;
    const first = await json<EndpointBody>(app.request('POST', base, { body: { url: receiver.url() } }));
    const second = await json<EndpointBody>(app.request('POST', `${base}/${first.id}/rotate-secret`));
    const third = await json<EndpointBody>(app.request('POST', `${base}/${first.id}/rotate-secret`));
    app.services.webhookDispatcher.start();
    closers.push(() => app.services.webhookDispatcher.stop());
    receiver.verifyWith(third.secret, second.secret, first.secret);
    await app.request('POST', `${base}/${first.id}/test`);
    const [delivery] = await eventually(() => (receiver.received.length > 0 ? receiver.received : undefined));
    expect(delivery).toMatchObject({ v1Count: 2, signedWith: [third.secret, second.secret] });
  });

  it('two rotations at once each keep their answer: one secret is the current, the other the previous', async () => {
    t = await startTestApp({ env: ENV });
    const app = t;
    const base = `/v2/agent/${app.project.id}/webhooks`;
    const first = await json<EndpointBody>(
      app.request('POST', base, { body: { url: 'https://hooks.example.com/docwright' } }),
    );
    // Straight to the service, so both read the endpoint before either writes.
    const [a, b] = await Promise.all([
      app.services.webhooks.rotateSecret(app.project.id, first.id),
      app.services.webhooks.rotateSecret(app.project.id, first.id),
    ]);
    const row = await findWebhookEndpoint(app.services.storage.db, app.project.id, first.id);
    const box = app.services.secretBox as SecretBox;
    const stored = [row?.secret, row?.previous_secret].map((sealed) =>
      box.open(sealed as string, secretContext(first.id)),
    );
    expect(stored.sort()).toEqual([a.secret, b.secret].sort());
  });
});

import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';

/**
 * DOCWRIGHT_ANALYTICS_INGEST_CONCURRENCY: past the limit, ingestion requests wait unread in
 * arrival order, after authentication; a client that goes away while waiting gives its place
 * back; and every request waited for is answered and stored.
 */
describe(`ingestion requests admitted a few at a time (${testBackend})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: {
        DOCWRIGHT_ANALYTICS_INGEST_CONCURRENCY: '2',
        // These requests hold their slots half-sent on purpose, however slow the machine.
        DOCWRIGHT_ANALYTICS_INGEST_STALL_SECONDS: '600',
        DOCWRIGHT_BODY_TIMEOUT_SECONDS: '600',
      },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const batch = (name: string, count = 3) =>
    JSON.stringify({
      events: Array.from({ length: count }, (_, i) => ({
        id: `${name}-${i}`,
        timestamp: '2025-03-01T12:00:00Z',
        path: `/${name}`,
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
        ip: `203.0.113.${i}`,
      })),
    });

  /** A request on a socket of its own, its body sent up to `sendBytes` bytes. */
  function rawRequest(body: string, sendBytes = body.length) {
    const url = new URL(t.baseUrl);
    const socket: Socket = connect(Number(url.port), url.hostname);
    const head =
      `POST /v1/analytics/${t.project.id}/events HTTP/1.1\r\nHost: ${url.host}\r\n` +
      `Authorization: Bearer ${t.key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
    socket.write(head + body.slice(0, sendBytes));
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.on('error', () => {});
    const answered = new Promise<{ status: number; body: unknown }>((resolve) => {
      socket.on('close', () => {
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
        const text = received.slice(received.indexOf('\r\n\r\n') + 4);
        resolve({ status, body: text ? JSON.parse(text) : null });
      });
    });
    return { answered, rest: () => socket.write(body.slice(sendBytes)), destroy: () => socket.destroy() };
  }

  const gate = () => [t.app.ingestGate.inside, t.app.ingestGate.waiting];

  it('lets two in, holds the third unread until one is answered, and answers them all', async () => {
    const a = batch('a');
    const b = batch('b');
    const first = rawRequest(a, 10);
    const second = rawRequest(b, 10);
    await expect.poll(gate).toEqual([2, 0]);

    // The third waits at the gate with its whole body sent…
    const third = t.request('POST', `/v1/analytics/${t.project.id}/events`, { body: JSON.parse(batch('c')) });
    let thirdSettled = false;
    void third.finally(() => {
      thirdSettled = true;
    });
    await expect.poll(gate).toEqual([2, 1]);
    // …while a request without a key is refused at once: authentication comes before the gate.
    const anonymous = await t.request('POST', `/v1/analytics/${t.project.id}/events`, {
      body: JSON.parse(batch('x')),
      key: null,
    });
    expect(anonymous.status).toBe(401);
    expect(gate()).toEqual([2, 1]);
    expect(thirdSettled).toBe(false);

    first.rest();
    expect(await first.answered).toEqual({ status: 202, body: { accepted: 3, duplicates: 0, rejected: [] } });
    const thirdAnswer = await third;
    expect(thirdAnswer.status).toBe(202);
    expect(await thirdAnswer.json()).toEqual({ accepted: 3, duplicates: 0, rejected: [] });
    expect(gate()).toEqual([1, 0]);

    second.rest();
    expect((await second.answered).status).toBe(202);
    await expect.poll(gate).toEqual([0, 0]);

    const views = await t.request(
      'GET',
      `/v1/analytics/${t.project.id}/views?dateFrom=2025-03-01&dateTo=2025-03-02`,
    );
    const { totals } = (await views.json()) as { totals: { total: number } };
    expect(totals.total).toBe(9);
  });

  it('gives back the place of a client that goes away, waiting or half-way through its body', async () => {
    const holding = rawRequest(batch('d'), 10);
    const halfWay = rawRequest(batch('e'), 10);
    await expect.poll(gate).toEqual([2, 0]);
    const waiting = rawRequest(batch('f'));
    await expect.poll(gate).toEqual([2, 1]);

    waiting.destroy();
    await expect.poll(gate).toEqual([2, 0]);
    halfWay.destroy();
    await expect.poll(gate).toEqual([1, 0]);
    holding.destroy();
    await expect.poll(gate).toEqual([0, 0]);

    // Nothing of theirs was stored, and the gate still lets requests through.
    for (const name of ['g', 'h', 'i']) {
      const response = await t.request('POST', `/v1/analytics/${t.project.id}/events`, {
        body: JSON.parse(batch(name)),
      });
      expect(response.status).toBe(202);
    }
    const views = await t.request(
      'GET',
      `/v1/analytics/${t.project.id}/views?dateFrom=2025-03-01&dateTo=2025-03-02`,
    );
    const { totals } = (await views.json()) as { totals: { total: number } };
    expect(totals.total).toBe(9 + 9);
  });
});

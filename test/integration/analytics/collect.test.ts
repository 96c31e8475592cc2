import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_RULES } from '../../../src/domain/analytics/page-rules.ts';
import { startTestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import { type AnalyticsTestApp, startAnalyticsApp } from './analytics-app.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const ORIGIN = 'https://docs.example.com';

describe(`browser collect endpoint on ${testBackend}`, () => {
  let t: AnalyticsTestApp;
  afterEach(() => t.close());

  const collect = (headers: Record<string, string>, body: unknown = { p: '/quickstart' }) =>
    t.request('POST', `/v1/analytics/${t.project.id}/collect`, {
      key: null,
      body: JSON.stringify(body),
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': FIREFOX, ...headers },
    });
  const breakdown = async () =>
    (await (await t.request('GET', `/v1/analytics/${t.project.id}/breakdown`)).json()) as {
      categories: Array<{ category: string; visitors: number; views: number }>;
    };

  it('serves the tracker script', async () => {
    t = await startAnalyticsApp();
    const res = await fetch(`${t.baseUrl}/script.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    const script = await res.text();
    expect(script).toContain('/collect');
    expect(script).toContain('pushState');
    expect(script).not.toMatch(/cookie|localStorage/);
    expect(script.length).toBeLessThan(2048);
  });

  it('accepts views only from the allowed origins, without a key, and answers CORS', async () => {
    t = await startAnalyticsApp();
    expect((await collect({ origin: ORIGIN })).status).toBe(403); // nothing allowed yet
    const patch = await t.request('PATCH', `/v1/analytics/${t.project.id}/settings`, {
      body: { allowedOrigins: ['https://Docs.Example.com/'] },
    });
    expect(await patch.json()).toEqual({
      allowedOrigins: [ORIGIN],
      countAiCrawlersAsAi: false,
      saltRotation: null,
      pageRules: DEFAULT_PAGE_RULES,
    });

    const ok = await collect({ origin: ORIGIN });
    expect(ok.status).toBe(202);
    expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect((await collect({ origin: 'https://evil.example' })).status).toBe(403);
    expect((await collect({})).status).toBe(403);

    const preflight = await t.request('OPTIONS', `/v1/analytics/${t.project.id}/collect`, {
      key: null,
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const refused = await t.request('OPTIONS', `/v1/analytics/${t.project.id}/collect`, {
      key: null,
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();

    expect((await collect({ origin: ORIGIN }, { p: 'not a path' })).status).toBe(400);
    expect((await collect({ origin: ORIGIN }, { nope: 1 })).status).toBe(400);
    expect((await breakdown()).categories[0]).toEqual({ category: 'human', visitors: 1, views: 1 });
  });

  it('takes the client IP from X-Forwarded-For only through a trusted proxy', async () => {
    t = await startAnalyticsApp({ analytics: { trustedProxies: [] } });
    await t.request('PATCH', `/v1/analytics/${t.project.id}/settings`, {
      body: { allowedOrigins: [ORIGIN] },
    });
    // Untrusted: the forwarded addresses are ignored, so these are one visitor (the socket's IP).
    await collect({ origin: ORIGIN, 'x-forwarded-for': '198.51.100.1' });
    await collect({ origin: ORIGIN, 'x-forwarded-for': '198.51.100.2' });
    expect((await breakdown()).categories[0]?.visitors).toBe(1);
    await t.close();

    t = await startAnalyticsApp({ analytics: { trustedProxies: ['loopback'] } });
    await t.request('PATCH', `/v1/analytics/${t.project.id}/settings`, {
      body: { allowedOrigins: [ORIGIN] },
    });
    await collect({ origin: ORIGIN, 'x-forwarded-for': '198.51.100.1' });
    await collect({ origin: ORIGIN, 'x-forwarded-for': '198.51.100.2' });
    await collect({ origin: ORIGIN, 'x-forwarded-for': '198.51.100.2, 127.0.0.1' });
    expect((await breakdown()).categories[0]?.visitors).toBe(2);
  });

  describe('per-client rate limit', () => {
    // 12:00:10: the one-minute window ends in 50 s.
    let now = new Date('2026-01-01T12:00:10.000Z');
    const startLimited = async (limit: string, trustedProxies: string[] = []) => {
      now = new Date('2026-01-01T12:00:10.000Z');
      t = await startTestApp({
        env: { DOCWRIGHT_ANALYTICS_COLLECT_RATE_LIMIT: limit },
        analytics: { trustedProxies },
        clock: () => now,
      });
      await t.request('PATCH', `/v1/analytics/${t.project.id}/settings`, {
        body: { allowedOrigins: [ORIGIN] },
      });
    };
    const views = async () => (await breakdown()).categories.find((c) => c.category === 'human')?.views;

    it('accepts beacons under the limit and answers 429 with Retry-After over it, storing nothing', async () => {
      await startLimited('3');
      for (const p of ['/a', '/b', '/c']) expect((await collect({ origin: ORIGIN }, { p })).status).toBe(202);
      const refused = await collect({ origin: ORIGIN }, { p: '/d' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('50');
      expect(refused.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      const body = (await refused.json()) as { error: string; requestId: string };
      expect(body.error).toMatch(/Rate limit of 3 views from this address per 60 s reached; retry in 50 s/);
      expect(body.requestId).toBeTruthy();
      expect(await views()).toBe(3);
    });

    it('gives each client IP behind a trusted proxy its own budget', async () => {
      await startLimited('1', ['loopback']);
      expect((await collect({ origin: ORIGIN, 'x-forwarded-for': '198.51.100.1' })).status).toBe(202);
      expect((await collect({ origin: ORIGIN, 'x-forwarded-for': '198.51.100.1' })).status).toBe(429);
      expect((await collect({ origin: ORIGIN, 'x-forwarded-for': '198.51.100.2' })).status).toBe(202);
      expect((await collect({ origin: ORIGIN, 'x-forwarded-for': '198.51.100.2' })).status).toBe(429);
      expect((await breakdown()).categories[0]).toEqual({ category: 'human', visitors: 2, views: 2 });
    });

    it('does not count refused origins against the budget', async () => {
      await startLimited('1');
      expect((await collect({ origin: 'https://evil.example' })).status).toBe(403);
      expect((await collect({ origin: ORIGIN })).status).toBe(202);
    });

    it('opens a new window when the minute ends', async () => {
      await startLimited('2');
      expect((await collect({ origin: ORIGIN }, { p: '/a' })).status).toBe(202);
      expect((await collect({ origin: ORIGIN }, { p: '/b' })).status).toBe(202);
      expect((await collect({ origin: ORIGIN }, { p: '/c' })).status).toBe(429);
      now = new Date('2026-01-01T12:00:59.999Z');
      expect((await collect({ origin: ORIGIN }, { p: '/c' })).status).toBe(429);
      now = new Date('2026-01-01T12:01:00.000Z');
      expect((await collect({ origin: ORIGIN }, { p: '/c' })).status).toBe(202);
      expect(await views()).toBe(3);
    });

    it('is off when the limit is 0', async () => {
      await startLimited('0');
      for (let i = 0; i < 200; i++) {
        expect((await collect({ origin: ORIGIN }, { p: `/page-${i}` })).status).toBe(202);
      }
      expect(await views()).toBe(200);
    });
  });
});

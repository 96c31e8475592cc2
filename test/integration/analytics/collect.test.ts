import { afterEach, describe, expect, it } from 'vitest';
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
    expect(await patch.json()).toEqual({ allowedOrigins: [ORIGIN], countAiCrawlersAsAi: false });

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
});

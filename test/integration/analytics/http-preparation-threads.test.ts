import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackend } from '../../helpers/storage.ts';
import { type AnalyticsTestApp, startAnalyticsApp } from './analytics-app.ts';

// Large ingestion bodies are parsed and prepared in preparation threads. The same requests sent
// to a server without threads must get the same answers, and the exports must agree.

const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Claude-User (claude-code/2.1.158; +https://support.anthropic.com/)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'curl/8.5.0',
  '',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Obsidian/1.6.7 Chrome/124.0.6367.243 Electron/30.1.2 Safari/537.36 — é ✓',
];
// Addresses in operators' published ranges (shipped lists), so some views are verified.
const PUBLISHED = ['20.171.206.7', '9.129.0.1', '66.249.66.1'];
const PAGES = [
  '/guide',
  '/guide.html',
  '/api/search?q=x',
  '/quickstart.md',
  '/llms.txt',
  '/private/a',
  '/ünï/cöde',
  '/',
];
const NOW = Date.parse('2025-03-10T00:00:00Z');

/** A deterministic mix of valid and invalid events over four days, with repeated ids. */
function batch(seed: number, count: number): unknown[] {
  // mulberry32
  let state = seed;
  const next = (n: number) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * n);
  };
  const events: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const day = next(4);
    const event: Record<string, unknown> = {
      timestamp:
        next(5) === 0
          ? Date.parse(`2025-03-0${6 + day}T00:00:00Z`) + next(86_400_000)
          : new Date(Date.parse(`2025-03-0${6 + day}T00:00:00Z`) + next(86_400_000)).toISOString(),
      path: PAGES[next(PAGES.length)],
      userAgent: AGENTS[next(AGENTS.length)],
    };
    if (next(6) === 0) event.visitorId = `user-${next(40)}`;
    else event.ip = next(8) === 0 ? (PUBLISHED[next(PUBLISHED.length)] as string) : `198.51.100.${next(60)}`;
    if (next(2) === 0) event.id = next(3) === 0 ? next(3000) : `e-${next(3000)}`;
    if (next(7) === 0) event.accept = 'text/markdown';
    if (next(9) === 0) event.referrer = `https://search.example/results?q=${next(10)}#top`;
    if (next(9) === 0) event.status = next(2) === 0 ? 304 : 200;
    switch (next(40)) {
      case 0:
        delete event.path;
        break;
      case 1:
        event.timestamp = '2025-03-12T00:00:01Z'; // more than a day past the server's clock
        break;
      case 2:
        event.useragent = 'typo';
        break;
      case 3:
        event.status = 404;
        break;
      case 4:
        event.ip = 'not-an-ip';
        break;
      case 5:
        event.timestamp = '2025-03-08 10:00';
        break;
    }
    events.push(event);
  }
  return events;
}

const withoutRequestId = async (res: Response) => {
  const { requestId: _, ...body } = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body };
};

describe(`ingestion in preparation threads on ${testBackend}`, () => {
  let threaded: AnalyticsTestApp;
  let inline: AnalyticsTestApp;
  const apps = () => [threaded, inline];
  const clock = () => new Date(NOW);

  beforeAll(async () => {
    threaded = await startAnalyticsApp({ analytics: { preparationThreads: 2 }, clock });
    inline = await startAnalyticsApp({ analytics: { preparationThreads: 0 }, clock });
    // The project's own settings reach the threads: rotation and page rules.
    for (const t of apps()) {
      const res = await t.request('PATCH', `/v1/analytics/${t.project.id}/settings`, {
        body: { saltRotation: 'never', pageRules: { excludePaths: ['/private/**', '/api/search'] } },
      });
      expect(res.status).toBe(200);
    }
  });
  afterAll(async () => {
    await Promise.all(apps().map((t) => t?.close()));
  });

  const post = (t: AnalyticsTestApp, body: string | Uint8Array) =>
    fetch(`${t.baseUrl}/v1/analytics/${t.project.id}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body,
    });

  it('answers large batches as the main thread does, and the exports agree', async () => {
    const bodies = [batch(1, 1000), batch(2, 1000), batch(3, 400), batch(1, 1000)].map((events) =>
      JSON.stringify({ events }),
    );
    for (const body of bodies) {
      expect(threaded.services.analytics.preparesInThreads(Buffer.byteLength(body))).toBe(true);
      const [a, b] = await Promise.all(apps().map((t) => post(t, body)));
      const answer = await (a as Response).json();
      expect(answer).toEqual(await (b as Response).json());
      expect((a as Response).status).toBe(202);
      expect((answer as { rejected: unknown[] }).rejected.length).toBeGreaterThan(0);
    }
    expect(threaded.services.analytics.batchesPreparedInThreads).toBe(bodies.length);
    expect(inline.services.analytics.batchesPreparedInThreads).toBe(0);

    const exports = [
      '/visitors?limit=100',
      '/views?limit=100',
      '/visitors?verifiedOnly=true',
      '/breakdown',
      '/timeseries?interval=hour&dateFrom=2025-03-07&dateTo=2025-03-08',
    ];
    for (const path of exports) {
      const [a, b] = await Promise.all(
        apps().map(async (t) => (await t.request('GET', `/v1/analytics/${t.project.id}${path}`)).json()),
      );
      expect(a, path).toEqual(b);
    }
    const totals = (await (
      await threaded.request('GET', `/v1/analytics/${threaded.project.id}/breakdown`)
    ).json()) as { categories: { category: string; views: number }[] };
    // The mix reached every category, so the comparison covers each.
    expect(totals.categories.filter((c) => c.views > 0).length).toBe(5);
  });

  it('fails bodies that are not a plain batch exactly as without threads', async () => {
    const events = JSON.stringify(batch(4, 200)).slice(1, -1);
    const bodies = [
      `{"events":[${events}`, // cut short
      `{"events":[${events}],"dryRun":true}`,
      `{"events":{"a":[${events}]}}`,
      JSON.stringify({ events: batch(5, 1001) }),
      `{"events":[{"__proto__":{"x":1}},${events}]}`,
      // Escaped, and the other key Fastify refuses: the threads look for both forms.
      `{"events":[{"\\u005f_proto__":{"x":1}},${events}]}`,
      `{"events":[{"constructor":{"prototype":{"x":1}}},${events}]}`,
      `{"events":[${events}],"events2":[]}`,
    ];
    for (const body of bodies) {
      expect(threaded.services.analytics.preparesInThreads(Buffer.byteLength(body))).toBe(true);
      const [a, b] = await Promise.all(apps().map(async (t) => withoutRequestId(await post(t, body))));
      expect(a).toEqual(b);
      expect(a?.status).toBe(400);
    }
    // A body whose one event object is large, but valid, goes in as without threads.
    const one = JSON.stringify({
      events: [
        { timestamp: '2025-03-09T10:00:00Z', path: '/big', userAgent: 'x'.repeat(20_000), ip: '192.0.2.1' },
      ],
    });
    const [a, b] = await Promise.all(apps().map(async (t) => (await post(t, one)).json()));
    expect(a).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    expect(b).toEqual(a);
  });

  it('decodes the bytes as the main thread does: invalid UTF-8, a byte order mark', async () => {
    const before = threaded.services.analytics.batchesPreparedInThreads;
    const events = batch(6, 300).map((event, i) =>
      i % 3 === 0 ? { ...(event as object), path: `/bytes-\u0080-${i % 7}` } : event,
    );
    // U+0080 (bytes C2 80) becomes C2 FF, an invalid sequence, which both servers must read as U+FFFD.
    const bytes = Buffer.from(JSON.stringify({ events }));
    for (let i = 0; i < bytes.length - 1; i++)
      if (bytes[i] === 0xc2 && bytes[i + 1] === 0x80) bytes[i + 1] = 0xff;
    const withBom = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(JSON.stringify({ events: batch(7, 300) })),
    ]);
    for (const body of [bytes, withBom]) {
      expect(threaded.services.analytics.preparesInThreads(body.length)).toBe(true);
      const [a, b] = await Promise.all(apps().map(async (t) => withoutRequestId(await post(t, body))));
      expect(a).toEqual(b);
      expect(a?.status).toBe(202);
    }
    // The invalid bytes were prepared in a thread; the byte order mark was handed back.
    expect(threaded.services.analytics.batchesPreparedInThreads).toBe(before + 1);
    // Paths show in the export: a thread decoding otherwise would name other pages.
    const [a, b] = await Promise.all(
      apps().map(async (t) =>
        (await t.request('GET', `/v1/analytics/${t.project.id}/views?limit=200`)).json(),
      ),
    );
    expect(a).toEqual(b);
    const paths = (a as { views: { path: string }[] }).views.map((row) => row.path);
    expect(paths.filter((path) => path.startsWith('/bytes-')).length).toBe(7);
  });
});

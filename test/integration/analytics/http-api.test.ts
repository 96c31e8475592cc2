import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testBackend } from '../../helpers/storage.ts';
import { type AnalyticsTestApp, startAnalyticsApp } from './analytics-app.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const CLAUDE_CODE = 'Claude-User (claude-code/2.1.158; +https://support.anthropic.com/)';
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot';

interface Report {
  totals: { human: number; ai: number; total: number };
  visitors: Array<{ path: string }>;
  hasMore: boolean;
}

/** The purpose split of a count: AI visitors (or views) by the purpose of their agent. */
const split = (aiAssistant = 0, aiTraining = 0) => ({ aiAssistant, aiSearch: 0, aiTraining, aiOther: 0 });

const errorBody = async (res: Response) => (await res.json()) as { error: string; details?: unknown };

const views = [
  { id: 'a1', timestamp: '2025-03-01T09:00:00Z', path: '/quickstart', userAgent: CHROME, ip: '203.0.113.1' },
  { id: 'a2', timestamp: '2025-03-01T09:05:00Z', path: '/quickstart/', userAgent: CHROME, ip: '203.0.113.1' },
  {
    id: 'a3',
    timestamp: '2025-03-01T10:00:00Z',
    path: '/quickstart.md',
    userAgent: CLAUDE_CODE,
    ip: '203.0.113.2',
  },
  { id: 'a4', timestamp: '2025-03-01T11:00:00Z', path: '/api', userAgent: CHROME, visitorId: 'u1' },
  {
    id: 'a5',
    timestamp: '2025-03-01T12:00:00Z',
    path: '/api',
    userAgent: 'curl/8.5.0',
    visitorId: 'u1',
    accept: 'text/markdown',
  },
  { id: 'a6', timestamp: '2025-03-02T00:00:00Z', path: '/api', userAgent: GPTBOT, ip: '198.51.100.9' },
  {
    id: 'a7',
    timestamp: '2025-03-02T23:59:59.999+00:00',
    path: '/guide',
    userAgent: CHROME,
    ip: '203.0.113.3',
  },
];

describe(`analytics HTTP API on ${testBackend}`, () => {
  let t: AnalyticsTestApp;
  beforeEach(async () => {
    t = await startAnalyticsApp();
  });
  afterEach(() => t.close());

  const ingest = (events: unknown[], key?: string) =>
    t.request('POST', `/v1/analytics/${t.project.id}/events`, { body: { events }, ...(key ? { key } : {}) });
  const get = (path: string, headers: Record<string, string> = {}) =>
    t.request('GET', `/v1/analytics/${t.project.id}${path}`, { headers });
  const json = async (path: string) => (await (await get(path)).json()) as Report;

  it('ingests with 202, reports duplicates and rejections, and retries add nothing', async () => {
    const first = await ingest([...views, { path: '/x' }]);
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({
      accepted: 7,
      duplicates: 0,
      rejected: [{ index: 7, reason: 'timestamp is required' }],
    });
    const retry = await ingest(views);
    expect(await retry.json()).toEqual({ accepted: 0, duplicates: 7, rejected: [] });

    const res = await get('/visitors');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      // u1 is one visitor seen as human (Chrome) and as ai (curl asking for Markdown).
      // GPTBot (a training crawler) is in aiTraining, not in ai or total.
      totals: { human: 3, ai: 2, total: 4, ...split(2, 1) },
      visitors: [
        { path: '/api', human: 1, ai: 1, total: 1, ...split(1, 1) },
        { path: '/guide', human: 1, ai: 0, total: 1, ...split() },
        { path: '/quickstart', human: 1, ai: 1, total: 2, ...split(1) },
      ].sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : 1)),
      hasMore: false,
    });
    const viewsRes = await get('/views');
    expect(await viewsRes.json()).toMatchObject({
      totals: { human: 4, ai: 2, total: 6 },
      views: expect.arrayContaining([{ path: '/quickstart', human: 2, ai: 1, total: 3, ...split(1) }]),
    });
  });

  it('lets a project choose its own salt rotation, for the views stored from then on', async () => {
    const client = (id: string, timestamp: string) => ({
      id,
      timestamp,
      path: '/guide',
      userAgent: CHROME,
      ip: '198.51.100.9',
    });
    const total = async (from: string, to: string) =>
      (await json(`/visitors?dateFrom=${from}&dateTo=${to}`)).totals.total;
    const setRotation = (saltRotation: unknown) =>
      t.request('PATCH', `/v1/analytics/${t.project.id}/settings`, { body: { saltRotation } });

    // The server's rotation (daily): the same person on two days is two visitors.
    expect((await (await get('/settings')).json()) as { saltRotation: unknown }).toMatchObject({
      saltRotation: null,
    });
    await ingest([client('d1', '2025-03-01T10:00:00Z'), client('d2', '2025-03-02T10:00:00Z')]);
    expect(await total('2025-03-01', '2025-03-03')).toBe(2);

    expect(await (await setRotation('never')).json()).toMatchObject({ saltRotation: 'never' });
    await ingest([client('n1', '2025-03-05T10:00:00Z'), client('n2', '2025-03-06T10:00:00Z')]);
    expect(await total('2025-03-05', '2025-03-07')).toBe(1);
    expect(await total('2025-03-01', '2025-03-03')).toBe(2); // views stored before keep their ids

    expect(await (await setRotation('weekly')).json()).toMatchObject({ saltRotation: 'weekly' });
    // 2025-03-10 is a Monday: two days of one week, then the next week.
    await ingest([
      client('w1', '2025-03-10T10:00:00Z'),
      client('w2', '2025-03-11T10:00:00Z'),
      client('w3', '2025-03-17T10:00:00Z'),
    ]);
    expect(await total('2025-03-10', '2025-03-18')).toBe(2);

    expect(await (await setRotation(null)).json()).toMatchObject({ saltRotation: null });
    await ingest([client('x1', '2025-03-20T10:00:00Z'), client('x2', '2025-03-21T10:00:00Z')]);
    expect(await total('2025-03-20', '2025-03-22')).toBe(2);

    const bad = await setRotation('hourly');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain('saltRotation');
  });

  it('honours dateFrom inclusive, dateTo exclusive, offsets, and pages exactly', async () => {
    await ingest(views);
    const day2 = await json('/visitors?dateFrom=2025-03-02&dateTo=2025-03-03');
    expect(day2.totals).toEqual({ human: 1, ai: 0, total: 1, ...split(0, 1) });
    // 01:00+01:00 is midnight UTC; the exclusive dateTo at 09:05Z leaves out the second view.
    const offset = await json(
      `/visitors?dateFrom=${encodeURIComponent('2025-03-01T01:00:00+01:00')}&dateTo=2025-03-01T09:05:00Z`,
    );
    expect(offset.totals).toEqual({ human: 1, ai: 0, total: 1, ...split() });

    await t.request('PATCH', `/v1/analytics/${t.project.id}/settings`, {
      body: { countAiCrawlersAsAi: true },
    });
    const withCrawlers = await json('/visitors?dateFrom=2025-03-02');
    // The purpose split is the same whatever the setting.
    expect(withCrawlers.totals).toEqual({ human: 1, ai: 1, total: 2, ...split(0, 1) });

    const walked = [];
    for (let offsetParam = 0; ; offsetParam += 1) {
      const page = await json(`/visitors?limit=1&offset=${offsetParam}`);
      walked.push(...page.visitors);
      if (!page.hasMore) break;
    }
    expect(walked.map((r) => r.path)).toEqual(['/api', '/quickstart', '/guide']);
  });

  it('answers "all time" ranges from the epoch or before it like an open range, in JSON and CSV', async () => {
    await ingest(views);
    const text = async (path: string, accept = 'application/json') => (await get(path, { accept })).text();
    for (const measure of ['visitors', 'views', 'breakdown', 'timeseries']) {
      const open = await text(`/${measure}?dateTo=2027-01-01`);
      const openCsv = await text(`/${measure}?dateTo=2027-01-01`, 'text/csv');
      expect(JSON.stringify(JSON.parse(open))).toMatch(/quickstart|human/);
      for (const from of ['1969-07-20', '1970-01-01', '1970-01-01T00:00:00%2B05:30', '2000-01-01']) {
        expect(await text(`/${measure}?dateFrom=${from}&dateTo=2027-01-01`), `${measure} from ${from}`).toBe(
          open,
        );
        expect(await text(`/${measure}?dateFrom=${from}&dateTo=2027-01-01`, 'text/csv')).toBe(openCsv);
      }
    }
    const csv = await text('/visitors?dateFrom=1970-01-01&dateTo=2027-01-01', 'text/csv');
    expect(csv.trim().split('\r\n')).toHaveLength(4); // the header and /api, /quickstart, /guide
  });

  it('answers 400 with details naming the parameter', async () => {
    const cases: Array<[string, RegExp]> = [
      ['dateFrom=2025-02-30', /^dateFrom must be a date/],
      ['dateTo=yesterday', /^dateTo must be a date/],
      ['dateFrom=2025-03-02&dateTo=2025-03-01', /^dateFrom must be before dateTo/],
      ['limit=0', /^limit must be an integer from 1 to 250/],
      ['limit=251', /^limit/],
      ['limit=1.5', /^limit/],
      ['offset=-3', /^offset must be an integer of 0 or more/],
      ['offset=abc', /^offset/],
    ];
    for (const [query, message] of cases) {
      const res = await get(`/visitors?${query}`);
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { error: string; details: unknown };
      expect(body.error).toMatch(/Invalid query parameters/);
      expect(body.details, query).toEqual([{ message: expect.stringMatching(message) }]);
    }
  });

  it('serves CSV when asked, a time series and a breakdown', async () => {
    await ingest(views);
    const csv = await get('/visitors?limit=2', { accept: 'text/csv' });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('x-has-more')).toBe('true');
    expect(await csv.text()).toBe(
      'path,human,ai,total,ai_assistant,ai_search,ai_training,ai_other\r\n/quickstart,1,1,2,1,0,0,0\r\n/api,1,1,1,1,0,1,0\r\n',
    );

    const series = await (await get('/timeseries?interval=day')).json();
    expect(series).toEqual({
      interval: 'day',
      points: [
        {
          start: '2025-03-01T00:00:00.000Z',
          visitors: { human: 2, ai: 2, total: 3, ...split(2) },
          views: { human: 3, ai: 2, total: 5, ...split(2) },
        },
        {
          start: '2025-03-02T00:00:00.000Z',
          visitors: { human: 1, ai: 0, total: 1, ...split(0, 1) },
          views: { human: 1, ai: 0, total: 1, ...split(0, 1) },
        },
      ],
    });
    const seriesCsv = await (
      await get('/timeseries?interval=hour&dateFrom=2025-03-02', { accept: 'text/csv' })
    ).text();
    expect(seriesCsv.split('\r\n')[0]).toBe(
      'start,visitors_human,visitors_ai,visitors_total,views_human,views_ai,views_total,' +
        'visitors_ai_assistant,visitors_ai_search,visitors_ai_training,visitors_ai_other,' +
        'views_ai_assistant,views_ai_search,views_ai_training,views_ai_other',
    );
    expect(seriesCsv.split('\r\n')).toContain('2025-03-02T23:00:00.000Z,1,0,1,1,0,1,0,0,0,0,0,0,0,0');
    expect(seriesCsv.split('\r\n')).toContain('2025-03-02T00:00:00.000Z,0,0,0,0,0,0,0,0,1,0,0,0,1,0');

    const breakdown = (await (await get('/breakdown')).json()) as {
      categories: unknown[];
      agents: unknown[];
      operators: unknown[];
    };
    expect(breakdown.categories).toContainEqual({ category: 'ai_crawler', visitors: 1, views: 1 });
    expect(breakdown.agents).toContainEqual({ agent: 'Claude Code', category: 'ai', visitors: 1, views: 1 });
    expect(breakdown.agents).toContainEqual({ agent: 'curl', category: 'ai', visitors: 1, views: 1 });
    // curl has no operator; Claude Code is Anthropic's, GPTBot OpenAI's.
    expect(breakdown.operators).toEqual([
      { operator: 'Anthropic', visitors: 1, views: 1 },
      { operator: 'OpenAI', visitors: 1, views: 1 },
    ]);
    const breakdownCsv = (await (await get('/breakdown', { accept: 'text/csv' })).text()).split('\r\n');
    expect(breakdownCsv[0]).toBe('kind,name,category,visitors,views');
    expect(breakdownCsv).toContain('operator,OpenAI,,1,1');
    expect((await get('/timeseries?interval=week')).status).toBe(400);
  });

  it('limits an ingestion key to ingestion, and keys to their project', async () => {
    const { key: ingestKey } = await t.services.keys.create(t.project.id, 'docs server', 'ingest');
    expect((await ingest(views.slice(0, 1), ingestKey)).status).toBe(202);
    for (const path of ['/visitors', '/views', '/timeseries', '/breakdown', '/settings']) {
      const res = await t.request('GET', `/v1/analytics/${t.project.id}${path}`, { key: ingestKey });
      expect(res.status, path).toBe(403);
      expect((await errorBody(res)).error).toMatch(/scope "ingest"/);
    }
    expect((await t.request('GET', `/v2/agent/${t.project.id}/jobs`, { key: ingestKey })).status).toBe(403);

    const other = await t.services.projects.create({
      name: 'Other',
      repository: 'https://example.com/o.git',
    });
    expect((await t.request('GET', `/v1/analytics/${other.id}/visitors`)).status).toBe(403);
    expect((await t.request('GET', `/v1/analytics/${t.project.id}/visitors`, { key: null })).status).toBe(
      401,
    );
  });

  it('rejects a batch over the limit and a body that is not a batch', async () => {
    const many = Array.from({ length: 1001 }, () => views[0]);
    const res = await ingest(many);
    expect(res.status).toBe(400);
    expect((await errorBody(res)).error).toMatch(/events/);
    const bad = await t.request('POST', `/v1/analytics/${t.project.id}/events`, { body: { nope: [] } });
    expect(bad.status).toBe(400);
    expect((await errorBody(bad)).details).toEqual([
      { message: 'events is required' },
      { message: 'unknown field "nope"' },
    ]);
  });

  it('refuses unknown fields in settings, batches and events, and unknown query parameters', async () => {
    const settings = await t.request('PATCH', `/v1/analytics/${t.project.id}/settings`, {
      body: { bogus: 1 },
    });
    expect(settings.status).toBe(400);
    expect((await errorBody(settings)).error).toBe('Invalid request body: unknown field "bogus"');
    const batch = await t.request('POST', `/v1/analytics/${t.project.id}/events`, {
      body: { events: [views[0]], dryRun: true },
    });
    expect(batch.status).toBe(400);
    expect((await errorBody(batch)).error).toMatch(/unknown field "dryRun"/);
    // One misspelt event is rejected with its reason; the rest of the batch goes in.
    const res = await ingest([views[0], { ...views[1], useragent: CHROME }]);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [{ index: 1, reason: 'unknown field "useragent"' }],
    });
    const typo = await get('/visitors?datefrom=2025-03-01');
    expect(typo.status).toBe(400);
    expect((await errorBody(typo)).error).toBe('Invalid query parameters: unknown parameter "datefrom"');
  });

  it('applies the project page-view rules to every view, and changes them field by field', async () => {
    const settingsPath = `/v1/analytics/${t.project.id}/settings`;
    const before = (await (await get('/settings')).json()) as { pageRules: Record<string, unknown> };
    expect(before.pageRules).toMatchObject({ stripHtmlExtension: true, mergeIndexPages: true });
    expect(before.pageRules.excludePaths).toContain('/api/search');
    const view = (id: string, path: string) => ({ ...views[0], id, path });

    const res = await ingest([view('r1', '/robots.txt'), view('r2', '/guide.html'), view('r3', '/app.css')]);
    expect(await res.json()).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [
        { index: 0, reason: 'not a page: excluded path /robots.txt' },
        { index: 2, reason: 'not a page: asset' },
      ],
    });

    const changed = await t.request('PATCH', settingsPath, {
      body: { pageRules: { stripHtmlExtension: false, excludePaths: ['/internal/**'] } },
    });
    expect(changed.status).toBe(200);
    const after = (await changed.json()) as {
      pageRules: Record<string, unknown>;
      countAiCrawlersAsAi: boolean;
    };
    expect(after.pageRules).toMatchObject({
      stripHtmlExtension: false,
      mergeIndexPages: true,
      excludePaths: ['/internal/**'],
    });
    // A new rule applies to views ingested after it; the views already stored keep their page.
    await ingest([view('r4', '/guide.html'), view('r5', '/robots.txt'), view('r6', '/internal/x')]);
    expect(
      ((await (await get('/views')).json()) as { views: Array<{ path: string }> }).views
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/guide', '/guide.html', '/robots.txt']);

    const bad = await t.request('PATCH', settingsPath, {
      body: { pageRules: { excludePaths: ['internal'] } },
    });
    expect(bad.status).toBe(400);
    expect((await errorBody(bad)).error).toBe('pageRules.excludePaths: "internal" must start with /');
    const unknown = await t.request('PATCH', settingsPath, { body: { pageRules: { stripHtml: true } } });
    expect(unknown.status).toBe(400);
    expect((await errorBody(unknown)).error).toMatch(
      /unknown field "pageRules.stripHtml"|unknown field "stripHtml"/,
    );
  });
});

describe(`analytics rate limit on ${testBackend}`, () => {
  it('limits exports per project like the rest of the API, but not ingestion', async () => {
    const t = await startAnalyticsApp({ analytics: { rateLimitPerWindow: 2 } });
    try {
      const get = () => t.request('GET', `/v1/analytics/${t.project.id}/visitors`);
      expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(200);
      const limited = await get();
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      const event = { timestamp: '2025-03-01T00:00:00Z', path: '/', userAgent: CHROME, ip: '203.0.113.1' };
      for (let i = 0; i < 3; i++) {
        const res = await t.request('POST', `/v1/analytics/${t.project.id}/events`, {
          body: { events: [event] },
        });
        expect(res.status).toBe(202);
      }
    } finally {
      await t.close();
    }
  });
});

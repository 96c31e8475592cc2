import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testBackend } from '../../helpers/storage.ts';
import { type AnalyticsTestApp, startAnalyticsApp } from './analytics-app.ts';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot';
const CHATGPT_USER =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

// Each agent once from an address its operator publishes (shipped ranges) and once from elsewhere.
const views = [
  { ua: GPTBOT, ip: '20.171.206.7' }, // OpenAI's gptbot.json
  { ua: GPTBOT, ip: '198.51.100.9' },
  { ua: CHATGPT_USER, ip: '9.129.0.1' }, // OpenAI's chatgpt-user.json
  { ua: CHATGPT_USER, ip: '203.0.113.5' },
  { ua: GOOGLEBOT, ip: '66.249.66.1' }, // Google's googlebot.json
  { ua: GOOGLEBOT, ip: '198.51.100.20' },
  { ua: CHROME, ip: '203.0.113.1' },
].map(({ ua, ip }, i) => ({
  id: `v${i}`,
  timestamp: '2025-03-01T10:00:00Z',
  path: '/guide',
  userAgent: ua,
  ip,
}));

const counts = (human: number, ai: number, total: number, aiAssistant: number, aiTraining: number) => ({
  human,
  ai,
  total,
  aiAssistant,
  aiSearch: 0,
  aiTraining,
  aiOther: 0,
});

describe(`verifiedOnly over HTTP on ${testBackend}`, () => {
  let t: AnalyticsTestApp;
  beforeEach(async () => {
    t = await startAnalyticsApp();
  });
  afterEach(() => t.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    t.request('GET', `/v1/analytics/${t.project.id}${path}`, { headers });
  const json = async (path: string) => (await get(path)).json() as Promise<Record<string, unknown>>;

  it('answers 400 naming verifiedOnly when it is not true or false, on every export and in CSV', async () => {
    for (const report of ['visitors', 'views', 'timeseries', 'breakdown']) {
      for (const accept of ['application/json', 'text/csv']) {
        for (const value of ['yes', '1', 'TRUE', '']) {
          const res = await get(`/${report}?verifiedOnly=${value}`, { accept });
          expect(res.status, `${report} ${value} ${accept}`).toBe(400);
          expect(await res.json()).toMatchObject({
            error: expect.stringContaining('verifiedOnly must be true or false'),
            details: [{ message: `verifiedOnly must be true or false (got "${value}")` }],
          });
        }
      }
    }
  });

  it('documents the parameter and the purpose split in /openapi.json', async () => {
    const doc = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as {
      paths: Record<
        string,
        { get: { parameters: Array<{ name: string; in: string; description?: string }> } }
      >;
    };
    for (const report of ['visitors', 'views', 'timeseries', 'breakdown']) {
      const parameters = doc.paths[`/v1/analytics/{projectId}/${report}`]?.get.parameters ?? [];
      const verifiedOnly = parameters.find((p) => p.name === 'verifiedOnly');
      expect(verifiedOnly, report).toMatchObject({
        in: 'query',
        description: expect.stringMatching(/verified/),
      });
    }
    const text = JSON.stringify(doc);
    for (const field of ['aiAssistant', 'aiSearch', 'aiTraining', 'aiOther']) {
      const documented = new RegExp(
        `"${field}":\\{"type":"integer","description":"Distinct AI visitors \\(or views\\) whose agent's purpose`,
      );
      expect(documented.test(text), field).toBe(true);
    }
  });

  it('counts claimed agents as bots under verifiedOnly=true, in pages, series, breakdown and CSV', async () => {
    const ingest = await t.request('POST', `/v1/analytics/${t.project.id}/events`, {
      body: { events: views },
    });
    expect(await ingest.json()).toMatchObject({ accepted: 7 });

    // As classified: both ChatGPT-User visitors are ai; both GPTBots are training crawlers.
    expect((await json('/visitors')).totals).toEqual(counts(1, 2, 3, 2, 2));
    expect((await json('/visitors?verifiedOnly=false')).totals).toEqual(counts(1, 2, 3, 2, 2));
    // Verified only: the claimed GPTBot, ChatGPT-User and Googlebot are bots.
    const verified = await json('/visitors?verifiedOnly=true');
    expect(verified.totals).toEqual(counts(1, 1, 2, 1, 1));
    expect(verified.visitors).toEqual([{ path: '/guide', ...counts(1, 1, 2, 1, 1) }]);
    expect((await json('/views?verifiedOnly=true')).totals).toEqual(counts(1, 1, 2, 1, 1));
    const series = (await json('/timeseries?verifiedOnly=true')) as { points: Array<{ visitors: unknown }> };
    expect(series.points.map((p) => p.visitors)).toEqual([counts(1, 1, 2, 1, 1)]);

    const breakdown = (await json('/breakdown?verifiedOnly=true')) as Record<string, unknown[]>;
    expect(breakdown.categories).toContainEqual({ category: 'bot', visitors: 3, views: 3 });
    expect(breakdown.categories).toContainEqual({ category: 'search', visitors: 1, views: 1 });
    expect(breakdown.agents).toContainEqual({ agent: 'GPTBot', category: 'bot', visitors: 1, views: 1 });
    expect(breakdown.agents).toContainEqual({
      agent: 'GPTBot',
      category: 'ai_crawler',
      visitors: 1,
      views: 1,
    });
    expect(breakdown.operators).toEqual([
      { operator: 'OpenAI', visitors: 2, views: 2 },
      { operator: 'Google', visitors: 1, views: 1 },
    ]);
    const all = (await json('/breakdown')) as Record<string, unknown[]>;
    expect(all.operators).toEqual([
      { operator: 'OpenAI', visitors: 4, views: 4 },
      { operator: 'Google', visitors: 2, views: 2 },
    ]);

    const csv = await (await get('/visitors?verifiedOnly=true', { accept: 'text/csv' })).text();
    expect(csv).toBe(
      'path,human,ai,total,ai_assistant,ai_search,ai_training,ai_other\r\n/guide,1,1,2,1,0,1,0\r\n',
    );
  });
});

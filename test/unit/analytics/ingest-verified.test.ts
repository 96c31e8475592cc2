import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCrawlerRanges } from '../../../src/app/crawler-ranges.ts';
import { AnalyticsService } from '../../../src/domain/analytics/analytics-service.ts';
import { EmbeddedAnalyticsStore } from '../../../src/integrations/analytics/embedded/embedded-store.ts';

const NOW = new Date('2026-11-20T12:00:00Z');
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('ingest with the shipped crawler ranges', () => {
  let dir: string;
  let store: EmbeddedAnalyticsStore;
  let service: AnalyticsService;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dw-verified-'));
    store = new EmbeddedAnalyticsStore({
      file: path.join(dir, 'analytics.sqlite'),
      synchronous: 'normal',
      checkpointIntervalMs: 0,
      clock: () => NOW,
    });
    service = new AnalyticsService({
      store,
      salts: store,
      settings: store,
      clock: () => NOW,
      crawlerRanges: loadCrawlerRanges(dir),
    });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const view = (userAgent: string, ip: string) => ({
    timestamp: '2026-11-20T10:00:00Z',
    path: '/',
    userAgent,
    ip,
  });

  it('marks an agent verified when it comes from its operator’s published range, claimed otherwise', async () => {
    const result = await service.ingest('prj', [
      view(GPTBOT, '20.171.206.7'), // in OpenAI's gptbot.json
      view(GPTBOT, '203.0.113.1'),
      view(GPTBOT, '::ffff:20.171.207.200'),
      view(GOOGLEBOT, '66.249.66.1'), // in Google's googlebot.json
      view(GOOGLEBOT, '20.171.206.7'), // OpenAI's address is not Google's
      view(CHROME, '20.171.206.7'), // a person is never "verified"
    ]);
    expect(result.accepted).toBe(6);
    // As stored (the IP is not; the flag is).
    const { views } = await store.scan('prj', null, 100);
    expect(views.map((e) => [e.agent, e.verified])).toEqual([
      ['GPTBot', true],
      ['GPTBot', false],
      ['GPTBot', true],
      ['Googlebot', true],
      ['Googlebot', false],
      [expect.any(String), false],
    ]);
  });
});

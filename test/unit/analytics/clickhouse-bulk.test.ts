import { createClient } from '@clickhouse/client';
import fc from 'fast-check';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { AnalyticsService } from '../../../src/domain/analytics/analytics-service.ts';
import { bulkAppending } from '../../../src/domain/analytics/bulk-appending.ts';
import { CrawlerRanges } from '../../../src/domain/analytics/crawler-ranges.ts';
import type { AnalyticsStore, TimeRange } from '../../../src/domain/analytics/store.ts';
import { randomBase32 } from '../../../src/domain/ids.ts';
import {
  type ClickHouseAnalyticsStore,
  openClickHouseAnalyticsStore,
} from '../../../src/integrations/analytics/clickhouse/clickhouse-store.ts';
import { visitorRanges } from '../../../src/integrations/analytics/clickhouse/rebuild-visits.ts';
import { processLocks } from '../../../src/storage/locks.ts';
import { MemoryAnalyticsMetadata } from '../../helpers/analytics-backends.ts';
import { ReferenceAnalytics, type TestEvent } from './reference.ts';

// DOCWRIGHT_TEST_SEED=<the seed a failure printed> replays the same generated cases.
if (process.env.DOCWRIGHT_TEST_SEED) fc.configureGlobal({ seed: Number(process.env.DOCWRIGHT_TEST_SEED) });

const DAY = 86_400_000;
const BASE = Date.UTC(2025, 2, 1);
const NOW = new Date(BASE + 20 * DAY);
const url = inject('clickhouseUrl');
const database = `dw_test_${randomBase32(12).toLowerCase()}`;
const RANGES = new CrawlerRanges([
  { operator: 'OpenAI', agents: null, source: 'test', prefixes: ['203.0.113.1/32'] },
  { operator: 'Diffbot', agents: null, source: 'test', prefixes: ['203.0.113.2/32'] },
]);
const USER_AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', // human
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot', // ai
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot', // ai_crawler
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
  'Mozilla/5.0 (compatible; Diffbot/0.1; +http://www.diffbot.com)', // ai_crawler, other
  'curl/8.5.0', // bot, or ai when fetching Markdown
];

let opened: ClickHouseAnalyticsStore | undefined;
afterAll(async () => {
  await opened?.close();
  const client = createClient({ url, request_timeout: 120_000 });
  await client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await client.close();
}, 120_000);

/** Views over a week, visitors coming back across days and pages, late events, repeated ids. */
const event: fc.Arbitrary<TestEvent> = fc
  .record({
    day: fc.integer({ min: 0, max: 6 }),
    ms: fc.integer({ min: 0, max: DAY - 1 }),
    path: fc.constantFrom('/a', '/b', '/c.md', '/a/'),
    ua: fc.constantFrom(...USER_AGENTS),
    who: fc.oneof(
      fc.record({ visitorId: fc.constantFrom('v1', 'v2', 'v3', 'v4', 'v5') }),
      fc.record({ ip: fc.constantFrom('203.0.113.1', '203.0.113.2', '198.51.100.9') }),
    ),
    id: fc.option(
      fc.integer({ min: 1, max: 20 }).map((n) => `e${n}`),
      { nil: undefined },
    ),
  })
  .map(({ day, ms, path, ua, who, id }) => ({
    timestamp: new Date(BASE + day * DAY + ms).toISOString(),
    path,
    userAgent: ua,
    ...who,
    ...(id ? { id } : {}),
  }));

const bound = fc.option(
  fc.oneof(
    fc.integer({ min: 0, max: 7 }).map((d) => BASE + d * DAY),
    fc.integer({ min: 0, max: 6 }).map((d) => BASE + d * DAY - 2 * 3_600_000),
    fc.integer({ min: 0, max: 7 * DAY }).map((t) => BASE + t),
  ),
  { nil: null },
);

describe('ClickHouse bulk load', () => {
  it('splits the visitors at the cut points into ranges that cover every value once', () => {
    expect(visitorRanges([])).toEqual(['1']);
    expect(visitorRanges([5n, 18446744073709551615n])).toEqual([
      '(visitor_hi < 5)',
      '(visitor_hi >= 5 AND visitor_hi < 18446744073709551615)',
      '(visitor_hi >= 18446744073709551615)',
    ]);
  });

  it('gives the same exports as appending view by view, and as the brute-force reference', async () => {
    // Tiny chunks, so every build splits into several visitor ranges and day ranges.
    const store = await openClickHouseAnalyticsStore({
      url,
      database,
      locks: processLocks(),
      rebuild: { viewsPerChunk: 20 },
    });
    opened = store;
    const metadata = new MemoryAnalyticsMetadata();
    const service = (target: AnalyticsStore) =>
      new AnalyticsService({
        store: target,
        salts: metadata,
        settings: metadata,
        clock: () => NOW,
        saltRotation: 'daily',
        crawlerRanges: RANGES,
      });
    const appending = service(store);
    const bulk = service(bulkAppending(store));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(event, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.record({ from: bound, to: bound }), { minLength: 1, maxLength: 4 }),
        async (batches, bounds) => {
          run++;
          const [viaAppend, viaBulk] = [`a${run}`, `b${run}`];
          const reference = new ReferenceAnalytics(RANGES);
          for (const batch of batches) {
            const expected = reference.add(batch);
            const appended = await appending.ingest(viaAppend, batch);
            const loaded = await bulk.ingest(viaBulk, batch);
            expect({ accepted: loaded.accepted, duplicates: loaded.duplicates }).toEqual(expected);
            expect({ accepted: appended.accepted, duplicates: appended.duplicates }).toEqual(expected);
          }
          await store.finishBulk(viaBulk);
          const ranges: TimeRange[] = [{ from: null, to: null }];
          for (const { from, to } of bounds)
            if (from === null || to === null || from < to) ranges.push({ from, to });
          for (const range of ranges) {
            for (const [countAiCrawlersAsAi, verifiedOnly] of [
              [false, false],
              [true, false],
              [false, true],
              [true, true],
            ] as const) {
              const query = {
                range,
                measure: 'visitors' as const,
                limit: 100,
                offset: 0,
                countAiCrawlersAsAi,
                verifiedOnly,
              };
              const expected = reference.pages(range, 'visitors', countAiCrawlersAsAi, verifiedOnly);
              const fromBulk = await store.pages(viaBulk, query);
              expect({ totals: fromBulk.totals, rows: fromBulk.rows }).toEqual(expected);
              expect(await store.pages(viaAppend, query)).toEqual(fromBulk);
            }
          }
          // Built again (as after an interrupted build), the tables are the same.
          await store.finishBulk(viaBulk);
          const again = await store.pages(viaBulk, {
            range: ranges[ranges.length - 1] as TimeRange,
            measure: 'visitors',
            limit: 100,
            offset: 0,
            countAiCrawlersAsAi: false,
            verifiedOnly: false,
          });
          expect(again).toEqual(
            await store.pages(viaAppend, {
              range: ranges[ranges.length - 1] as TimeRange,
              measure: 'visitors',
              limit: 100,
              offset: 0,
              countAiCrawlersAsAi: false,
              verifiedOnly: false,
            }),
          );
        },
      ),
      { numRuns: 8 },
    );
  }, 300_000);
});

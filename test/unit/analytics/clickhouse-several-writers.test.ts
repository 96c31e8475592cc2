import { createClient } from '@clickhouse/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { AnalyticsService } from '../../../src/domain/analytics/analytics-service.ts';
import type { PreparedEvent } from '../../../src/domain/analytics/store.ts';
import { randomBase32 } from '../../../src/domain/ids.ts';
import {
  type ClickHouseAnalyticsStore,
  openClickHouseAnalyticsStore,
} from '../../../src/integrations/analytics/clickhouse/clickhouse-store.ts';
import type { Storage } from '../../../src/storage/database.ts';
import { LockLostError, type Locks } from '../../../src/storage/locks.ts';
import { MemoryAnalyticsMetadata } from '../../helpers/analytics-backends.ts';
import { createTestDatabase, type TestBackend, type TestDatabase } from '../../helpers/storage.ts';
import { ReferenceAnalytics, type TestEvent } from './reference.ts';

const NOW = new Date('2025-03-10T12:00:00Z');
const DAY = 86_400_000;
const START = Date.UTC(2025, 3 - 1, 1);
const USER_AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
];
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot';
const RANGES = [
  { from: null, to: null },
  { from: START + DAY, to: START + 3 * DAY },
  { from: START + DAY / 2, to: START + 2 * DAY + 3_600_000 },
];
const url = inject('clickhouseUrl');
const databases: string[] = [];
const mainDatabases: TestDatabase[] = [];
const opened: Array<ClickHouseAnalyticsStore | Storage> = [];

afterAll(async () => {
  for (const store of opened) await store.close();
  const client = createClient({ url });
  for (const database of databases) await client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await client.close();
  for (const main of mainDatabases) await main.drop();
});

/** Views of a few visitors on a few pages over three days: every batch meets the others' pairs. */
function batch(n: number, writer: string): TestEvent[] {
  return Array.from({ length: 30 }, (_, i) => ({
    id: `${writer}${n}-${i}`,
    timestamp: new Date(START + ((n + i) % 3) * DAY + n * 60_000 + i).toISOString(),
    path: `/guide/${(n * 7 + i) % 5}`,
    userAgent: USER_AGENTS[i % 2] as string,
    visitorId: `v${(n + i * 5) % 11}`,
  }));
}

/**
 * Views as an older agent list stored them (every one a browser, classifier 0), for a
 * reclassification to change: `count` views of `visitors` visitors over five pages and three days.
 */
function olderListViews(count: number, visitors: number, userAgent: (i: number) => string): PreparedEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    eventKey: null,
    timestamp: START + (i % 3) * DAY + i * 1000,
    path: `/guide/${i % 5}`,
    visitorKey: Buffer.alloc(16, i % visitors),
    category: 'human' as const,
    purpose: null,
    agent: 'Browser',
    classifierVersion: 0,
    userAgent: userAgent(i),
    flags: 0,
    status: 200,
    referrer: null,
    verified: false,
  }));
}

describe.each<TestBackend>(['sqlite', 'postgres'])(
  'ClickHouse store with several writers, main database on %s',
  (kind) => {
    /**
     * Two API processes, starting at once on a new ClickHouse database: connections of their own
     * to the main database (its locks) and to ClickHouse; salts shared, as the main database's are.
     */
    async function startNodes(): Promise<
      Array<{ store: ClickHouseAnalyticsStore; service: AnalyticsService }>
    > {
      const database = `dw_test_${randomBase32(12).toLowerCase()}`;
      databases.push(database);
      const main = createTestDatabase(kind);
      mainDatabases.push(main);
      const metadata = new MemoryAnalyticsMetadata();
      return Promise.all(
        [0, 1].map(async () => {
          const storage = main.open();
          opened.push(storage);
          const store = await openClickHouseAnalyticsStore({ url, database, locks: storage.locks });
          opened.push(store);
          return {
            store,
            service: new AnalyticsService({ store, salts: metadata, settings: metadata, clock: () => NOW }),
          };
        }),
      );
    }

    it('counts exactly when two processes start and append to one project at the same moment', async () => {
      const nodes = (await startNodes()).map((n) => n.service);
      const [a, b] = nodes as [AnalyticsService, AnalyticsService];
      const reference = new ReferenceAnalytics();
      for (let n = 0; n < 12; n++) {
        // A retry reaching the other node while the first attempt still runs, and other views
        // of the same visitors and pages arriving on both nodes at once.
        const retried = batch(n, 'r');
        const own = [batch(n, 'a'), batch(n, 'b')];
        const results = await Promise.all([
          a.ingest('prj', retried),
          b.ingest('prj', retried),
          a.ingest('prj', own[0] as TestEvent[]),
          b.ingest('prj', own[1] as TestEvent[]),
        ]);
        const expected = [reference.add(retried), reference.add(own[0] as TestEvent[])];
        expected.push(reference.add(own[1] as TestEvent[]));
        // One of the two attempts stored the retried batch, the other found every event stored.
        const attempts = results.slice(0, 2).map((r) => [r.accepted, r.duplicates]);
        expect(attempts.sort()).toEqual([
          [0, 30],
          [30, 0],
        ]);
        expect(results.slice(2).map((r) => [r.accepted, r.duplicates])).toEqual([
          [30, 0],
          [30, 0],
        ]);
        expect(expected.map((e) => [e.accepted, e.duplicates])).toEqual([
          [30, 0],
          [30, 0],
          [30, 0],
        ]);
      }
      for (const node of nodes) {
        for (const range of RANGES) {
          for (const measure of ['visitors', 'views'] as const) {
            const report = await node.pages('prj', measure, { range, limit: 100, offset: 0 });
            const expected = reference.pages(range, measure, false);
            expect({ measure, range, totals: report.totals, rows: report.rows }).toEqual({
              measure,
              range,
              totals: expected.totals,
              rows: expected.rows,
            });
          }
        }
      }
    }, 60_000);

    it('keeps the first-visit tables equal to a rebuild from the views while one node reclassifies and the other appends', async () => {
      const [a, b] = (await startNodes()) as [
        { store: ClickHouseAnalyticsStore; service: AnalyticsService },
        { store: ClickHouseAnalyticsStore; service: AnalyticsService },
      ];
      // Views of an older agent list (GPTBot stored as a browser), for the reclassification to change.
      await a.store.append(
        'prj',
        olderListViews(300, 13, (i) => (i % 2 === 0 ? GPTBOT : (USER_AGENTS[0] as string))),
      );
      const appending = (async () => {
        for (let n = 0; n < 20; n++) await b.service.ingest('prj', batch(n, 'b'));
      })();
      const reclassified = await a.service.reclassify('prj');
      await appending;
      expect(reclassified.changed).toBe(150);
      const exports = async () =>
        Promise.all(
          RANGES.flatMap((range) =>
            (['visitors', 'views'] as const).map((measure) =>
              a.service.pages('prj', measure, { range, limit: 100, offset: 0 }),
            ),
          ),
        );
      const kept = await exports();
      await a.store.finishBulk('prj'); // the first-visit tables built again from the views alone
      expect(kept).toEqual(await exports());
    }, 60_000);
  },
);

describe('ClickHouse store whose lock is lost', () => {
  it('stores nothing of a write whose lock went while it ran (the retry stores it once), and rebuilds after a reclassification that lost it', async () => {
    const database = `dw_test_${randomBase32(12).toLowerCase()}`;
    databases.push(database);
    // Locks as PostgreSQL's behave when the session holding them ends mid-write.
    let loseNext = false;
    let holds = 0;
    const locks: Locks = {
      holding(names, work) {
        holds++;
        const lost = new AbortController();
        if (loseNext) lost.abort(new LockLostError(names, new Error('connection ended')));
        loseNext = false;
        return work(lost.signal);
      },
      close() {},
    };
    const store = await openClickHouseAnalyticsStore({ url, database, locks });
    opened.push(store);
    const metadata = new MemoryAnalyticsMetadata();
    const service = new AnalyticsService({ store, salts: metadata, settings: metadata, clock: () => NOW });
    const events = batch(0, 'l');
    loseNext = true;
    await expect(service.ingest('prj', events)).rejects.toThrow(/^lost the lock on /);
    expect(await store.countViews('prj')).toBe(0);
    const retried = await service.ingest('prj', events);
    expect([retried.accepted, retried.duplicates]).toEqual([30, 0]);
    const reference = new ReferenceAnalytics();
    reference.add(events);
    const report = await service.pages('prj', 'visitors', {
      range: RANGES[0] as (typeof RANGES)[0],
      limit: 100,
      offset: 0,
    });
    expect(report.rows).toEqual(reference.pages(RANGES[0] as (typeof RANGES)[0], 'visitors', false).rows);

    // A reclassification whose lock goes on the way has changed the views, and builds the
    // first-visit tables again under the lock taken anew (running it again would find nothing
    // to change, and rebuild nothing).
    await store.append(
      'prj',
      olderListViews(40, 7, () => GPTBOT),
    );
    holds = 0;
    loseNext = true;
    expect((await service.reclassify('prj')).changed).toBe(40);
    expect(holds).toBe(2);
  }, 60_000);
});

import { createClient } from '@clickhouse/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { AnalyticsService } from '../../../src/domain/analytics/analytics-service.ts';
import type { Category } from '../../../src/domain/analytics/categories.ts';
import { normalisePath } from '../../../src/domain/analytics/paths.ts';
import { EVENT_FLAGS, type PreparedEvent } from '../../../src/domain/analytics/store.ts';
import { randomBase32 } from '../../../src/domain/ids.ts';
import {
  type ClickHouseAnalyticsStore,
  openClickHouseAnalyticsStore,
} from '../../../src/integrations/analytics/clickhouse/clickhouse-store.ts';
import { MemoryAnalyticsMetadata } from '../../helpers/analytics-backends.ts';

const NOW = new Date('2025-03-10T12:00:00Z');
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const all = { range: { from: null, to: null }, limit: 50, offset: 0 };
const url = inject('clickhouseUrl');
const databases: string[] = [];
const opened: ClickHouseAnalyticsStore[] = [];

afterAll(async () => {
  for (const store of opened) await store.close();
  const client = createClient({ url });
  for (const database of databases) await client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await client.close();
});

function freshDatabase(): string {
  const database = `dw_test_${randomBase32(12).toLowerCase()}`;
  databases.push(database);
  return database;
}

async function open(
  database: string,
): Promise<{ store: ClickHouseAnalyticsStore; service: AnalyticsService }> {
  const store = await openClickHouseAnalyticsStore({ url, database });
  opened.push(store);
  const metadata = new MemoryAnalyticsMetadata();
  return {
    store,
    service: new AnalyticsService({ store, salts: metadata, settings: metadata, clock: () => NOW }),
  };
}

describe('ClickHouse analytics store', () => {
  it('counts a retried batch as duplicates, from the same process and from another one', async () => {
    const database = freshDatabase();
    const a = await open(database);
    const b = await open(database);
    const batch = [1, 2, 3].map((n) => ({
      id: `e${n}`,
      timestamp: `2025-03-0${n}T10:00:00Z`,
      path: '/guide',
      userAgent: CHROME,
      visitorId: `v${n}`,
    }));
    expect(await a.service.ingest('prj', batch)).toMatchObject({ accepted: 3, duplicates: 0 });
    expect(await a.service.ingest('prj', batch)).toMatchObject({ accepted: 0, duplicates: 3 });
    expect(await b.service.ingest('prj', batch)).toMatchObject({ accepted: 0, duplicates: 3 });
    // Concurrent appends of one process: the first wins, whatever the rest of the event says.
    const again = { ...batch[0], id: 'e9', path: '/other' };
    const results = await Promise.all([
      a.service.ingest('prj', [again]),
      a.service.ingest('prj', [{ ...again, path: '/third' }]),
    ]);
    expect(results.map((r) => [r.accepted, r.duplicates])).toEqual([
      [1, 0],
      [0, 1],
    ]);
    // The same id on another day is another event.
    expect(await b.service.ingest('prj', [{ ...again, timestamp: '2025-03-05T10:00:00Z' }])).toMatchObject({
      accepted: 1,
      duplicates: 0,
    });
    const views = await b.service.pages('prj', 'views', all);
    expect(views.totals).toEqual({ human: 5, ai: 0, total: 5 });
    expect(views.rows.map((r) => r.path)).toEqual(['/guide', '/other']);
  });

  it('keeps paths and agents byte for byte, quotes and backslashes included', async () => {
    const { service } = await open(freshDatabase());
    const paths = ["/it's", '/back\\slash', '/é/😀', "/x');DROP_TABLE_views;--"];
    const result = await service.ingest(
      'prj',
      paths.map((path, i) => ({
        timestamp: '2025-03-01T10:00:00Z',
        path,
        userAgent: CHROME,
        visitorId: `v${i}`,
      })),
    );
    expect(result.rejected).toEqual([]);
    const report = await service.pages('prj', 'visitors', all);
    expect(report.rows.map((r) => r.path).sort()).toEqual(paths.map((p) => normalisePath(p)?.path).sort());
    expect(report.rows).toHaveLength(4);
  });

  it('reclassifies views of an older agent list, and says how many changed', async () => {
    const { store, service } = await open(freshDatabase());
    const old = (
      n: number,
      userAgent: string,
      category: Category,
      agent: string,
      flags = 0,
    ): PreparedEvent => ({
      eventKey: null,
      timestamp: Date.parse(`2025-03-0${n}T10:00:00Z`),
      path: '/guide',
      visitorKey: Buffer.alloc(16, n),
      category,
      purpose: null,
      agent,
      classifierVersion: 0,
      userAgent,
      flags,
      status: 200,
      referrer: null,
      verified: false,
    });
    await store.append('prj', [
      old(1, 'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)', 'human', 'Browser'),
      old(2, CHROME, 'human', 'Browser'),
      old(3, 'curl/8.5.0', 'bot', 'curl', EVENT_FLAGS.markdownPath),
    ]);
    await service.ingest('prj', [
      { timestamp: '2025-03-04T10:00:00Z', path: '/guide', userAgent: CHROME, visitorId: 'now' },
    ]);
    expect((await service.pages('prj', 'visitors', all)).totals).toEqual({ human: 3, ai: 0, total: 3 });

    expect(await service.reclassify('prj')).toEqual({ examined: 3, changed: 2 });

    expect((await service.pages('prj', 'visitors', all)).totals).toEqual({ human: 2, ai: 1, total: 3 });
    const agents = (await service.breakdown('prj', { range: { from: null, to: null } })).agents;
    expect(agents).toContainEqual({ agent: 'GPTBot', category: 'ai_crawler', visitors: 1, views: 1 });
    expect(agents).toContainEqual({ agent: 'curl', category: 'ai', visitors: 1, views: 1 });
    expect(await service.reclassify('prj')).toEqual({ examined: 0, changed: 0 });
  });

  it('deletes a project: its exports answer empty, its ids are free again, others keep theirs', async () => {
    const { service } = await open(freshDatabase());
    const view = {
      id: 'e1',
      timestamp: '2025-03-01T10:00:00Z',
      path: '/guide',
      userAgent: CHROME,
      visitorId: 'v',
    };
    await service.ingest('doomed', [view]);
    await service.ingest('kept', [view]);
    await service.store.deleteProject('doomed');
    expect(await service.pages('doomed', 'views', all)).toEqual({
      totals: { human: 0, ai: 0, total: 0 },
      rows: [],
      hasMore: false,
    });
    expect(await service.timeSeries('doomed', { range: { from: null, to: null }, interval: 'day' })).toEqual(
      [],
    );
    expect((await service.pages('kept', 'views', all)).totals.total).toBe(1);
    expect(await service.ingest('doomed', [view])).toMatchObject({ accepted: 1, duplicates: 0 });
  });
});

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
import { processLocks } from '../../../src/storage/locks.ts';
import { MemoryAnalyticsMetadata } from '../../helpers/analytics-backends.ts';

const NOW = new Date('2025-03-10T12:00:00Z');
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const all = { range: { from: null, to: null }, limit: 50, offset: 0 };
const NO_AI = { aiAssistant: 0, aiSearch: 0, aiTraining: 0, aiOther: 0 };
const url = inject('clickhouseUrl');
const databases: string[] = [];
/** The stores of this file stand for processes of one deployment: they share its locks. */
const locks = processLocks();
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
  const store = await openClickHouseAnalyticsStore({ url, database, locks });
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
    expect(views.totals).toEqual({ human: 5, ai: 0, total: 5, ...NO_AI });
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

  it('finds a page with tabs, newlines, carriage returns, NUL and backslashes again in a later batch', async () => {
    const { store, service } = await open(freshDatabase());
    const path = '/a\tb\nc\rd\u0000e\\f\\tg';
    const view = (day: string): PreparedEvent => ({
      eventKey: null,
      timestamp: Date.parse(`2025-03-0${day}T10:00:00Z`),
      path,
      visitorKey: Buffer.alloc(16, 7),
      category: 'human',
      purpose: null,
      agent: 'Browser',
      classifierVersion: 2,
      userAgent: CHROME,
      flags: 0,
      status: 200,
      referrer: null,
      verified: false,
    });
    await store.append('prj', [view('1')]);
    await store.append('prj', [view('2')]);
    // The second batch's lookup found the first day (the pair went as external data), so the
    // visitor is one first visit over both days.
    const report = await service.pages('prj', 'visitors', all);
    expect(report.totals).toEqual({ ...NO_AI, human: 1, ai: 0, total: 1 });
    expect(report.rows).toEqual([{ ...NO_AI, path, human: 1, ai: 0, total: 1 }]);
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
      {
        ...old(1, 'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)', 'human', 'Browser'),
        verified: true,
      },
      old(2, CHROME, 'human', 'Browser'),
      old(3, 'curl/8.5.0', 'bot', 'curl', EVENT_FLAGS.markdownPath),
    ]);
    await service.ingest('prj', [
      { timestamp: '2025-03-04T10:00:00Z', path: '/guide', userAgent: CHROME, visitorId: 'now' },
    ]);
    expect((await service.pages('prj', 'visitors', all)).totals).toEqual({
      human: 3,
      ai: 0,
      total: 3,
      ...NO_AI,
    });

    expect(await service.reclassify('prj')).toEqual({ examined: 3, changed: 2 });

    // GPTBot is an AI crawler for training: not in `ai` by default, in the purpose split.
    expect((await service.pages('prj', 'visitors', all)).totals).toEqual({
      ...NO_AI,
      human: 2,
      ai: 1,
      total: 3,
      aiAssistant: 1,
      aiTraining: 1,
    });
    // Reclassification keeps the verified flag (the IP it came from is not stored).
    const scanned = await store.scan('prj', null, 10);
    expect(scanned.views.map((v) => [v.agent, v.verified])).toContainEqual(['GPTBot', true]);
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
      totals: { human: 0, ai: 0, total: 0, ...NO_AI },
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

describe('ClickHouse store migrations', () => {
  it('upgrades a schema-1 database: stored views are unverified and counted from the new first-visit tables', async () => {
    const database = freshDatabase();
    const client = createClient({ url });
    try {
      // The tables as step 1 made them, with views stored before step 2.
      await client.command({ query: `CREATE DATABASE ${database}` });
      await client.command({
        query: `CREATE TABLE ${database}.views (project String, day Int32, ts Int64, event_key UInt64, path String,
          visitor_hi UInt64, visitor_lo UInt64, category UInt8, purpose UInt8, agent String, classifier_version UInt32,
          user_agent String, flags UInt8, status Nullable(UInt16), referrer Nullable(String))
          ENGINE = MergeTree() PARTITION BY intDiv(day, 32) ORDER BY (project, day, path)`,
      });
      await client.command({
        query: `CREATE TABLE ${database}.event_keys (project String, day Int32, event_key UInt64)
          ENGINE = ReplacingMergeTree() PARTITION BY intDiv(day, 32) ORDER BY (project, day, event_key)`,
      });
      await client.command({
        query: `CREATE TABLE ${database}.schema_migrations (version UInt32, name String, applied_at DateTime)
          ENGINE = MergeTree() ORDER BY version`,
      });
      await client.insert({
        table: `${database}.schema_migrations`,
        values: [{ version: 1, name: 'views and event keys', applied_at: 0 }],
        format: 'JSONEachRow',
      });
      const day = Math.floor(Date.parse('2025-03-01T00:00:00Z') / 86_400_000);
      const view = (n: number, path: string, category: number, purpose: number) => ({
        project: 'prj',
        day: day + n,
        ts: (day + n) * 86_400_000 + 3_600_000,
        event_key: String(n + 1),
        path,
        visitor_hi: '1',
        visitor_lo: String(category),
        category,
        purpose,
        agent: 'a',
        classifier_version: 2,
        user_agent: 'ua',
        flags: 0,
        status: 200,
        referrer: null,
      });
      await client.insert({
        table: `${database}.views`,
        values: [view(0, '/a', 0, 0), view(1, '/a', 0, 0), view(1, '/b', 1, 1), view(2, '/b', 2, 3)],
        format: 'JSONEachRow',
      });
    } finally {
      await client.close();
    }

    const { store, service } = await open(database);

    const report = await service.pages('prj', 'visitors', all);
    expect(report.totals).toEqual({ ...NO_AI, human: 1, ai: 1, total: 2, aiAssistant: 1, aiTraining: 1 });
    expect(report.rows).toEqual([
      { ...NO_AI, path: '/a', human: 1, ai: 0, total: 1 },
      { ...NO_AI, path: '/b', human: 0, ai: 1, total: 1, aiAssistant: 1, aiTraining: 1 },
    ]);
    // Clipped edges read the rebuilt visit days: the human visitor of the clipped first day is
    // also on the whole day after it, and counts once.
    const clipped = await service.pages('prj', 'visitors', {
      ...all,
      range: { from: Date.parse('2025-03-01T00:30:00Z'), to: Date.parse('2025-03-03T00:30:00Z') },
    });
    expect(clipped.totals).toEqual({ ...NO_AI, human: 1, ai: 1, total: 2, aiAssistant: 1 });
    expect(clipped.rows.map((r) => [r.path, r.total])).toEqual([
      ['/a', 1],
      ['/b', 1],
    ]);
    // …and visitors of a clipped first day with no visit on the whole days after it count too.
    const later = await service.pages('prj', 'visitors', {
      ...all,
      range: { from: Date.parse('2025-03-02T00:30:00Z'), to: Date.parse('2025-03-04T00:30:00Z') },
    });
    expect(later.totals).toEqual({ ...NO_AI, human: 1, ai: 1, total: 2, aiAssistant: 1, aiTraining: 1 });
    const verified = await service.pages('prj', 'visitors', { ...all, verifiedOnly: true });
    expect(verified.totals).toEqual({ ...NO_AI, human: 1, ai: 0, total: 1 });
    expect((await store.scan('prj', null, 10)).views.map((v) => v.verified)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

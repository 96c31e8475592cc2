import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { AnalyticsService } from '../../../src/domain/analytics/analytics-service.ts';
import type { Category, Purpose } from '../../../src/domain/analytics/categories.ts';
import { EVENT_FLAGS, type PreparedEvent } from '../../../src/domain/analytics/store.ts';
import { endsRollup, startsRollup } from '../../../src/integrations/analytics/postgres/edge-tables.ts';
import {
  openPostgresAnalyticsStore,
  type PostgresAnalyticsStore,
} from '../../../src/integrations/analytics/postgres/postgres-store.ts';
import { ANALYTICS_MIGRATIONS, lockProject } from '../../../src/integrations/analytics/postgres/schema.ts';
import { COUNTS_ROLLUP } from '../../../src/integrations/analytics/postgres/visit-tables.ts';
import { CRASH_BATCH_SIZE, crashTestBatch } from '../../fixtures/analytics-batches.ts';
import { dropSchema, MemoryAnalyticsMetadata } from '../../helpers/analytics-backends.ts';
import { startChild } from '../../helpers/processes.ts';
import { testPostgresUrl } from '../../helpers/storage.ts';

const NOW = new Date('2025-03-10T12:00:00Z');
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const all = { range: { from: null, to: null }, limit: 50, offset: 0 };
const APPENDER = fileURLToPath(new URL('../../fixtures/analytics-append-process.ts', import.meta.url));
const NO_PURPOSES = { aiAssistant: 0, aiSearch: 0, aiTraining: 0, aiOther: 0 };
const keyOf = (id: string) => createHash('sha256').update(id).digest().toString('latin1');

describe('PostgreSQL analytics store', () => {
  const schemas: string[] = [];
  const stores: PostgresAnalyticsStore[] = [];
  const metadata = new MemoryAnalyticsMetadata();
  let schema = '';
  const open = async () => {
    const store = await openPostgresAnalyticsStore({ url: testPostgresUrl, schema, poolSize: 3 });
    stores.push(store);
    return store;
  };
  const service = async () =>
    new AnalyticsService({ store: await open(), salts: metadata, settings: metadata, clock: () => NOW });
  const fresh = () => {
    schema = `dw_analytics_${randomBytes(6).toString('hex')}`;
    schemas.push(schema);
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const s of schemas.splice(0)) await dropSchema(s);
  });

  /** Every stored view of a project with its agent, purpose and flags, in time order. */
  async function storedViews(projectId: string) {
    const client = new pg.Client({ connectionString: testPostgresUrl, options: `-c search_path=${schema}` });
    await client.connect();
    try {
      const result = await client.query(
        `select a.value as agent, v.purpose, v.flags from analytics_views v
           join analytics_agents a on a.id = v.agent
           join analytics_projects p on p.id = v.project
          where p.project_id = $1 order by v.day, v.ms`,
        [projectId],
      );
      return result.rows;
    } finally {
      await client.end();
    }
  }

  it('reclassifies views an older agent list classified, and another process sees the new categories', async () => {
    fresh();
    const writer = await service();
    const reader = await service();
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
    await writer.store.append('prj', [
      old(1, 'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)', 'human', 'Browser'),
      old(2, CHROME, 'human', 'Browser'),
      old(3, 'curl/8.5.0', 'bot', 'curl', EVENT_FLAGS.markdownPath),
    ]);
    await writer.ingest('prj', [
      { timestamp: '2025-03-04T10:00:00Z', path: '/guide', userAgent: CHROME, visitorId: 'now' },
    ]);
    expect((await reader.pages('prj', 'visitors', all)).totals).toEqual({
      human: 3,
      ai: 0,
      total: 3,
      ...NO_PURPOSES,
    });

    expect(await writer.reclassify('prj')).toEqual({ examined: 3, changed: 2 });

    // GPTBot is a training crawler (left out of ai by default), curl fetching Markdown an assistant.
    const purposes = { ...NO_PURPOSES, aiAssistant: 1, aiTraining: 1 };
    const expected = { human: 2, ai: 1, total: 3, ...purposes };
    expect((await reader.pages('prj', 'visitors', all)).totals).toEqual(expected);
    const agents = (await reader.breakdown('prj', { range: all.range })).agents;
    expect(agents).toContainEqual({ agent: 'GPTBot', category: 'ai_crawler', visitors: 1, views: 1 });
    expect(agents).toContainEqual({ agent: 'curl', category: 'ai', visitors: 1, views: 1 });
    expect(await storedViews('prj')).toEqual([
      { agent: 'GPTBot', purpose: 3, flags: 0 },
      { agent: 'Browser', purpose: 0, flags: 0 },
      { agent: 'curl', purpose: 1, flags: EVENT_FLAGS.markdownPath },
      { agent: 'Browser', purpose: 0, flags: 0 },
    ]);
    // Counted as AI when the project says so: the first-visit table was rebuilt with the crawler.
    await reader.updateSettings('prj', { countAiCrawlersAsAi: true });
    expect((await reader.pages('prj', 'visitors', all)).totals).toEqual({
      human: 2,
      ai: 2,
      total: 4,
      ...purposes,
    });
    expect(await writer.reclassify('prj')).toEqual({ examined: 0, changed: 0 });
  });

  it('deletes a project: its exports answer empty in every process, and others keep theirs', async () => {
    fresh();
    const server = await service();
    const cli = await service();
    const view = (day: number, id: string) => ({
      timestamp: `2025-03-0${day}T10:00:00Z`,
      path: `/p${day}`,
      userAgent: CHROME,
      visitorId: 'v',
      id,
    });
    await server.ingest('doomed', [view(1, 'a'), view(2, 'b')]);
    await server.ingest('kept', [view(1, 'a'), view(3, 'c')]);
    await cli.deleteProject('doomed');
    for (const s of [server, cli]) {
      expect(await s.pages('doomed', 'views', all)).toEqual({
        totals: { human: 0, ai: 0, total: 0, ...NO_PURPOSES },
        rows: [],
        hasMore: false,
      });
      expect(await s.timeSeries('doomed', { range: all.range, interval: 'day' })).toEqual([]);
      expect((await s.breakdown('doomed', { range: all.range })).agents).toEqual([]);
      expect((await s.pages('kept', 'visitors', all)).totals.total).toBe(1);
    }
    // The same ids may be sent again after a deletion: they are new views now.
    expect(await server.ingest('doomed', [view(1, 'a')])).toMatchObject({ accepted: 1, duplicates: 0 });
    expect((await cli.pages('doomed', 'views', all)).totals.total).toBe(1);
  });

  it('keeps the views stored before schema version 3: claimed, and counted by the rebuilt first-visit rows', async () => {
    fresh();
    const client = new pg.Client({ connectionString: testPostgresUrl });
    await client.connect();
    try {
      // Schema version 2 as an older release left it, with a human visitor on two days and an
      // assistant on one.
      await client.query(`create schema ${schema}; set search_path = ${schema}`);
      await client.query(
        'create table analytics_schema_migrations (version int4 primary key, name text not null, applied_at timestamptz not null default now())',
      );
      for (const m of ANALYTICS_MIGRATIONS.filter((m) => m.version <= 2)) {
        await client.query(m.sql);
        await client.query('insert into analytics_schema_migrations (version, name) values ($1, $2)', [
          m.version,
          m.name,
        ]);
      }
      await client.query(`insert into analytics_projects (project_id) values ('old')`);
      for (const [table, value] of [
        ['analytics_paths', '/guide'],
        ['analytics_agents', 'ChatGPT-User'],
        ['analytics_user_agents', 'ChatGPT-User/1.0'],
      ]) {
        await client.query(`insert into ${table} (hash, value) values ('\\x00', $1)`, [value]);
      }
      const day = Date.parse('2025-03-01') / 86_400_000;
      await client.query(
        `insert into analytics_views (project, day, ms, path, visitor, category, purpose, flags, agent, user_agent, classifier)
         values (1, $1, 1000, 1, '\\x01', 0, 0, 0, 1, 1, 1), (1, $1 + 1, 1000, 1, '\\x01', 0, 0, 0, 1, 1, 1),
                (1, $1 + 1, 5000, 1, '\\x02', 1, 1, 0, 1, 1, 1)`,
        [day],
      );
    } finally {
      await client.end();
    }
    const store = await open();
    const query = { ...all, measure: 'visitors' as const, countAiCrawlersAsAi: false };
    const report = await store.pages('old', { ...query, verifiedOnly: false });
    expect(report.totals).toEqual({ human: 1, ai: 1, total: 2, ...NO_PURPOSES, aiAssistant: 1 });
    expect(report.rows).toEqual([{ path: '/guide', ...report.totals }]);
    // Stored before verification existed: claimed, so a verified-only export leaves the AI out.
    expect((await store.pages('old', { ...query, verifiedOnly: true })).totals).toEqual({
      human: 1,
      ai: 0,
      total: 1,
      ...NO_PURPOSES,
    });
    expect((await store.scan('old', null, 10)).views.map((v) => v.verified)).toEqual([false, false, false]);
  });

  it('upgrades first-visit rows of schema version 3 with their next days, which clipped first days count by', async () => {
    fresh();
    const day = Date.parse('2025-03-01') / 86_400_000;
    const client = new pg.Client({ connectionString: testPostgresUrl });
    await client.connect();
    try {
      // Schema version 3 as the previous release left it: views (a human on /guide on three
      // days, the last one late at night; another human on day one only) and their first-visit
      // rows, rebuilt by migration 3 from views stored under version 2.
      await client.query(`create schema ${schema}; set search_path = ${schema}`);
      await client.query(
        'create table analytics_schema_migrations (version int4 primary key, name text not null, applied_at timestamptz not null default now())',
      );
      const apply = async (versions: (v: number) => boolean) => {
        for (const m of ANALYTICS_MIGRATIONS.filter((m) => versions(m.version))) {
          await client.query(m.sql);
          await client.query('insert into analytics_schema_migrations (version, name) values ($1, $2)', [
            m.version,
            m.name,
          ]);
        }
      };
      await apply((v) => v <= 2);
      await client.query(`insert into analytics_projects (project_id) values ('old')`);
      for (const [table, value] of [
        ['analytics_paths', '/guide'],
        ['analytics_agents', 'Browser'],
        ['analytics_user_agents', CHROME],
      ]) {
        await client.query(`insert into ${table} (hash, value) values ('\\x00', $1)`, [value]);
      }
      await client.query(
        `insert into analytics_views (project, day, ms, path, visitor, category, purpose, flags, agent, user_agent, classifier)
         values (1, $1, 80000000, 1, '\\x01', 0, 0, 0, 1, 1, 1), (1, $1 + 1, 1000, 1, '\\x01', 0, 0, 0, 1, 1, 1),
                (1, $1 + 3, 86000000, 1, '\\x01', 0, 0, 0, 1, 1, 1), (1, $1, 1000, 1, '\\x02', 0, 0, 0, 1, 1, 1)`,
        [day],
      );
      await apply((v) => v === 3);
      expect((await client.query('select count(*)::int4 as n from analytics_visits')).rows).toEqual([
        { n: 8 },
      ]);
    } finally {
      await client.end();
    }
    const store = await open();
    const check = new pg.Client({ connectionString: testPostgresUrl, options: `-c search_path=${schema}` });
    await check.connect();
    try {
      const next = await check.query(
        `select day - $1 as day, path, encode(visitor, 'hex') as visitor, n0 - $1 as next_human,
                num_nonnulls(n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11, n12) as others
           from analytics_visit_next order by 1, 2, 3`,
        [day],
      );
      // The page's row and the visitor's (path 0) on day 0 lead to day 1, day 1's to day 3,
      // as human views (class bit 0); no other class has a next day.
      expect(next.rows).toEqual([
        { day: 0, path: 0, visitor: '01', next_human: 1, others: 0 },
        { day: 0, path: 1, visitor: '01', next_human: 1, others: 0 },
        { day: 1, path: 0, visitor: '01', next_human: 3, others: 0 },
        { day: 1, path: 1, visitor: '01', next_human: 3, others: 0 },
      ]);
    } finally {
      await check.end();
    }
    // From 22:00 on day 0 (+02:00 midnight) to 23:00 on day 3: visitor 01 is counted once, in
    // the clipped first day, and not again on day 1; visitor 02 was there before the range.
    const clipped = {
      ...all,
      range: { from: (day + 1) * 86_400_000 - 7_200_000, to: (day + 4) * 86_400_000 - 3_600_000 },
      measure: 'visitors' as const,
      countAiCrawlersAsAi: false,
      verifiedOnly: false,
    };
    const report = await store.pages('old', clipped);
    expect(report.totals).toEqual({ human: 1, ai: 0, total: 1, ...NO_PURPOSES });
    expect(report.rows).toEqual([{ path: '/guide', ...report.totals }]);
  });

  it('stores each event key once under concurrent appends from several connections', async () => {
    fresh();
    const [a, b] = [await open(), await open()];
    const event = (n: number): PreparedEvent => ({
      eventKey: keyOf(`prj|e${n}`),
      timestamp: Date.parse('2025-03-05T10:00:00Z') + n * 1000,
      path: `/p${n % 7}`,
      visitorKey: Buffer.alloc(16, n % 13),
      category: 'human',
      purpose: null,
      agent: 'Browser',
      classifierVersion: 1_000_000,
      userAgent: CHROME,
      flags: 0,
      status: 200,
      referrer: null,
      verified: false,
    });
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => event(from + i));
    // Store a takes e0..e199 and b takes e100..e299, fifty at a time, all at once.
    const appends = [];
    for (let i = 0; i < 4; i++) {
      appends.push(a.append('prj', range(i * 50, i * 50 + 50)));
      appends.push(b.append('prj', range(100 + i * 50, 150 + i * 50)));
    }
    const results = await Promise.all(appends);
    const sum = results.reduce((s, r) => ({
      accepted: s.accepted + r.accepted,
      duplicates: s.duplicates + r.duplicates,
    }));
    expect(sum).toEqual({ accepted: 300, duplicates: 100 });
    const views = await a.pages('prj', {
      ...all,
      measure: 'views',
      countAiCrawlersAsAi: false,
      verifiedOnly: false,
    });
    expect(views.totals.total).toBe(300);
    const visitors = await b.pages('prj', {
      ...all,
      measure: 'visitors',
      countAiCrawlersAsAi: false,
      verifiedOnly: false,
    });
    expect(visitors.totals.total).toBe(13);
  });

  it('does not wait for a store in another schema of the same database', async () => {
    fresh();
    const first = await open();
    await first.append('prj', crashTestBatch(0, keyOf)); // project number 1 here
    const firstSchema = schema;
    fresh();
    const second = await open(); // and project number 1 there too
    // Hold the first schema's write lock on its project, as a long append would.
    const holder = new pg.Client({
      connectionString: testPostgresUrl,
      options: `-c search_path=${firstSchema}`,
    });
    await holder.connect();
    try {
      await holder.query('begin');
      await lockProject(holder, 1);
      expect(await second.append('prj', crashTestBatch(1, keyOf))).toEqual({
        accepted: CRASH_BATCH_SIZE,
        duplicates: 0,
      });
      await holder.query('rollback');
    } finally {
      await holder.end();
    }
  });

  it('loses no acknowledged view and stores no duplicate when a process is killed mid-append and the batches are retried', async () => {
    fresh();
    const batches = 200;
    const child = await startChild([APPENDER, testPostgresUrl, schema, String(batches)], {}, /^ready$/m);
    // Kill it once a few batches were acknowledged, while it is appending the next.
    while ((child.stdout().match(/^ack /gm) ?? []).length < 5) await new Promise((r) => setTimeout(r, 5));
    child.child.kill('SIGKILL');
    await child.exited;
    const acknowledged = (child.stdout().match(/^ack \d+$/gm) ?? []).map((l) => Number(l.slice(4)));
    expect(acknowledged.length).toBeLessThan(batches);

    const store = await open();
    let stored = 0;
    for (let n = 0; n < batches; n++) {
      const result = await store.append('crash', crashTestBatch(n, keyOf));
      // A batch is one transaction: all of it was stored, or none.
      expect([0, CRASH_BATCH_SIZE]).toContain(result.duplicates);
      if (acknowledged.includes(n)) expect(result.duplicates).toBe(CRASH_BATCH_SIZE);
      stored += result.duplicates;
      expect(result.accepted + result.duplicates).toBe(CRASH_BATCH_SIZE);
    }
    expect(stored).toBeGreaterThanOrEqual(acknowledged.length * CRASH_BATCH_SIZE);
    const views = await store.pages('crash', {
      ...all,
      measure: 'views',
      countAiCrawlersAsAi: false,
      verifiedOnly: false,
    });
    expect(views.totals.total).toBe(batches * CRASH_BATCH_SIZE);
    // A second retry changes nothing.
    const again = await store.append('crash', crashTestBatch(0, keyOf));
    expect(again).toEqual({ accepted: 0, duplicates: CRASH_BATCH_SIZE });
  }, 120_000);

  it("keeps each first-visit row's next day and last times per class, and the roll-ups, exact through folds of late, mixed-class views", async () => {
    const DAY = 86_400_000;
    const base = Date.parse('2025-03-01');
    const view = fc
      .record({
        day: fc.integer({ min: 0, max: 5 }),
        ms: fc.integer({ min: 0, max: DAY - 1 }),
        path: fc.constantFrom('/a', '/b'),
        visitor: fc.integer({ min: 1, max: 3 }),
        kind: fc.constantFrom<[Category, Purpose | null]>(
          ['human', null],
          ['ai', 'assistant'],
          ['ai_crawler', 'training'],
          ['ai_crawler', 'search'],
          ['bot', null],
        ),
        verified: fc.boolean(),
      })
      .map(
        ({ day, ms, path, visitor, kind, verified }): PreparedEvent => ({
          eventKey: null,
          timestamp: base + day * DAY + ms,
          path,
          visitorKey: Buffer.alloc(16, visitor),
          category: kind[0],
          purpose: kind[1],
          agent: 'Agent',
          classifierVersion: 1_000_000,
          userAgent: CHROME,
          flags: 0,
          status: 200,
          referrer: null,
          verified,
        }),
      );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(view, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 5 }),
        async (batches) => {
          fresh();
          const store = await open();
          const client = new pg.Client({
            connectionString: testPostgresUrl,
            options: `-c search_path=${schema}`,
          });
          await client.connect();
          try {
            for (const batch of batches) {
              await store.append('p', batch);
              // A visitors export folds what is pending: one fold per batch, days in any order.
              await store.pages('p', {
                ...all,
                measure: 'visitors',
                countAiCrawlersAsAi: false,
                verifiedOnly: false,
              });
            }
            const kept = await client.query(
              `select day, path, encode(visitor, 'hex') as visitor, array[n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11, n12] as next,
                      array[t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12] as last
               from analytics_visit_next order by 1, 2, 3`,
            );
            // What the first-visit rows say: per row and class, the next day of the pair with it.
            const expected = await client.query(
              `select * from (
               select v.day, v.path, encode(v.visitor, 'hex') as visitor,
                      array(select (select min(w.day) from analytics_visits w
                                     where w.project = v.project and w.path = v.path and w.visitor = v.visitor
                                       and w.day > v.day and w.mask & (1 << b) <> 0)
                              from generate_series(0, 12) b order by b) as next,
                      array[v.t0, v.t1, v.t2, v.t3, v.t4, v.t5, v.t6, v.t7, v.t8, v.t9, v.t10, v.t11, v.t12] as last
                 from analytics_visits v) x
              where cardinality(array_remove(x.next, null)) > 0
              order by 1, 2, 3`,
            );
            expect(kept.rows).toEqual(expected.rows);
            // The triggers' roll-ups equal those summed afresh from the first-visit rows, the
            // edges' listing every row's sides (no shortcut for rows alike for all their sides).
            for (const rollup of [COUNTS_ROLLUP, startsRollup(true), endsRollup(true)]) {
              const key = rollup.key.join(', ');
              const stored = await client.query(
                `select ${key}, n from ${rollup.table} where n <> 0 order by ${key}`,
              );
              const summed = await client.query(
                `select ${key}, count(*)::int4 as n from (${rollup.keysOf('analytics_visits')}) s (${key})
                  group by ${key} order by ${key}`,
              );
              expect(stored.rows, rollup.table).toEqual(summed.rows);
            }
          } finally {
            await client.end().catch(() => {});
            await store.close();
            stores.splice(stores.indexOf(store), 1);
            await dropSchema(schema);
            schemas.splice(schemas.indexOf(schema), 1);
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 300_000);
});

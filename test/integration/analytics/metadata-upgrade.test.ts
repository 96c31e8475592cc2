import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openServices, type Services } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { AnalyticsService } from '../../../src/domain/analytics/analytics-service.ts';
import { readEmbeddedMetadata } from '../../../src/integrations/analytics/embedded/earlier-metadata.ts';
import { EmbeddedAnalyticsStore } from '../../../src/integrations/analytics/embedded/embedded-store.ts';
import { findAnalyticsSalt } from '../../../src/storage/queries/analytics-salts.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../../helpers/storage.ts';

const NOW = new Date('2025-03-14T12:00:00Z');
const clock = () => NOW;
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const view = (id: string, ip: string) => ({
  id,
  timestamp: '2025-03-14T10:00:00Z',
  path: '/guide',
  userAgent: CHROME,
  ip,
});
const all = { range: { from: null, to: null }, limit: 50, offset: 0 };

describe(`analytics upgrade: salts and settings leave analytics.sqlite on ${testBackend}`, () => {
  let database: TestDatabase;
  const open: Services[] = [];
  const start = async () => {
    const config = loadConfig({ ...database.env, DOCWRIGHT_LOG_LEVEL: 'silent' });
    const services = await openServices(config, pino({ level: 'silent' }), {
      storage: database.open(),
      clock,
      analytics: { durability: 'normal' },
    });
    open.push(services);
    return services;
  };
  const stop = async (services: Services) => {
    open.splice(open.indexOf(services), 1);
    await services.close();
  };

  afterEach(async () => {
    await Promise.all(open.splice(0).map((services) => services.close()));
    await database.drop();
  });

  it('copies them to the main database once, so visitors of the day keep their keys', async () => {
    database = createTestDatabase();
    const first = await start();
    const project = await first.projects.create({ name: 'Docs', repository: 'https://example.com/docs.git' });
    await stop(first);

    // The older version kept salts and settings in the analytics file, beside the views.
    const file = path.join(database.dir, 'analytics.sqlite');
    const old = new EmbeddedAnalyticsStore({ file, synchronous: 'normal', clock });
    const before = new AnalyticsService({ store: old, salts: old, settings: old, clock });
    await before.updateSettings(project.id, {
      allowedOrigins: ['https://docs.example.com'],
      countAiCrawlersAsAi: true,
    });
    await before.updateSettings('deleted-project', { allowedOrigins: ['*'] });
    expect((await before.ingest(project.id, [view('a', '203.0.113.7')])).accepted).toBe(1);
    await before.close();
    const earlier = readEmbeddedMetadata(file);
    expect(earlier.salts.map((s) => s.period)).toEqual(['2025-03-14']);

    // The new version starts: two processes at once, as a deployment would.
    const [a, b] = await Promise.all([start(), start()]);
    expect(await findAnalyticsSalt(a.storage.db, '2025-03-14')).toEqual(earlier.salts[0]?.salt);
    expect(readEmbeddedMetadata(file).salts).toEqual([]);
    expect(await b.analytics.settings(project.id)).toMatchObject({
      allowedOrigins: ['https://docs.example.com'],
      countAiCrawlersAsAi: true,
    });
    expect(await b.analytics.isAllowedOrigin('deleted-project', 'https://any.example.com')).toBe(false);

    // The same reader again, through both processes: still one visitor.
    expect((await a.analytics.ingest(project.id, [view('b', '203.0.113.7')])).accepted).toBe(1);
    expect((await b.analytics.ingest(project.id, [view('c', '203.0.113.7')])).accepted).toBe(1);
    expect((await b.analytics.ingest(project.id, [view('d', '198.51.100.9')])).accepted).toBe(1);
    const visitors = await a.analytics.pages(project.id, 'visitors', all);
    expect(visitors.totals).toEqual({
      human: 2,
      ai: 0,
      total: 2,
      aiAssistant: 0,
      aiSearch: 0,
      aiTraining: 0,
      aiOther: 0,
    });
    expect((await a.analytics.pages(project.id, 'views', all)).totals.total).toBe(4);
    await Promise.all([stop(a), stop(b)]);

    // A later start copies nothing more and changes nothing.
    const later = await start();
    await later.analytics.updateSettings(project.id, { countAiCrawlersAsAi: false });
    await stop(later);
    const again = await start();
    expect((await again.analytics.settings(project.id)).countAiCrawlersAsAi).toBe(false);
    expect((await again.analytics.ingest(project.id, [view('e', '203.0.113.7')])).accepted).toBe(1);
    expect((await again.analytics.pages(project.id, 'visitors', all)).totals.total).toBe(2);
  });

  it('leaves salts past their retention behind, and deletes them from the file', async () => {
    database = createTestDatabase();
    const file = path.join(database.dir, 'analytics.sqlite');
    const old = new EmbeddedAnalyticsStore({ file, synchronous: 'normal', clock });
    await old.salt('2025-02-01');
    await old.salt('never');
    await old.close();

    const services = await start();
    expect(await findAnalyticsSalt(services.storage.db, '2025-02-01')).toBeUndefined();
    expect(await findAnalyticsSalt(services.storage.db, 'never')).toHaveLength(32);
    expect(readEmbeddedMetadata(file).salts).toEqual([]);
  });
});

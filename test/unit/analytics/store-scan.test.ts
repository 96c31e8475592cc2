import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnalyticsStore, PreparedEvent, ViewScanner } from '../../../src/domain/analytics/store.ts';
import { ANALYTICS_BACKENDS, type TestAnalyticsLocation } from '../../helpers/analytics-backends.ts';

/** Backends whose store reads its views back (the rest follow). */
const SCANNING = new Set(['embedded', 'postgres', 'clickhouse']);

const clock = () => new Date(Date.UTC(2026, 0, 10));
const T0 = Date.UTC(2026, 0, 1, 12);

function view(i: number, overrides: Partial<PreparedEvent> = {}): PreparedEvent {
  return {
    eventKey: i % 3 === 0 ? null : randomBytes(32).toString('latin1'),
    // Several views share a millisecond; two days are crossed.
    timestamp: T0 + Math.floor(i / 4) * 3_600_000,
    path: `/page/${i % 5}`,
    visitorKey: randomBytes(16),
    category: i % 2 === 0 ? 'human' : 'ai',
    purpose: i % 2 === 0 ? null : 'assistant',
    agent: i % 2 === 0 ? '' : 'ChatGPT-User',
    classifierVersion: 3,
    userAgent: `agent ${i % 7} é`,
    flags: (i % 8) & 7,
    status: i % 4 === 0 ? null : 200,
    referrer: i % 5 === 0 ? null : `https://example.com/${i}`,
    verified: i % 4 === 1,
    ...overrides,
  };
}

/** A view as a string of every stored field (the event key as the 8 bytes a store keeps). */
function fields(v: PreparedEvent): string {
  return JSON.stringify({
    ...v,
    eventKey: v.eventKey?.slice(0, 8) ?? null,
    visitorKey: v.visitorKey.toString('hex'),
  });
}

async function scanAll(store: ViewScanner, projectId: string, limit: number): Promise<PreparedEvent[]> {
  const views: PreparedEvent[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.scan(projectId, cursor, limit);
    expect(page.views.length).toBeLessThanOrEqual(limit);
    views.push(...page.views);
    cursor = page.next;
  } while (cursor !== null);
  return views;
}

for (const backend of ANALYTICS_BACKENDS.filter((b) => SCANNING.has(b.name))) {
  describe(`scan and countViews (${backend.name})`, () => {
    let location: TestAnalyticsLocation | undefined;
    let store: (AnalyticsStore & ViewScanner) | undefined;
    afterEach(async () => {
      await store?.close();
      await location?.drop();
    });

    it('returns every stored view once, with every field, in time order, page by page', async () => {
      location = await backend.create();
      store = (await location.open({ clock })) as AnalyticsStore & ViewScanner;
      const views = Array.from({ length: 41 }, (_, i) => view(i));
      // An exact duplicate without an event key is two views.
      views.push({ ...(views[3] as PreparedEvent) });
      await store.append('p1', views);
      await store.append('p2', [view(100)]);

      expect(await store.countViews('p1')).toBe(42);
      expect(await store.countViews('p2')).toBe(1);
      expect(await store.countViews('none')).toBe(0);
      for (const limit of [1, 3, 4, 7, 42, 100]) {
        const scanned = await scanAll(store, 'p1', limit);
        expect(scanned.map(fields).sort()).toEqual(views.map(fields).sort());
        const times = scanned.map((v) => v.timestamp);
        expect(times).toEqual([...times].sort((a, b) => a - b));
      }
      expect(await scanAll(store, 'none', 10)).toEqual([]);
    });

    it('a scanned view appended to another store is the same view (the event key still deduplicates)', async () => {
      location = await backend.create();
      store = (await location.open({ clock })) as AnalyticsStore & ViewScanner;
      const keyed = view(1);
      await store.append('p1', [keyed]);
      const [back] = (await store.scan('p1', null, 10)).views;
      expect(await store.append('p1', [back as PreparedEvent])).toEqual({ accepted: 0, duplicates: 1 });
      expect(await store.countViews('p1')).toBe(1);
    });
  });
}

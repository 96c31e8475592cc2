import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { agentOperators } from '../../../src/domain/analytics/agent-list.ts';
import {
  type CheckpointStore,
  type CopyCheckpoint,
  copyViews,
} from '../../../src/domain/analytics/copy-views.ts';
import type {
  AnalyticsStore,
  PreparedEvent,
  TimeRange,
  ViewScanner,
} from '../../../src/domain/analytics/store.ts';
import {
  ANALYTICS_BACKENDS,
  type AnalyticsBackendName,
  type TestAnalyticsLocation,
} from '../../helpers/analytics-backends.ts';

type Store = AnalyticsStore & ViewScanner;
const clock = () => new Date(Date.UTC(2026, 0, 20));
const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

function views(n: number): PreparedEvent[] {
  const out: PreparedEvent[] = [];
  for (let i = 0; i < n; i++) {
    const ai = i % 3 === 1;
    out.push({
      // Half without an event key: only the checkpoint keeps those from doubling on resume.
      eventKey: i % 2 === 0 ? null : randomBytes(32).toString('latin1'),
      timestamp: T0 + Math.floor(i / 3) * 5 * HOUR + (i % 3),
      path: `/guide/${i % 7}`,
      visitorKey: Buffer.from(`${String(i % 11).padStart(4, '0')}visitor-key-`.slice(0, 16)),
      category: ai ? 'ai' : i % 5 === 0 ? 'ai_crawler' : 'human',
      purpose: ai ? 'assistant' : i % 5 === 0 ? 'training' : null,
      agent: ai ? 'ChatGPT-User' : i % 5 === 0 ? 'GPTBot' : '',
      classifierVersion: 2,
      userAgent: ai ? 'ChatGPT-User/1.0' : 'Mozilla/5.0',
      flags: i % 4 === 0 ? 2 : 0,
      status: 200,
      referrer: i % 6 === 0 ? 'https://example.org/' : null,
      verified: !ai && i % 5 === 0 && i % 2 === 0,
    });
  }
  return out;
}

class MemoryCheckpoints implements CheckpointStore {
  saved: CopyCheckpoint | null = null;
  /** Throws on the save with this number (1-based), as a process killed there would stop. */
  failOnSave = 0;
  private saves = 0;
  async load() {
    return this.saved;
  }
  async save(checkpoint: CopyCheckpoint) {
    this.saves++;
    if (this.saves === this.failOnSave) throw new Error('killed');
    this.saved = structuredClone(checkpoint);
  }
}

const RANGES: TimeRange[] = [
  { from: null, to: null },
  { from: T0 + 26 * HOUR, to: T0 + 5 * 24 * HOUR + 7 * HOUR },
  { from: T0 + 2 * 24 * HOUR, to: T0 + 3 * 24 * HOUR },
];

async function exportsOf(store: Store, projectId: string) {
  const out = [];
  for (const range of RANGES) {
    for (const [countAiCrawlersAsAi, verifiedOnly] of [
      [false, false],
      [true, false],
      [true, true],
    ] as const) {
      const counting = { countAiCrawlersAsAi, verifiedOnly };
      out.push(
        await store.pages(projectId, { range, measure: 'visitors', limit: 100, offset: 0, ...counting }),
        await store.pages(projectId, { range, measure: 'views', limit: 100, offset: 0, ...counting }),
        await store.timeSeries(projectId, { range, interval: 'day', ...counting }),
      );
    }
    for (const verifiedOnly of [false, true])
      out.push(await store.breakdown(projectId, { range, operatorOf: agentOperators(), verifiedOnly }));
  }
  return out;
}

const backend = (name: AnalyticsBackendName) =>
  ANALYTICS_BACKENDS.find((b) => b.name === name) as (typeof ANALYTICS_BACKENDS)[number];

const PAIRS: Array<[AnalyticsBackendName, AnalyticsBackendName]> = [
  ['embedded', 'postgres'],
  ['postgres', 'clickhouse'],
  ['clickhouse', 'embedded'],
];

for (const [from, to] of PAIRS) {
  describe(`copyViews ${from} → ${to}`, () => {
    const locations: TestAnalyticsLocation[] = [];
    const stores: Store[] = [];
    afterEach(async () => {
      for (const s of stores.splice(0)) await s.close();
      for (const l of locations.splice(0)) await l.drop();
    });
    async function open(name: AnalyticsBackendName): Promise<Store> {
      const location = await backend(name).create();
      locations.push(location);
      const store = (await location.open({ clock })) as Store;
      stores.push(store);
      return store;
    }

    it('copies every view: same count, same exports', async () => {
      const source = await open(from);
      const target = await open(to);
      await source.append('p', views(120));
      await source.append('other', views(5));
      const checkpoints = new MemoryCheckpoints();
      const result = await copyViews({
        projectId: 'p',
        source,
        target,
        checkpoints,
        batchSize: 17,
        bulkMinViews: 100,
      });
      expect(result).toEqual({ copied: 120, total: 120 });
      // Into an empty ClickHouse project the copy bulk-loads, then builds the first-visit tables.
      expect(checkpoints.saved?.bulk).toBe(to === 'clickhouse' ? false : undefined);
      expect(await target.countViews('p')).toBe(120);
      expect(await target.countViews('other')).toBe(0);
      expect(await exportsOf(target, 'p')).toEqual(await exportsOf(source, 'p'));

      // Run again after newer views arrived at the source: only those are copied.
      const later = views(30).map((v) => ({ ...v, timestamp: v.timestamp + 40 * 24 * HOUR }));
      await source.append('p', later);
      const again = await copyViews({ projectId: 'p', source, target, checkpoints, batchSize: 17 });
      expect(again).toEqual({ copied: 150, total: 150 });
      expect(await target.countViews('p')).toBe(150);
      expect(await exportsOf(target, 'p')).toEqual(await exportsOf(source, 'p'));
    });

    for (const failOnSave of [4, 5]) {
      it(`killed ${failOnSave === 4 ? 'before' : 'after'} a batch reaches the target, resumes with no duplicate and no gap`, async () => {
        const source = await open(from);
        const target = await open(to);
        await source.append('p', views(90));
        const checkpoints = new MemoryCheckpoints();
        // Saves: 1 pending, 2 done, 3 pending, 4 done (batch 2 in, not recorded), 5 pending …
        checkpoints.failOnSave = failOnSave;
        await expect(
          copyViews({ projectId: 'p', source, target, checkpoints, batchSize: 20, bulkMinViews: 1 }),
        ).rejects.toThrow('killed');
        checkpoints.failOnSave = 0;
        const result = await copyViews({
          projectId: 'p',
          source,
          target,
          checkpoints,
          batchSize: 20,
          bulkMinViews: 1,
        });
        expect(result.copied).toBe(90);
        expect(await target.countViews('p')).toBe(90);
        expect(await exportsOf(target, 'p')).toEqual(await exportsOf(source, 'p'));
      });
    }
  });
}

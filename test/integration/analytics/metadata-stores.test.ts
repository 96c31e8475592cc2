import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnalyticsService } from '../../../src/domain/analytics/analytics-service.ts';
import { DatabaseSaltStore } from '../../../src/domain/analytics/database-salts.ts';
import { DatabaseSettingsStore } from '../../../src/domain/analytics/database-settings.ts';
import { DEFAULT_PAGE_RULES } from '../../../src/domain/analytics/page-rules.ts';
import { DEFAULT_ANALYTICS_SETTINGS } from '../../../src/domain/analytics/store.ts';
import { EmbeddedAnalyticsStore } from '../../../src/integrations/analytics/embedded/embedded-store.ts';
import type { Storage } from '../../../src/storage/database.ts';
import { saveAnalyticsSettings } from '../../../src/storage/queries/analytics-settings.ts';
import { openTestStorage, type TestDatabase, testBackend } from '../../helpers/storage.ts';

const NOW = new Date('2025-03-14T12:00:00Z');
const clock = () => NOW;

describe(`analytics salts and settings in the main database on ${testBackend}`, () => {
  let storage: Storage;
  let database: TestDatabase;
  let cleanup: () => Promise<void>;
  const others: Storage[] = [];
  /** Another connection (pool) to the same database, as another process would have. */
  const otherNode = () => {
    const other = database.open();
    others.push(other);
    return other;
  };

  beforeEach(async () => {
    ({ storage, database, cleanup } = await openTestStorage());
  });
  afterEach(async () => {
    await Promise.all(others.splice(0).map((other) => other.close()));
    await cleanup();
  });

  describe('salts', () => {
    it('makes a 32-byte salt per period on first use and keeps it across processes and restarts', async () => {
      const salts = new DatabaseSaltStore(storage, clock);
      const day = await salts.salt('2025-03-14');
      expect(day).toHaveLength(32);
      expect(await salts.salt('2025-03-14')).toEqual(day);
      expect(await salts.salt('2025-03-15')).not.toEqual(day);
      expect(await new DatabaseSaltStore(otherNode(), clock).salt('2025-03-14')).toEqual(day);
    });

    it('gives concurrent callers on two connections one salt per new period', async () => {
      const a = new DatabaseSaltStore(storage, clock);
      const b = new DatabaseSaltStore(otherNode(), clock);
      const c = new DatabaseSaltStore(otherNode(), clock);
      const periods = Array.from({ length: 20 }, (_, i) => `2025-04-${String(i + 1).padStart(2, '0')}`);
      const results = await Promise.all(
        periods.flatMap((period) =>
          [a, b, c, a, b].map(async (store) => ({ period, salt: await store.salt(period) })),
        ),
      );
      const byPeriod = new Map<string, Set<string>>();
      for (const { period, salt } of results) {
        const seen = byPeriod.get(period) ?? new Set<string>();
        seen.add(salt.toString('hex'));
        byPeriod.set(period, seen);
      }
      expect([...byPeriod.values()].map((seen) => seen.size)).toEqual(periods.map(() => 1));
      // And what they agreed on is what is stored.
      const fresh = new DatabaseSaltStore(otherNode(), clock);
      for (const { period, salt } of results) expect(await fresh.salt(period)).toEqual(salt);
    });

    it('forgets the salts `expired` picks, everywhere, and makes a new one if the period comes back', async () => {
      const salts = new DatabaseSaltStore(storage, clock);
      const old = await salts.salt('2025-03-01');
      const kept = await salts.salt('2025-03-14');
      await salts.salt('never');
      expect((await salts.forgetSalts((period) => period < '2025-03-10')).sort()).toEqual(['2025-03-01']);
      expect(await new DatabaseSaltStore(otherNode(), clock).forgetSalts(() => false)).toEqual([]);
      expect(await salts.salt('2025-03-14')).toEqual(kept);
      const again = await salts.salt('2025-03-01');
      expect(again).toHaveLength(32);
      expect(again).not.toEqual(old);
    });
  });

  describe('settings', () => {
    it('answers the defaults until saved, then what was saved, to every process', async () => {
      const settings = new DatabaseSettingsStore(storage, clock);
      expect(await settings.settings('prj')).toEqual(DEFAULT_ANALYTICS_SETTINGS);
      const saved = {
        ...DEFAULT_ANALYTICS_SETTINGS,
        allowedOrigins: ['https://docs.example.com'],
        countAiCrawlersAsAi: true,
        saltRotation: 'weekly' as const,
      };
      await settings.saveSettings('prj', saved);
      expect(await new DatabaseSettingsStore(otherNode(), clock).settings('prj')).toEqual(saved);
      await settings.saveSettings('prj', { ...saved, countAiCrawlersAsAi: false });
      expect((await settings.settings('prj')).countAiCrawlersAsAi).toBe(false);
      expect(await settings.settings('other')).toEqual(DEFAULT_ANALYTICS_SETTINGS);
      await settings.deleteSettings('prj');
      expect(await settings.settings('prj')).toEqual(DEFAULT_ANALYTICS_SETTINGS);
    });

    it('fills fields that settings stored by an older version lack with the defaults', async () => {
      await saveAnalyticsSettings(storage.db, {
        projectId: 'prj',
        value: JSON.stringify({ allowedOrigins: ['*'], countAiCrawlersAsAi: true }),
        updatedAt: NOW.toISOString(),
      });
      expect(await new DatabaseSettingsStore(storage, clock).settings('prj')).toEqual({
        allowedOrigins: ['*'],
        countAiCrawlersAsAi: true,
        saltRotation: null,
        pageRules: DEFAULT_PAGE_RULES,
      });
    });

    it("are deleted with the project's analytics", async () => {
      const settings = new DatabaseSettingsStore(storage, clock);
      const store = new EmbeddedAnalyticsStore({
        file: path.join(database.dir, 'analytics.sqlite'),
        synchronous: 'normal',
        clock,
      });
      const salts = new DatabaseSaltStore(storage, clock);
      const service = new AnalyticsService({ store, salts, settings, clock });
      await service.updateSettings('prj', { allowedOrigins: ['https://docs.example.com'] });
      await service.updateSettings('kept', { countAiCrawlersAsAi: true });
      expect(await service.isAllowedOrigin('prj', 'https://docs.example.com')).toBe(true);
      await service.deleteProject('prj');
      expect(await settings.settings('prj')).toEqual(DEFAULT_ANALYTICS_SETTINGS);
      expect((await settings.settings('kept')).countAiCrawlersAsAi).toBe(true);
      await service.close();
    });
  });
});

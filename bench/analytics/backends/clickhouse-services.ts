import { AnalyticsService } from '../../../src/domain/analytics/analytics-service.ts';
import type { AnalyticsSettingsStore, SaltStore } from '../../../src/domain/analytics/store.ts';
import { systemClock } from '../../../src/domain/clock.ts';
import { openClickHouseAnalyticsStore } from '../../../src/integrations/analytics/clickhouse/clickhouse-store.ts';
import type { Storage } from '../../../src/storage/database.ts';

/**
 * Puts a ClickHouse store behind an open services' analytics, keeping its salts and settings
 * (the embedded engine's, until the main database holds them). For the benchmark only: the
 * deployment chooses its backend in src/app.
 */
export async function withClickHouse(
  services: { analytics: AnalyticsService; storage: Storage },
  options: { url: string; database: string },
): Promise<void> {
  const metadata = services.analytics.store as unknown as SaltStore & AnalyticsSettingsStore;
  // The main database's locks, as a deployment's process holds them.
  const store = await openClickHouseAnalyticsStore({ ...options, locks: services.storage.locks });
  services.analytics = new AnalyticsService({
    store,
    salts: metadata,
    settings: metadata,
    clock: systemClock,
    saltRotation: services.analytics.saltRotation,
    maxBatch: services.analytics.maxBatch,
  });
}

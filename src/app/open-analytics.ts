import path from 'node:path';
import type { Logger } from 'pino';
import { AnalyticsService } from '../domain/analytics/analytics-service.ts';
import { DatabaseSaltStore } from '../domain/analytics/database-salts.ts';
import { DatabaseSettingsStore } from '../domain/analytics/database-settings.ts';
import type { AnalyticsOptions } from '../domain/analytics/options.ts';
import type { Clock } from '../domain/clock.ts';
import { EmbeddedAnalyticsStore } from '../integrations/analytics/embedded/embedded-store.ts';
import type { Storage } from '../storage/database.ts';

/**
 * The analytics service: views in the embedded store, salts and settings in the main
 * database (shared by every process of the deployment).
 */
export async function openAnalytics(options: {
  dataDir: string;
  /** The main database, open and migrated; the caller closes it. */
  storage: Storage;
  clock: Clock;
  logger: Logger;
  settings: AnalyticsOptions;
  /** A bulk import sees many more distinct visitors than a server: give it a bigger cache. */
  identityCacheLimit?: number;
  /** Import workers of one process share a write lock (see ThreadLock). */
  threadLock?: SharedArrayBuffer;
  /** A bulk log import: load every visitor key up front, as logs mostly bring older periods. */
  bulkImport?: boolean;
}): Promise<AnalyticsService> {
  const store = new EmbeddedAnalyticsStore({
    file: analyticsFile(options.dataDir, options.settings),
    synchronous: options.settings.durability,
    ...(options.threadLock ? { threadLock: options.threadLock } : {}),
    ...(options.bulkImport ? { visitorKeys: 'all' as const } : {}),
    clock: options.clock,
    logger: options.logger,
  });
  return new AnalyticsService({
    store,
    salts: new DatabaseSaltStore(options.storage, options.clock),
    settings: new DatabaseSettingsStore(options.storage, options.clock),
    clock: options.clock,
    saltRotation: options.settings.saltRotation,
    saltRetentionDays: options.settings.saltRetentionDays,
    maxBatch: options.settings.maxBatch,
    ...(options.identityCacheLimit ? { identityCacheLimit: options.identityCacheLimit } : {}),
  });
}

/** Where the embedded store keeps its file. */
export function analyticsFile(dataDir: string, settings: AnalyticsOptions): string {
  return settings.file ?? path.join(dataDir, 'analytics.sqlite');
}

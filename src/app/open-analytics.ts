import path from 'node:path';
import type { Logger } from 'pino';
import { AnalyticsService } from '../domain/analytics/analytics-service.ts';
import type { AnalyticsOptions } from '../domain/analytics/options.ts';
import type { AnalyticsStore } from '../domain/analytics/store.ts';
import type { Clock } from '../domain/clock.ts';
import { EmbeddedAnalyticsStore } from '../integrations/analytics/embedded/embedded-store.ts';

/** The analytics service over the embedded store (the default, serverless engine). */
export function openAnalytics(options: {
  dataDir: string;
  clock: Clock;
  logger: Logger;
  settings: AnalyticsOptions;
  /** A bulk import sees many more distinct visitors than a server: give it a bigger cache. */
  identityCacheLimit?: number;
  /** Import workers of one process share a write lock (see ThreadLock). */
  threadLock?: SharedArrayBuffer;
  /** A bulk log import: load every visitor key up front, as logs mostly bring older periods. */
  bulkImport?: boolean;
  /** Views go to this store instead (salts and settings stay in the embedded file). */
  store?: AnalyticsStore;
}): AnalyticsService {
  const embedded = new EmbeddedAnalyticsStore({
    file: analyticsFile(options.dataDir, options.settings),
    synchronous: options.settings.durability,
    ...(options.threadLock ? { threadLock: options.threadLock } : {}),
    ...(options.bulkImport ? { visitorKeys: 'all' as const } : {}),
    clock: options.clock,
    logger: options.logger,
  });
  return new AnalyticsService({
    store: options.store ?? embedded,
    salts: embedded,
    settings: embedded,
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

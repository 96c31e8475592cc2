import path from 'node:path';
import type { Logger } from 'pino';
import type { AnalyticsBackendConfig } from '../config/analytics-backend.ts';
import { AnalyticsService } from '../domain/analytics/analytics-service.ts';
import type { CrawlerRanges } from '../domain/analytics/crawler-ranges.ts';
import { DatabaseSaltStore } from '../domain/analytics/database-salts.ts';
import { DatabaseSettingsStore } from '../domain/analytics/database-settings.ts';
import type { AnalyticsOptions } from '../domain/analytics/options.ts';
import type { AnalyticsStore, ViewScanner } from '../domain/analytics/store.ts';
import type { Clock } from '../domain/clock.ts';
import { openClickHouseAnalyticsStore } from '../integrations/analytics/clickhouse/clickhouse-store.ts';
import { EmbeddedAnalyticsStore } from '../integrations/analytics/embedded/embedded-store.ts';
import { openPostgresAnalyticsStore } from '../integrations/analytics/postgres/postgres-store.ts';
import type { Locks, Storage } from '../storage/database.ts';

export interface OpenAnalyticsOptions {
  /** Where the views go (DOCWRIGHT_ANALYTICS_URL). */
  backend: AnalyticsBackendConfig;
  /** The main database, open and migrated: salts and settings. The caller closes it. */
  storage: Storage;
  clock: Clock;
  logger: Logger;
  settings: AnalyticsOptions;
  /** The operators' published crawler IP ranges that verify agents (see app/crawler-ranges.ts). */
  crawlerRanges: CrawlerRanges;
  /** A bulk import sees many more distinct visitors than a server: give it a bigger cache. */
  identityCacheLimit?: number;
  /** Embedded engine: import workers of one process share a write lock (see ThreadLock). */
  threadLock?: SharedArrayBuffer;
  /** Embedded engine, bulk log import: load every visitor key up front (logs bring older periods). */
  bulkImport?: boolean;
  /** Views go to this store instead of the configured backend's (benchmarks). */
  store?: AnalyticsStore;
}

/**
 * The analytics service: views in the configured engine, salts and settings in the main
 * database, shared by every process of the deployment whatever the engine.
 */
export async function openAnalytics(options: OpenAnalyticsOptions): Promise<AnalyticsService> {
  const store = options.store ?? (await openStore(options));
  return new AnalyticsService({
    store,
    salts: new DatabaseSaltStore(options.storage, options.clock),
    settings: new DatabaseSettingsStore(options.storage, options.clock),
    clock: options.clock,
    saltRotation: options.settings.saltRotation,
    saltRetentionDays: options.settings.saltRetentionDays,
    maxBatch: options.settings.maxBatch,
    crawlerRanges: options.crawlerRanges,
    preparationThreads: options.settings.preparationThreads,
    onPreparationError: (error) =>
      options.logger.warn(
        { err: error.message },
        'analytics: a preparation thread failed; its batch is prepared on the main thread',
      ),
    ...(options.identityCacheLimit ? { identityCacheLimit: options.identityCacheLimit } : {}),
  });
}

async function openStore(options: OpenAnalyticsOptions): Promise<AnalyticsStore> {
  return openAnalyticsStore(options.backend, {
    durability: options.settings.durability,
    locks: options.storage.locks,
    clock: options.clock,
    logger: options.logger,
    ...(options.threadLock ? { threadLock: options.threadLock } : {}),
    ...(options.bulkImport ? { bulkImport: true } : {}),
  });
}

/** The views of one backend, readable back (`analytics migrate` opens a source and a target). */
export async function openAnalyticsStore(
  backend: AnalyticsBackendConfig,
  options: {
    durability: AnalyticsOptions['durability'];
    /** The main database's locks: engines without transactions serialise their writers with them. */
    locks: Locks;
    clock: Clock;
    logger: Logger;
    threadLock?: SharedArrayBuffer;
    bulkImport?: boolean;
  },
): Promise<AnalyticsStore & ViewScanner> {
  switch (backend.kind) {
    case 'embedded':
      return new EmbeddedAnalyticsStore({
        file: backend.file,
        synchronous: options.durability,
        ...(options.threadLock ? { threadLock: options.threadLock } : {}),
        ...(options.bulkImport ? { visitorKeys: 'all' as const } : {}),
        clock: options.clock,
        logger: options.logger,
      });
    case 'postgres':
      return openPostgresAnalyticsStore({ url: backend.url, schema: backend.schema });
    case 'clickhouse':
      return openClickHouseAnalyticsStore({
        url: backend.url,
        database: backend.database,
        username: backend.username,
        password: backend.password,
        locks: options.locks,
        logger: options.logger,
      });
  }
}

/** Where the embedded engine keeps (or kept, before another backend was chosen) its file. */
export function analyticsFile(dataDir: string, settings: AnalyticsOptions): string {
  return settings.file ?? path.join(dataDir, 'analytics.sqlite');
}

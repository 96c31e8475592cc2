import path from 'node:path';
import type { Logger } from 'pino';
import { EmbeddedAnalyticsStore } from '../../storage/analytics/embedded-store.ts';
import type { Clock } from '../clock.ts';
import { AnalyticsService, DEFAULT_MAX_BATCH } from './analytics-service.ts';
import type { SaltRotation } from './identity.ts';

/** Deployment settings of docs analytics (read in src/config, passed in through services). */
export interface AnalyticsOptions {
  /** Salt rotation for anonymous visitor ids. */
  saltRotation: SaltRotation;
  /** Days a rotated salt is kept after its period ends (see `saltExpired`). */
  saltRetentionDays: number;
  /** Most events per ingestion request. */
  maxBatch: number;
  /** Proxies whose X-Forwarded-For the browser collect endpoint believes (IPs, CIDRs, names). */
  trustedProxies: string[];
  /** Export requests per project per rate-limit window; 0 disables. */
  rateLimitPerWindow: number;
  /** Browser collect beacons per client IP per minute per project, counted in memory; 0 disables. */
  collectRateLimitPerMinute: number;
  /** `full`: an acknowledged view survives power loss; `normal`: a process crash. */
  durability: 'full' | 'normal';
  /** The analytics file; null: `analytics.sqlite` in the data dir. */
  file: string | null;
}

export const DEFAULT_ANALYTICS_OPTIONS: AnalyticsOptions = {
  saltRotation: 'daily',
  saltRetentionDays: 7,
  maxBatch: DEFAULT_MAX_BATCH,
  trustedProxies: [],
  rateLimitPerWindow: 1000,
  collectRateLimitPerMinute: 120,
  durability: 'full',
  file: null,
};

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
}): AnalyticsService {
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

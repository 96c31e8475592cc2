import { availableParallelism } from 'node:os';
import type { SaltRotation } from './identity.ts';

/**
 * Deployment settings of docs analytics (read in src/config, passed in through services), with
 * their defaults in DEFAULT_ANALYTICS_OPTIONS. A project's own settings are AnalyticsSettings
 * (store.ts).
 */
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
  /**
   * Worker threads that parse and prepare large ingestion requests (see preparation-pool.ts);
   * 0: all on the thread that serves HTTP.
   */
  preparationThreads: number;
  /**
   * Ingestion requests of one process whose bodies are read and stored at once; the others wait
   * unread, in arrival order, so memory does not grow with the number of clients sending.
   */
  ingestConcurrency: number;
}

export const DEFAULT_ANALYTICS_OPTIONS: AnalyticsOptions = {
  saltRotation: 'daily',
  saltRetentionDays: 7,
  maxBatch: 1000,
  trustedProxies: [],
  rateLimitPerWindow: 1000,
  collectRateLimitPerMinute: 120,
  durability: 'full',
  file: null,
  // One core is left to the thread that serves HTTP and stores views, so none on one core. On
  // two, one thread took ingestion at 10 M views from 81–101k to 105–118k events/s
  // (docs/analytics-engines.md#preparation-threads).
  preparationThreads: availableParallelism() >= 2 ? Math.min(4, availableParallelism() - 1) : 0,
  // 32 requests of 1,000 events fill two append groups of 16,384 views (append-groups.ts): one
  // being stored while the next gathers (docs/analytics-engines.md, "Requests admitted").
  ingestConcurrency: 32,
};

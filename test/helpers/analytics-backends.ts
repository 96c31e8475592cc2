import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  type AnalyticsSettings,
  type AnalyticsSettingsStore,
  type AnalyticsStore,
  DEFAULT_ANALYTICS_SETTINGS,
  type SaltStore,
} from '../../src/domain/analytics/store.ts';
import type { Clock } from '../../src/domain/clock.ts';
import { EmbeddedAnalyticsStore } from '../../src/integrations/analytics/embedded/embedded-store.ts';
import { openPostgresAnalyticsStore } from '../../src/integrations/analytics/postgres/postgres-store.ts';
import { testPostgresUrl } from './storage.ts';

/** The analytics engines behind the store seam; every store test runs on each. */
export type AnalyticsBackendName = 'embedded' | 'postgres' | 'clickhouse';

/** A fresh, empty place for one test's views on one backend. */
export interface TestAnalyticsLocation {
  /** Opens the store; after `close()` it may be opened again (a restart) and sees the same views. */
  open(options: { clock: Clock }): Promise<AnalyticsStore>;
  /** Removes everything the location holds. */
  drop(): Promise<void>;
}

export interface TestAnalyticsBackend {
  name: AnalyticsBackendName;
  create(): Promise<TestAnalyticsLocation>;
}

const embedded: TestAnalyticsBackend = {
  name: 'embedded',
  async create() {
    const dir = mkdtempSync(path.join(tmpdir(), 'dw-analytics-'));
    const file = path.join(dir, 'analytics.sqlite');
    return {
      open: async ({ clock }) =>
        new EmbeddedAnalyticsStore({ file, synchronous: 'normal', checkpointIntervalMs: 0, clock }),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
};

/** A fresh PostgreSQL schema per location, dropped with it. */
const postgres: TestAnalyticsBackend = {
  name: 'postgres',
  async create() {
    const schema = `dw_analytics_${randomBytes(6).toString('hex')}`;
    return {
      open: async () => openPostgresAnalyticsStore({ url: testPostgresUrl, schema, poolSize: 3 }),
      drop: () => dropSchema(schema),
    };
  },
};

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: testPostgresUrl });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

/** Every backend the store tests run on. */
export const ANALYTICS_BACKENDS: readonly TestAnalyticsBackend[] = [embedded, postgres];

/**
 * Salts and settings kept in memory, outliving the store's restarts as the main database's
 * would: the store tests are about views.
 */
export class MemoryAnalyticsMetadata implements SaltStore, AnalyticsSettingsStore {
  private readonly salts = new Map<string, Buffer>();
  private readonly saved = new Map<string, AnalyticsSettings>();

  async salt(period: string): Promise<Buffer> {
    let salt = this.salts.get(period);
    if (!salt) {
      salt = randomBytes(32);
      this.salts.set(period, salt);
    }
    return salt;
  }

  async forgetSalts(expired: (period: string) => boolean): Promise<string[]> {
    const periods = [...this.salts.keys()].filter(expired);
    for (const period of periods) this.salts.delete(period);
    return periods;
  }

  async settings(projectId: string): Promise<AnalyticsSettings> {
    return this.saved.get(projectId) ?? { ...DEFAULT_ANALYTICS_SETTINGS };
  }

  async saveSettings(projectId: string, settings: AnalyticsSettings): Promise<void> {
    this.saved.set(projectId, settings);
  }

  async deleteSettings(projectId: string): Promise<void> {
    this.saved.delete(projectId);
  }
}

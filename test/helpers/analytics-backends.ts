import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import pg from 'pg';
import { inject } from 'vitest';
import {
  type AnalyticsSettings,
  type AnalyticsSettingsStore,
  type AnalyticsStore,
  completeAnalyticsSettings,
  type SaltStore,
} from '../../src/domain/analytics/store.ts';
import type { Clock } from '../../src/domain/clock.ts';
import { randomBase32 } from '../../src/domain/ids.ts';
import { openClickHouseAnalyticsStore } from '../../src/integrations/analytics/clickhouse/clickhouse-store.ts';
import { EmbeddedAnalyticsStore } from '../../src/integrations/analytics/embedded/embedded-store.ts';
import { openPostgresAnalyticsStore } from '../../src/integrations/analytics/postgres/postgres-store.ts';
import { processLocks } from '../../src/storage/locks.ts';
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
  /**
   * How many runs a property test makes on this backend, from the embedded engine's count: a
   * server's queries cost milliseconds each, so the same cases would take minutes there.
   */
  runs(embeddedRuns: number): number;
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
  runs: (n) => n,
};

/** Drops the test databases (one client for all: it lives as long as the test file). */
let admin: ClickHouseClient | undefined;

/** A database of its own on the suite's ClickHouse server (test/helpers/clickhouse.global.ts). */
const clickhouse: TestAnalyticsBackend = {
  name: 'clickhouse',
  async create() {
    const url = inject('clickhouseUrl');
    const database = `dw_test_${randomBase32(12).toLowerCase()}`;
    return {
      // One writer at a time (a test reopens its store as a restart): the process's locks do.
      open: async () => openClickHouseAnalyticsStore({ url, database, locks: processLocks() }),
      drop: async () => {
        admin ??= createClient({ url });
        await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
      },
    };
  },
  runs: (n) => Math.ceil(n / 2),
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
  // Each property run is hundreds of round trips to the server: half the runs keeps the suite short.
  runs: (n) => Math.ceil(n / 2),
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
export const ANALYTICS_BACKENDS: readonly TestAnalyticsBackend[] = [embedded, postgres, clickhouse];

/** One backend by name, for a test file that runs on that backend only. */
export function analyticsBackend(name: AnalyticsBackendName): TestAnalyticsBackend {
  const backend = ANALYTICS_BACKENDS.find((b) => b.name === name);
  if (!backend) throw new Error(`no analytics backend named ${name}`);
  return backend;
}

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
    return completeAnalyticsSettings(this.saved.get(projectId));
  }

  async saveSettings(projectId: string, settings: AnalyticsSettings): Promise<void> {
    this.saved.set(projectId, settings);
  }

  async deleteSettings(projectId: string): Promise<void> {
    this.saved.delete(projectId);
  }
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { randomBase32 } from '../../src/domain/ids.ts';
import type { DatabaseConfig } from '../../src/storage/database.ts';
import { openStorage, type Storage } from '../../src/storage/database.ts';
import { migrate } from '../../src/storage/migrate.ts';

export type TestBackend = 'sqlite' | 'postgres';

/** The backend this Vitest project runs on (see vitest.config.ts). */
export const testBackend: TestBackend =
  process.env.DOCWRIGHT_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';

/** PostgreSQL server the suite uses; CI starts one on localhost with trust authentication. */
export const testPostgresUrl =
  process.env.DOCWRIGHT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  config: DatabaseConfig;
  /** Environment variables that point a child process at the same database. */
  env: Record<string, string>;
  dir: string;
  open(): Storage;
  drop(): Promise<void>;
}

/** A fresh, empty database of the current backend: a SQLite file or a PostgreSQL schema. */
export function createTestDatabase(backend: TestBackend = testBackend): TestDatabase {
  const dir = mkdtempSync(path.join(tmpdir(), 'docwright-test-'));
  if (backend === 'sqlite') {
    // The same file the configuration derives from DOCWRIGHT_DATA_DIR, so child processes share it.
    const file = path.join(dir, 'docwright.sqlite');
    return {
      config: { kind: 'sqlite', file },
      env: { DOCWRIGHT_DATA_DIR: dir },
      dir,
      open: () => openStorage({ kind: 'sqlite', file }),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `dw_test_${randomBase32(12)}`;
  const config: DatabaseConfig = { kind: 'postgres', url: testPostgresUrl, schema };
  return {
    config,
    env: {
      DOCWRIGHT_DATA_DIR: dir,
      DATABASE_URL: testPostgresUrl,
      DOCWRIGHT_DATABASE_SCHEMA: schema,
    },
    dir,
    open: () => openStorage(config),
    drop: async () => {
      const client = new pg.Client({ connectionString: testPostgresUrl });
      await client.connect();
      try {
        await client.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await client.end();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Opens and migrates a fresh database; call the returned cleanup in afterEach. */
export async function openTestStorage(
  backend: TestBackend = testBackend,
): Promise<{ storage: Storage; database: TestDatabase; cleanup: () => Promise<void> }> {
  const database = createTestDatabase(backend);
  const storage = database.open();
  await migrate(storage, database.config);
  return {
    storage,
    database,
    cleanup: async () => {
      await storage.close();
      await database.drop();
    },
  };
}

/** True when the schema-per-test trick is in effect (used by a test that checks isolation). */
export async function currentSchema(storage: Storage): Promise<string | null> {
  if (storage.dialect !== 'postgres') return null;
  const result = await sql<{ schema: string }>`select current_schema() as schema`.execute(storage.db);
  return result.rows[0]?.schema ?? null;
}

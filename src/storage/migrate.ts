import { mkdir, rmdir, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import type { DatabaseConfig, Storage } from './database.ts';
import * as m0001 from './migrations/0001_initial.ts';
import * as m0002 from './migrations/0002_sessions.ts';
import * as m0003 from './migrations/0003_turn_model.ts';
import * as m0004 from './migrations/0004_accounts.ts';
import * as m0005 from './migrations/0005_key_limits.ts';
import * as m0006 from './migrations/0006_job_events.ts';
import * as m0007 from './migrations/0007_analytics_metadata.ts';
import * as m0008 from './migrations/0008_webhooks.ts';
import * as m0009 from './migrations/0009_automations.ts';
import * as m0010 from './migrations/0010_turn_cost.ts';
import * as m0011 from './migrations/0011_webhook_rotation.ts';
import * as m0012 from './migrations/0012_automation_secret_rotation.ts';
import * as m0013 from './migrations/0013_crawler_range_lists.ts';
import * as m0014 from './migrations/0014_context_repositories.ts';
import * as m0015 from './migrations/0015_turn_sources.ts';

// Listed explicitly (not read from disk) so migrations ship with the code that needs them.
const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_sessions': m0002,
  '0003_turn_model': m0003,
  '0004_accounts': m0004,
  '0005_key_limits': m0005,
  '0006_job_events': m0006,
  '0007_analytics_metadata': m0007,
  '0008_webhooks': m0008,
  '0009_automations': m0009,
  '0010_turn_cost': m0010,
  '0011_webhook_rotation': m0011,
  '0012_automation_secret_rotation': m0012,
  '0013_crawler_range_lists': m0013,
  '0014_context_repositories': m0014,
  '0015_turn_sources': m0015,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export interface MigrationReport {
  applied: string[];
}

/** Applies every pending migration; safe to run from several processes at once. */
export async function migrate(storage: Storage, config: DatabaseConfig): Promise<MigrationReport> {
  if (config.kind === 'postgres' && config.schema) {
    await sql`create schema if not exists ${sql.id(config.schema)}`.execute(storage.db);
  }
  // Kysely looks for its own tables in every schema unless told which one; another schema of
  // the same database (another installation, a test) would then hide ours.
  const migrationTableSchema =
    config.kind === 'postgres' ? (config.schema ?? (await currentSchema(storage))) : undefined;
  const migrator = new Migrator({
    db: storage.db,
    provider,
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  // Kysely locks migrations with a row lock on PostgreSQL but not on SQLite, where two
  // processes starting on a fresh file would race; a lock directory serialises them.
  const { error, results } =
    config.kind === 'sqlite'
      ? await withDirectoryLock(`${config.file}.migrate.lock`, () => migrator.migrateToLatest())
      : await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Database migration ${failed} failed: ${(error as Error).message}`);
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

async function currentSchema(storage: Storage): Promise<string> {
  const result = await sql<{ schema: string }>`select current_schema() as schema`.execute(storage.db);
  return result.rows[0]?.schema ?? 'public';
}

const STALE_LOCK_MS = 60_000;

/** mkdir is atomic across processes; a lock left by a crashed process expires. */
async function withDirectoryLock<T>(lockDir: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 2 * STALE_LOCK_MS;
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age =
        Date.now() -
        (await stat(lockDir).then(
          (s) => s.mtimeMs,
          () => Date.now(),
        ));
      if (age > STALE_LOCK_MS) await rmdir(lockDir).catch(() => {});
      else if (Date.now() > deadline) throw new Error(`Timed out waiting for the migration lock ${lockDir}`);
      else await sleep(25);
    }
  }
  try {
    return await fn();
  } finally {
    await rmdir(lockDir).catch(() => {});
  }
}

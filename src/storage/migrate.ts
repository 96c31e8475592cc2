import { sql } from 'kysely';
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import type { DatabaseConfig } from '../config/config.ts';
import type { Storage } from './database.ts';
import * as m0001 from './migrations/0001_initial.ts';

// Listed explicitly (not read from disk) so migrations ship with the code that needs them.
const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': m0001,
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
  const migrator = new Migrator({ db: storage.db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Database migration ${failed} failed: ${(error as Error).message}`);
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

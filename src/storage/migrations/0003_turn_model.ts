import type { Kysely } from 'kysely';

/** The model a turn ran on, resolved when it starts (the project's, else the configured default). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('turns').addColumn('model', 'text').execute();
}

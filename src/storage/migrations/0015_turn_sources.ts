import type { Kysely } from 'kysely';

/** What each turn's change relied on beyond the docs repository (JSON list; null: none). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('turns').addColumn('sources', 'text').execute();
}

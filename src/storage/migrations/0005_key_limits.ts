import type { Kysely } from 'kysely';

/**
 * API keys may expire and may be limited to some client addresses. Both are nullable: null
 * is "never" and "from anywhere", which is what every key made before this migration means.
 * One column per statement: SQLite adds a single column per ALTER TABLE.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('allowed_ips', 'text').execute();
}

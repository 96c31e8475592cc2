import type { Kysely } from 'kysely';

/**
 * Browser sessions. A session is a random id the browser keeps in a cookie; only its SHA-256
 * is stored. Today a session is opened by signing in with an API key (the review page) and
 * dies with that key; `user_id` is left for accounts, which will open sessions of their own.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'text', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('api_key_id', 'text', (c) => c.references('api_keys.id').onDelete('cascade'))
    .addColumn('user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('sessions_api_key_idx').on('sessions').column('api_key_id').execute();
}

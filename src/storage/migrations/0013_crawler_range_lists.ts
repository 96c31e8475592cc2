import type { Kysely } from 'kysely';

/**
 * The crawler IP range lists `docwright analytics update-lists` fetched, as published (JSON
 * text), one row per list file: in the main database, so every node of a deployment verifies
 * agents with the same lists, not only the machine the command ran on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('crawler_range_lists')
    .addColumn('file', 'text', (c) => c.primaryKey())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

import { type Kysely, SqliteAdapter } from 'kysely';

/**
 * Docs analytics keeps its metadata in the main database, whatever engine holds the views, so
 * every process of a deployment shares it: the secret salt of each visitor-identity period
 * (two API nodes must derive the same visitor from the same request), and each project's
 * analytics settings as JSON text. Both lived in the embedded engine's `analytics.sqlite`
 * before; they are copied over once on start (see src/app/adopt-embedded-metadata.ts).
 * No foreign key to `projects`: a project's settings are deleted with its analytics.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('analytics_salts')
    .addColumn('period', 'text', (c) => c.primaryKey())
    .addColumn('salt', sqlite ? 'blob' : 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('analytics_settings')
    .addColumn('project_id', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

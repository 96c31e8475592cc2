import type { Kysely } from 'kysely';

/**
 * A project's connected source repositories: read-only context the documentation agent may
 * list, read and search (the product's code), each by a name unique in its project.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('context_repositories')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('context_repositories_pk', ['project_id', 'name'])
    .execute();
}

import { type Kysely, SqliteAdapter } from 'kysely';

/**
 * A job's events (status changes, turns, messages, tool steps, pull requests), written in the
 * same transaction as the change they describe, for the live event stream. The id orders
 * them: SQLite `integer primary key autoincrement`, PostgreSQL a bigint identity (read back
 * as a string by `pg`, so the queries turn it into a number). Events live as long as their
 * job: a job's events are deleted with it (and a project's jobs with the project).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('job_events')
    .addColumn('id', sqlite ? 'integer' : 'bigint', (c) =>
      sqlite ? c.primaryKey().autoIncrement() : c.primaryKey().generatedAlwaysAsIdentity(),
    )
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('job_events_job_id_idx').on('job_events').columns(['job_id', 'id']).execute();
}

import type { Kysely } from 'kysely';

/**
 * Automations: a project's standing instructions that start agent jobs on a trigger (a merged
 * pull request in a source repository, a cron schedule, or by hand), and their runs.
 *
 * - `automations.trigger` is JSON (provider, repository, path filters, base branch; or cron
 *   and time zone). A code-change automation's webhook secret is stored sealed with the
 *   secret box: the receiver must recompute the host's HMAC, so it cannot be hashed.
 * - A run is unique on (automation, dedupe key): a redelivered webhook finds the run its
 *   first delivery started instead of starting another. Manual runs have no key (NULLs
 *   never collide).
 * - A schedule slot is claimed by inserting (automation, slot) under the primary key, in the
 *   transaction that starts its run: whatever the number of worker processes, one wins.
 * - `jobs.draft`: whether the job's pull request opens as a draft; null follows the project.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('automations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // code_change, schedule or manual.
    .addColumn('trigger_kind', 'text', (c) => c.notNull())
    // JSON: the trigger's settings.
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('webhook_secret', 'text')
    .addColumn('instructions', 'text', (c) => c.notNull())
    .addColumn('draft', 'integer', (c) => c.notNull())
    .addColumn('max_runs_per_day', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    // Slots of a schedule before this instant are never run (creation, or the last change of the schedule).
    .addColumn('schedule_from', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('automations_project_idx')
    .on('automations')
    .columns(['project_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('automations_trigger_kind_idx')
    .on('automations')
    .columns(['trigger_kind', 'enabled'])
    .execute();

  await db.schema
    .createTable('automation_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('automation_id', 'text', (c) => c.notNull().references('automations.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('trigger_kind', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text')
    // JSON { url, title, number, author? } of the source pull request, or null.
    .addColumn('source', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text', (c) => c.references('jobs.id').onDelete('set null'))
    // The turn the run queued: the run ends when it does.
    .addColumn('turn_id', 'text', (c) => c.references('turns.id').onDelete('set null'))
    // Whether the run added a turn to an earlier run's job (its pull request was still open).
    .addColumn('follow_up', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema
    .createIndex('automation_runs_dedupe_idx')
    .on('automation_runs')
    .columns(['automation_id', 'dedupe_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('automation_runs_list_idx')
    .on('automation_runs')
    .columns(['automation_id', 'created_at'])
    .execute();
  await db.schema.createIndex('automation_runs_turn_idx').on('automation_runs').column('turn_id').execute();
  await db.schema.createIndex('automation_runs_job_idx').on('automation_runs').column('job_id').execute();

  await db.schema
    .createTable('automation_slots')
    .addColumn('automation_id', 'text', (c) => c.notNull().references('automations.id').onDelete('cascade'))
    .addColumn('slot_at', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('claimed_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('automation_slots_pk', ['automation_id', 'slot_at'])
    .execute();

  await db.schema.alterTable('jobs').addColumn('draft', 'integer').execute();
}

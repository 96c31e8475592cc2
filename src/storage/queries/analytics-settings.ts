import { compiledOnce } from './compiled-once.ts';
import type { Executor } from './executor.ts';

// Read for every ingested batch and every export: a primary-key lookup, compiled once.
const selectSettings = compiledOnce('findAnalyticsSettings', (db, projectId: string) =>
  db.selectFrom('analytics_settings').select('value').where('project_id', '=', projectId),
);

/** The project's settings as stored (JSON text), if it has any. */
export async function findAnalyticsSettings(db: Executor, projectId: string): Promise<string | undefined> {
  return (await selectSettings(db, projectId))[0]?.value;
}

export async function saveAnalyticsSettings(
  db: Executor,
  row: { projectId: string; value: string; updatedAt: string },
): Promise<void> {
  await db
    .insertInto('analytics_settings')
    .values({ project_id: row.projectId, value: row.value, updated_at: row.updatedAt })
    .onConflict((oc) => oc.column('project_id').doUpdateSet({ value: row.value, updated_at: row.updatedAt }))
    .execute();
}

/** Stores the settings unless the project already has some; returns whether they were stored. */
export async function insertAnalyticsSettingsIfAbsent(
  db: Executor,
  row: { projectId: string; value: string; updatedAt: string },
): Promise<boolean> {
  const result = await db
    .insertInto('analytics_settings')
    .values({ project_id: row.projectId, value: row.value, updated_at: row.updatedAt })
    .onConflict((oc) => oc.column('project_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function deleteAnalyticsSettings(db: Executor, projectId: string): Promise<void> {
  await db.deleteFrom('analytics_settings').where('project_id', '=', projectId).execute();
}

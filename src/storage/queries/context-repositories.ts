import type { ContextRepositoryRow } from '../schema.ts';
import type { Executor } from './executor.ts';

/** A project's connected repositories, by name. */
export function listContextRepositories(db: Executor, projectId: string): Promise<ContextRepositoryRow[]> {
  return db
    .selectFrom('context_repositories')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('name')
    .execute();
}

/** Adds one; false when the project has one of that name already (nothing changed). */
export async function insertContextRepository(db: Executor, row: ContextRepositoryRow): Promise<boolean> {
  const inserted = await db
    .insertInto('context_repositories')
    .values(row)
    .onConflict((oc) => oc.columns(['project_id', 'name']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Removes one; false when there was none of that name. */
export async function deleteContextRepository(
  db: Executor,
  projectId: string,
  name: string,
): Promise<boolean> {
  const deleted = await db
    .deleteFrom('context_repositories')
    .where('project_id', '=', projectId)
    .where('name', '=', name)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

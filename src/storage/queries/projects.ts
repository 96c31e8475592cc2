import type { ProjectRow } from '../schema.ts';
import { compiledOnce } from './compiled-once.ts';
import type { Executor } from './executor.ts';

export async function insertProject(db: Executor, row: ProjectRow): Promise<void> {
  await db.insertInto('projects').values(row).execute();
}

const selectProject = compiledOnce('findProject', (db, id: string) =>
  db.selectFrom('projects').selectAll().where('id', '=', id),
);

/** The project with this id (read on every dashboard request that names one, so compiled once). */
export async function findProject(db: Executor, id: string): Promise<ProjectRow | undefined> {
  return (await selectProject(db, id))[0];
}

export function listProjects(db: Executor): Promise<ProjectRow[]> {
  return db.selectFrom('projects').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function updateProject(
  db: Executor,
  id: string,
  changes: Partial<Omit<ProjectRow, 'id' | 'created_at'>>,
): Promise<ProjectRow | undefined> {
  return db.updateTable('projects').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Deletes the project; its jobs, turns, messages, keys and sessions go with it (foreign keys cascade). */
export async function deleteProject(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('projects').where('id', '=', id).execute();
}

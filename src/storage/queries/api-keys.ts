import type { ApiKeyRow } from '../schema.ts';
import { compiledOnce } from './compiled-once.ts';
import type { Executor } from './executor.ts';

export async function insertApiKey(db: Executor, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

const selectKeyByHash = compiledOnce('findApiKeyByHash', (db, keyHash: string) =>
  db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash),
);

export async function findApiKeyByHash(db: Executor, keyHash: string): Promise<ApiKeyRow | undefined> {
  return (await selectKeyByHash(db, keyHash))[0];
}

export function findApiKey(db: Executor, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listApiKeys(db: Executor, projectId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function revokeApiKey(db: Executor, id: string, at: string): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function touchApiKey(db: Executor, id: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}

export async function countApiKeys(db: Executor, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

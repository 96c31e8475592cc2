import type { Dialect } from '../database.ts';
import type { UserRow, UserUpdate } from '../schema.ts';
import type { Executor } from './executor.ts';

export async function insertUser(db: Executor, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export function findUser(db: Executor, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** By email, which is stored lower-cased: pass it lower-cased. */
export function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export function listUsers(db: Executor): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function countUsers(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/**
 * The ids of the owners. In a transaction on PostgreSQL the rows are locked, so two requests
 * that would each remove one of the last two owners run one after the other and the second
 * sees one owner left (SQLite runs one writing transaction at a time anyway).
 */
export async function lockOwnerIds(db: Executor, dialect: Dialect): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('role', '=', 'owner')
    .$if(dialect === 'postgres', (qb) => qb.forUpdate())
    .execute();
  return rows.map((r) => r.id);
}

export function updateUser(db: Executor, id: string, changes: UserUpdate): Promise<UserRow | undefined> {
  return db.updateTable('users').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Deletes the account; its sign-in links go with it (foreign key), its sessions are ended first. */
export async function deleteUser(db: Executor, id: string): Promise<boolean> {
  const row = await db.deleteFrom('users').where('id', '=', id).returning('id').executeTakeFirst();
  return row !== undefined;
}

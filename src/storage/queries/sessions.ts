import type { SessionRow } from '../schema.ts';
import { compiledOnce } from './compiled-once.ts';
import type { Executor } from './executor.ts';

export async function insertSession(db: Executor, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export interface LiveUserSession {
  id: string;
  user_id: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  email: string;
  role: string;
  user_created_at: string;
}

const selectLiveUserSession = compiledOnce('findLiveUserSession', (db, tokenHash: string, now: string) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id',
      'users.id as user_id',
      'sessions.created_at',
      'sessions.last_seen_at',
      'sessions.expires_at',
      'users.email',
      'users.role',
      'users.created_at as user_created_at',
    ])
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', now),
);

/** An unrevoked, unexpired session by its token hash, with its account (read on every dashboard request). */
export async function findLiveUserSession(
  db: Executor,
  tokenHash: string,
  now: string,
): Promise<LiveUserSession | undefined> {
  return (await selectLiveUserSession(db, tokenHash, now))[0];
}

export async function touchSession(db: Executor, id: string, at: string): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
}

export async function revokeSessionByHash(db: Executor, tokenHash: string, at: string): Promise<boolean> {
  const row = await db
    .updateTable('sessions')
    .set({ revoked_at: at })
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Ends every live session of an account, but the one in `except` if given; returns how many. */
export async function revokeUserSessions(
  db: Executor,
  userId: string,
  at: string,
  except: string | null = null,
): Promise<number> {
  const rows = await db
    .updateTable('sessions')
    .set({ revoked_at: at })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .$if(except !== null, (qb) => qb.where('id', '!=', except as string))
    .returning('id')
    .execute();
  return rows.length;
}

/** Removes every session row of an account (when the account is deleted). */
export async function deleteUserSessions(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
}

/** Expired and revoked sessions are kept a while for the record, then removed. */
export async function deleteSessionsEndedBefore(db: Executor, before: string): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where((eb) =>
      eb.or([eb('expires_at', '<', before), eb('revoked_at', '<', before), eb('last_seen_at', '<', before)]),
    )
    .execute();
}

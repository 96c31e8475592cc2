import type { SessionRow } from '../schema.ts';
import type { Executor } from './executor.ts';

export async function insertSession(db: Executor, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

/** A live session by its token hash, with the scope of the key that opened it. */
export function findLiveSession(
  db: Executor,
  tokenHash: string,
  now: string,
): Promise<(SessionRow & { key_scope: string | null }) | undefined> {
  return (
    db
      .selectFrom('sessions')
      .leftJoin('api_keys', 'api_keys.id', 'sessions.api_key_id')
      .selectAll('sessions')
      .select('api_keys.scope as key_scope')
      .where('sessions.token_hash', '=', tokenHash)
      .where('sessions.revoked_at', 'is', null)
      .where('sessions.expires_at', '>', now)
      // A session opened with a key lives only as long as the key.
      .where((eb) => eb.or([eb('sessions.api_key_id', 'is', null), eb('api_keys.revoked_at', 'is', null)]))
      .executeTakeFirst()
  );
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

/** Expired and revoked sessions are kept a while for the record, then removed. */
export async function deleteSessionsEndedBefore(db: Executor, before: string): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expires_at', '<', before), eb('revoked_at', '<', before)]))
    .execute();
}

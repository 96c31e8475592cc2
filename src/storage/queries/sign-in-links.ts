import type { SignInLinkRow } from '../schema.ts';
import type { Executor } from './executor.ts';

export async function insertSignInLink(db: Executor, row: SignInLinkRow): Promise<void> {
  await db.insertInto('sign_in_links').values(row).execute();
}

/**
 * Marks the link used if it is unused and unexpired, in one statement, so two redeems of the
 * same link cannot both succeed; returns it then, else undefined.
 */
export function useSignInLink(
  db: Executor,
  tokenHash: string,
  now: string,
): Promise<SignInLinkRow | undefined> {
  return db
    .updateTable('sign_in_links')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** Used and expired links are kept a while for the record, then removed. */
export async function deleteSignInLinksEndedBefore(db: Executor, before: string): Promise<void> {
  await db
    .deleteFrom('sign_in_links')
    .where((eb) => eb.or([eb('expires_at', '<', before), eb('used_at', '<', before)]))
    .execute();
}

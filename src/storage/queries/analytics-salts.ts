import { compiledOnce } from './compiled-once.ts';
import type { Executor } from './executor.ts';

const selectSalt = compiledOnce('findAnalyticsSalt', (db, period: string) =>
  db.selectFrom('analytics_salts').select('salt').where('period', '=', period),
);

/** The stored salt of a period, if any. */
export async function findAnalyticsSalt(db: Executor, period: string): Promise<Buffer | undefined> {
  return (await selectSalt(db, period))[0]?.salt;
}

/**
 * Stores a period's salt unless one is already there (another process may have made it a
 * moment ago); returns whether this one was stored. Read the salt back with `findAnalyticsSalt`.
 */
export async function insertAnalyticsSaltIfAbsent(
  db: Executor,
  row: { period: string; salt: Buffer; createdAt: string },
): Promise<boolean> {
  const result = await db
    .insertInto('analytics_salts')
    .values({ period: row.period, salt: row.salt, created_at: row.createdAt })
    .onConflict((oc) => oc.column('period').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function listAnalyticsSaltPeriods(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('analytics_salts').select('period').orderBy('period').execute();
  return rows.map((row) => row.period);
}

export async function deleteAnalyticsSalts(db: Executor, periods: readonly string[]): Promise<void> {
  if (periods.length === 0) return;
  await db.deleteFrom('analytics_salts').where('period', 'in', periods).execute();
}

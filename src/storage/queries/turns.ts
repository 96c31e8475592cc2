import type { TurnRow, TurnsTable } from '../schema.ts';
import type { Executor } from './executor.ts';

export const OPEN_TURN_STATUSES = ['pending', 'running'];

export async function insertTurn(db: Executor, row: TurnRow): Promise<void> {
  await db.insertInto('turns').values(row).execute();
}

export async function nextTurnSeq(db: Executor, jobId: string): Promise<number> {
  const row = await db
    .selectFrom('turns')
    .select((eb) => eb.fn.max('seq').as('max'))
    .where('job_id', '=', jobId)
    .executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
}

/** The turn to run next: the oldest one not yet finished (a running one was abandoned). */
export function firstOpenTurn(db: Executor, jobId: string): Promise<TurnRow | undefined> {
  return db
    .selectFrom('turns')
    .selectAll()
    .where('job_id', '=', jobId)
    .where('status', 'in', OPEN_TURN_STATUSES)
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();
}

export async function countOpenTurns(db: Executor, jobId: string): Promise<number> {
  const row = await db
    .selectFrom('turns')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('job_id', '=', jobId)
    .where('status', 'in', OPEN_TURN_STATUSES)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export function findTurn(db: Executor, id: string): Promise<TurnRow | undefined> {
  return db.selectFrom('turns').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listTurns(db: Executor, jobId: string): Promise<TurnRow[]> {
  return db.selectFrom('turns').selectAll().where('job_id', '=', jobId).orderBy('seq').execute();
}

/** Moves a turn between states only from the expected one; returns the row or undefined. */
export function updateTurnIfStatus(
  db: Executor,
  id: string,
  fromStatuses: string[],
  changes: Partial<Omit<TurnsTable, 'id' | 'job_id' | 'seq'>>,
): Promise<TurnRow | undefined> {
  return db
    .updateTable('turns')
    .set(changes)
    .where('id', '=', id)
    .where('status', 'in', fromStatuses)
    .returningAll()
    .executeTakeFirst();
}

/** Cancels the job's pending and running turns; returns them as cancelled, in order. */
export async function cancelOpenTurns(db: Executor, jobId: string, at: string): Promise<TurnRow[]> {
  const rows = await db
    .updateTable('turns')
    .set({ status: 'cancelled', finished_at: at })
    .where('job_id', '=', jobId)
    .where('status', 'in', OPEN_TURN_STATUSES)
    .returningAll()
    .execute();
  return rows.sort((a, b) => a.seq - b.seq);
}

/** Per job: its first prompt and how many turns it has. */
export async function turnSummaries(
  db: Executor,
  jobIds: readonly string[],
): Promise<Map<string, { firstPrompt: string; turns: number }>> {
  const summaries = new Map<string, { firstPrompt: string; turns: number }>();
  if (jobIds.length === 0) return summaries;
  const rows = await db
    .selectFrom('turns')
    .select((eb) => [
      'job_id',
      eb.fn.countAll().as('turns'),
      eb.fn.max(eb.case().when('seq', '=', 1).then(eb.ref('prompt')).end()).as('first_prompt'),
    ])
    .where('job_id', 'in', jobIds)
    .groupBy('job_id')
    .execute();
  for (const row of rows) {
    summaries.set(row.job_id, { firstPrompt: row.first_prompt ?? '', turns: Number(row.turns) });
  }
  return summaries;
}

import type { MessageRow } from '../schema.ts';
import type { Executor } from './executor.ts';

export async function nextMessageSeq(db: Executor, jobId: string): Promise<number> {
  const row = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.max('seq').as('max'))
    .where('job_id', '=', jobId)
    .executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
}

export async function insertMessages(db: Executor, rows: MessageRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('messages').values(rows).execute();
}

export function listMessages(db: Executor, jobId: string): Promise<MessageRow[]> {
  return db.selectFrom('messages').selectAll().where('job_id', '=', jobId).orderBy('seq').execute();
}

import { sql } from 'kysely';
import type { NewJobEventRow } from '../schema.ts';
import type { Executor } from './executor.ts';

/** A stored event, its id a number on both engines. */
export interface JobEventRecord {
  id: number;
  jobId: string;
  type: string;
  /** JSON text, as stored. */
  data: string;
  createdAt: string;
}

/** The PostgreSQL channel that announces new events; the payload is the job id. */
export const JOB_EVENTS_CHANNEL = 'docwright_job_events';

/**
 * Appends events in the order given. Callers write the job's row first in the same
 * transaction: that row lock orders one job's event ids the way they commit on PostgreSQL
 * too, where ids are otherwise handed out before commit, so a reader that has seen id N of a
 * job never later finds a smaller one of that job.
 */
export async function insertJobEvents(db: Executor, rows: NewJobEventRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('job_events').values(rows).execute();
}

/** PostgreSQL only: tells every listening process, when the transaction commits, that the job has new events. */
export async function notifyJobEvents(db: Executor, jobId: string): Promise<void> {
  await sql`select pg_notify(${JOB_EVENTS_CHANNEL}, ${jobId})`.execute(db);
}

/** The job's events after `afterId`, oldest first, at most `limit`. */
export async function listJobEventsAfter(
  db: Executor,
  jobId: string,
  afterId: number,
  limit: number,
): Promise<JobEventRecord[]> {
  const rows = await db
    .selectFrom('job_events')
    .select(['id', 'job_id', 'type', 'data', 'created_at'])
    .where('job_id', '=', jobId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    jobId: r.job_id,
    type: r.type,
    data: r.data,
    createdAt: r.created_at,
  }));
}

/** The newest event id of each of these jobs that has any: one indexed lookup per job, in one query. */
export async function latestJobEventIds(
  db: Executor,
  jobIds: readonly string[],
): Promise<Map<string, number>> {
  const latest = new Map<string, number>();
  if (jobIds.length === 0) return latest;
  const rows = await db
    .selectFrom('job_events')
    .select((eb) => ['job_id', eb.fn.max('id').as('max')])
    .where('job_id', 'in', jobIds)
    .groupBy('job_id')
    .execute();
  for (const row of rows) latest.set(row.job_id, Number(row.max));
  return latest;
}

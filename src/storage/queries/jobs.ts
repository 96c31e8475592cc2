import { sql } from 'kysely';
import type { Dialect } from '../database.ts';
import type { JobRow, JobUpdate, NewJobRow } from '../schema.ts';
import { compiledOnce } from './compiled-once.ts';
import type { Executor } from './executor.ts';

export async function insertJob(db: Executor, row: NewJobRow): Promise<void> {
  await db.insertInto('jobs').values(row).execute();
}

const selectJob = compiledOnce('findJob', (db, projectId: string, id: string) =>
  db.selectFrom('jobs').selectAll().where('project_id', '=', projectId).where('id', '=', id),
);

/** The job with this id in this project (read on every poll, so compiled once). */
export async function findJob(db: Executor, projectId: string, id: string): Promise<JobRow | undefined> {
  return (await selectJob(db, projectId, id))[0];
}

export function findJobById(db: Executor, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The jobs of this project among `ids` (a page of a list), in no particular order. */
export async function findJobs(db: Executor, projectId: string, ids: readonly string[]): Promise<JobRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('jobs')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', 'in', [...ids])
    .execute();
}

export async function listJobIds(db: Executor, projectId: string): Promise<string[]> {
  const rows = await db.selectFrom('jobs').select('id').where('project_id', '=', projectId).execute();
  return rows.map((r) => r.id);
}

export interface JobPageQuery {
  projectId: string;
  status: string | undefined;
  /** Lower-cased text one of the job's prompts contains, whatever its case. */
  promptContains: string | undefined;
  limit: number;
  /** Position after which to continue (newest first): the last row of the previous page. */
  after: { createdAt: string; id: string } | undefined;
}

export function listJobs(db: Executor, q: JobPageQuery): Promise<JobRow[]> {
  return db
    .selectFrom('jobs')
    .selectAll()
    .where('project_id', '=', q.projectId)
    .$if(q.status !== undefined, (qb) => qb.where('status', '=', q.status as string))
    .$if(q.promptContains !== undefined, (qb) =>
      qb.where(({ exists, selectFrom }) =>
        exists(
          selectFrom('turns')
            .select('turns.id')
            .whereRef('turns.job_id', '=', 'jobs.id')
            .where(sql`lower(turns.prompt)`, 'like', likePattern(q.promptContains as string)),
        ),
      ),
    )
    .$if(q.after !== undefined, (qb) => {
      const after = q.after as { createdAt: string; id: string };
      return qb.where((eb) =>
        eb.or([
          eb('created_at', '<', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
        ]),
      );
    })
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit)
    .execute();
}

/** Updates a job only while it is in one of `fromStatuses`; returns the row or undefined. */
export function updateJobIfStatus(
  db: Executor,
  id: string,
  fromStatuses: string[],
  changes: JobUpdate,
): Promise<JobRow | undefined> {
  return db
    .updateTable('jobs')
    .set(changes)
    .where('id', '=', id)
    .where('status', 'in', fromStatuses)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Takes the lease on one active job whose lease is free or expired, in a single statement.
 * On PostgreSQL the candidate row is locked with SKIP LOCKED so concurrent workers never
 * pick the same job; SQLite serialises writers, which gives the same guarantee.
 */
export function claimJob(
  db: Executor,
  dialect: Dialect,
  claim: { owner: string; now: string; leaseUntil: string },
): Promise<JobRow | undefined> {
  const candidate = db
    .selectFrom('jobs')
    .select('jobs.id')
    .where('jobs.status', '=', 'active')
    .where((eb) =>
      eb.or([eb('jobs.lease_expires_at', 'is', null), eb('jobs.lease_expires_at', '<=', claim.now)]),
    )
    .orderBy('jobs.updated_at')
    .limit(1)
    .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked());
  return db
    .updateTable('jobs')
    .set({ lease_owner: claim.owner, lease_expires_at: claim.leaseUntil })
    .where('id', '=', candidate)
    .returningAll()
    .executeTakeFirst();
}

/** Extends the lease if this worker still holds it and the job is still active. */
export async function renewLease(
  db: Executor,
  lease: { jobId: string; owner: string; leaseUntil: string },
): Promise<boolean> {
  const row = await db
    .updateTable('jobs')
    .set({ lease_expires_at: lease.leaseUntil })
    .where('id', '=', lease.jobId)
    .where('lease_owner', '=', lease.owner)
    .where('status', '=', 'active')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Applies `changes` only if `owner` still holds the job's lease. */
export function updateLeasedJob(
  db: Executor,
  lease: { jobId: string; owner: string },
  changes: JobUpdate,
): Promise<JobRow | undefined> {
  return db
    .updateTable('jobs')
    .set(changes)
    .where('id', '=', lease.jobId)
    .where('lease_owner', '=', lease.owner)
    .returningAll()
    .executeTakeFirst();
}

/**
 * A LIKE pattern matching `text` anywhere, its own `%`, `_` and `\` taken literally. The
 * escape character is named on the query, as SQLite has none by default.
 */
function likePattern(text: string) {
  return sql<string>`${`%${text.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`} escape '\\'`;
}

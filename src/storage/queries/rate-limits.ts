import { sql } from 'kysely';
import type { Executor } from './executor.ts';

/** Counts one hit in a fixed window and returns the window's total so far. */
export async function hitRateLimitWindow(db: Executor, bucket: string, windowStart: string): Promise<number> {
  const row = await db
    .insertInto('rate_limit_windows')
    .values({ bucket, window_start: windowStart, hits: 1 })
    .onConflict((oc) =>
      oc
        .columns(['bucket', 'window_start'])
        .doUpdateSet((eb) => ({ hits: eb('rate_limit_windows.hits', '+', 1) })),
    )
    .returning('hits')
    .executeTakeFirstOrThrow();
  return Number(row.hits);
}

export async function deleteRateLimitWindowsBefore(
  db: Executor,
  bucket: string,
  before: string,
): Promise<void> {
  await db
    .deleteFrom('rate_limit_windows')
    .where('bucket', '=', bucket)
    .where('window_start', '<', before)
    .execute();
}

/** The windows of a project's buckets (`<kind>:<projectId>`). */
export async function deleteRateLimitWindowsOf(db: Executor, projectId: string): Promise<void> {
  const suffix = `:${projectId}`;
  // A suffix compared exactly: LIKE would read the ids' underscores as wildcards.
  await db
    .deleteFrom('rate_limit_windows')
    .where(sql<string>`substr(bucket, length(bucket) - ${suffix.length - 1})`, '=', suffix)
    .execute();
}

/** The hits counted so far in a window, without counting one. */
export async function readRateLimitWindow(
  db: Executor,
  bucket: string,
  windowStart: string,
): Promise<number> {
  const row = await db
    .selectFrom('rate_limit_windows')
    .select('hits')
    .where('bucket', '=', bucket)
    .where('window_start', '=', windowStart)
    .executeTakeFirst();
  return Number(row?.hits ?? 0);
}

/** Past windows of every bucket starting with `prefix`. */
export async function deleteRateLimitWindowsWithPrefixBefore(
  db: Executor,
  prefix: string,
  before: string,
): Promise<void> {
  await db
    .deleteFrom('rate_limit_windows')
    // A prefix compared exactly: LIKE would read underscores as wildcards.
    .where(sql<string>`substr(bucket, 1, ${prefix.length})`, '=', prefix)
    .where('window_start', '<', before)
    .execute();
}

import type pg from 'pg';
import type { TimeRange } from '../../../domain/analytics/store.ts';
import { DAY_MS } from './visits.ts';

type Queryable = Pick<pg.Pool, 'query'>;

/** A query's range clamped to the project's days, split into UTC days. */
export interface Span {
  /** [from, to) in epoch ms: never before the project's first day, never open. */
  from: number;
  to: number;
  /** The first day touched and the milliseconds of it before the range (0: whole). */
  firstDay: number;
  firstMs: number;
  /** The day `to` falls in and the milliseconds of it inside the range (0: none). */
  endDay: number;
  endMs: number;
}

/**
 * The range as the exports count it: a range starting before the project's first day starts
 * there (nothing is earlier) and an open end ends after its last day. Null when empty.
 */
export async function resolveSpan(db: Queryable, project: number, range: TimeRange): Promise<Span | null> {
  const bounds = await db.query<{ first: number | null; last: number | null }>(
    'select min(day) as first, max(day) as last from analytics_views where project = $1',
    [project],
  );
  const first = bounds.rows[0]?.first ?? null;
  const last = bounds.rows[0]?.last ?? null;
  if (first === null || last === null) return null;
  const from = Math.max(range.from ?? Number.NEGATIVE_INFINITY, first * DAY_MS);
  const to = range.to ?? (last + 1) * DAY_MS;
  if (from >= to) return null;
  const firstDay = Math.floor(from / DAY_MS);
  const endDay = Math.floor(to / DAY_MS);
  return { from, to, firstDay, firstMs: from - firstDay * DAY_MS, endDay, endMs: to - endDay * DAY_MS };
}

/**
 * SQL conditions selecting the raw views of [from, to) (table alias `v`), with the values to
 * bind from parameter `$start` on; written as day and ms bounds so the (project, day, ms) index
 * serves them.
 */
export function rawRange(from: number, to: number, start: number): { sql: string; values: number[] } {
  const d0 = Math.floor(from / DAY_MS);
  const m0 = from - d0 * DAY_MS;
  const last = to - 1;
  const d1 = Math.floor(last / DAY_MS);
  const m1 = last - d1 * DAY_MS;
  const p = (i: number) => `$${start + i}`;
  return {
    sql: `v.day >= ${p(0)} and v.day <= ${p(2)}
      and (v.day > ${p(0)} or v.ms >= ${p(1)}) and (v.day < ${p(2)} or v.ms <= ${p(3)})`,
    values: [d0, m0, d1, m1],
  };
}

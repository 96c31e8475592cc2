import type pg from 'pg';
import { lockVisits } from './schema.ts';
import { VISIT_COLUMNS } from './visit-tables.ts';
import { BITS, DAY_MS } from './visits.ts';

/**
 * The views' (page, visitor, day) and (visitor, day) rows: the class bits seen and, per bit, the
 * first and last time of day, grouped from `source` (alias r: path, visitor, day, ms, bits).
 */
const grouped = (
  source: string,
) => `select coalesce(r.path, 0) as path, r.visitor, r.day, bit_or(r.bits) as mask,
         ${BITS.map((i) => `min(r.ms) filter (where r.bits & ${1 << i} <> 0) as f${i}`).join(', ')},
         ${BITS.map((i) => `max(r.ms) filter (where r.bits & ${1 << i} <> 0) as t${i}`).join(', ')}
    from ${source}
   group by grouping sets ((r.path, r.visitor, r.day), (r.visitor, r.day))`;

/**
 * p<i> of a new row: the latest view of class i on an earlier day of the same pair. (`day + 0`:
 * the pair's few rows are found by the primary key, never by the day index, whatever the
 * statistics of a table that grows fast say.)
 */
const PREVIOUS = `select ${BITS.map((i) => `max(w.day::int8 * ${DAY_MS} + w.t${i}) as p${i}`).join(', ')}
    from analytics_visits w
   where w.project = $1 and w.path = x.path and w.visitor = x.visitor and w.day + 0 < x.day`;

/** The views being folded in, moved out of analytics_pending for this transaction. */
const FOLDING = 'analytics_folding r';

const INSERT = `insert into analytics_visits as v (project, path, visitor, day, ${VISIT_COLUMNS.join(', ')})
  select $1, x.path, x.visitor, x.day, x.mask, ${BITS.map((i) => `prev.p${i}`).join(', ')},
         ${BITS.map((i) => `x.f${i}`).join(', ')}, ${BITS.map((i) => `x.t${i}`).join(', ')}
    from (${grouped(FOLDING)}) x
    left join lateral (${PREVIOUS}) prev on true
   order by x.path, x.visitor, x.day
  on conflict (project, path, visitor, day) do update
     set mask = v.mask | excluded.mask,
         ${BITS.map((i) => `f${i} = least(v.f${i}, excluded.f${i}), t${i} = greatest(v.t${i}, excluded.t${i})`).join(', ')}
   where v.mask | excluded.mask <> v.mask
      ${BITS.map((i) => `or excluded.f${i} < v.f${i} or excluded.t${i} > v.t${i}`).join(' ')}`;

/**
 * Later rows of the same pair learn of a view on an earlier day (a late event, or views
 * spanning days): their p<i> becomes that view's time if it is later. $2: the first day with
 * later rows possible; views on or after it cannot have any.
 */
const RAISE_LATER = `update analytics_visits v
    set ${BITS.map((i) => `p${i} = greatest(v.p${i}, u.p${i})`).join(', ')}
   from (
     select w.path, w.visitor, w.day,
            ${BITS.map((i) => `max(x.day::int8 * ${DAY_MS} + x.t${i}) as p${i}`).join(', ')}
       from (${grouped(`${FOLDING} where r.day < $2`)}) x
       join analytics_visits w on w.project = $1 and w.path = x.path and w.visitor = x.visitor and w.day + 0 > x.day
      group by w.path, w.visitor, w.day
   ) u
  where v.project = $1 and v.path = u.path and v.visitor = u.visitor and v.day = u.day
    and (${BITS.map((i) => `u.p${i} > coalesce(v.p${i}, u.p${i} - 1)`).join(' or ')})`;

/**
 * Folds the project's pending views (committed appends not yet in the first-visit table) into
 * analytics_visits: new rows take their previous visits from the earlier rows, existing rows
 * widen their classes and times of day, and later rows of the same pair learn of an earlier
 * day. One transaction under the project's fold lock; appends go on meanwhile (what they commit
 * after the pending rows are taken waits for the next fold). With `wait` false, returns false
 * at once when another fold of the project holds the lock.
 */
export async function foldPending(pool: pg.Pool, project: number, wait: boolean): Promise<boolean> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    if (!(await lockVisits(client, project, wait))) {
      await client.query('commit');
      return false;
    }
    await client.query(
      `create temp table analytics_folding (day int4, ms int4, path int4, visitor bytea, bits int4) on commit drop`,
    );
    // This statement's snapshot, taken under the lock, holds every append committed before it.
    const moved = await client.query(
      `with moved as (delete from analytics_pending where project = $1 returning day, ms, path, visitor, bits)
       insert into analytics_folding select * from moved`,
      [project],
    );
    if ((moved.rowCount ?? 0) > 0) {
      // A large fold is planned better with statistics (hash aggregates, join order); a
      // query's small catch-up fold is not worth the sampling.
      if ((moved.rowCount ?? 0) > 10_000) await client.query('analyze analytics_folding');
      await client.query(INSERT, [project]);
      // Only views before the project's last day can have later rows; in-order traffic has
      // few (those of the day before a fold that spans midnight).
      const last = await client.query<{ day: number }>(
        'select max(day) as day from analytics_views where project = $1',
        [project],
      );
      await client.query(RAISE_LATER, [project, last.rows[0]?.day]);
    }
    await client.query('commit');
    return true;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

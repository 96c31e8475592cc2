import type pg from 'pg';
import { lockVisits } from './schema.ts';
import { VISIT_COLUMNS } from './visit-tables.ts';
import { BITS, DAY_MS, NEVER } from './visits.ts';

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
 * What a folded (page, visitor, day) row needs from the pair's rows already stored: per class
 * bit i, p<i> the time of the latest view of class i on an earlier day and n<i> the next day
 * with a row of class i; the bits already stored for that day (`stored`, 0: a new row); and
 * whether the pair has a stored row on a later day (`later`: only then can a fold raise one).
 * (The pair's few rows are found by the primary key: no condition on the day, whatever the
 * statistics of a table that grows fast say.)
 */
const STORED = `select ${BITS.map((i) => `max(w.day::int8 * ${DAY_MS} + w.t${i}) filter (where w.day < x.day) as p${i}`).join(', ')},
         ${BITS.map((i) => `min(w.day) filter (where w.day > x.day and w.mask & ${1 << i} <> 0) as n${i}`).join(', ')},
         coalesce(bit_or(w.mask) filter (where w.day = x.day), 0) as stored,
         coalesce(bool_or(w.day > x.day), false) as later
    from analytics_visits w
   where w.project = $1 and w.path = x.path and w.visitor = x.visitor`;

/** The views being folded in, moved out of analytics_pending for this transaction. */
const FOLDING = 'analytics_folding r';

/** The folded views grouped into rows, with what the stored rows say of each (STORED). */
const FOLD_ROWS_TABLE = `create temp table analytics_fold_rows (
    path int4, visitor bytea, day int4, mask int4,
    ${[...BITS.map((i) => `f${i} int4`), ...BITS.map((i) => `t${i} int4`), ...BITS.map((i) => `p${i} int8`), ...BITS.map((i) => `n${i} int4`)].join(', ')},
    stored int4, later bool
  ) on commit drop`;
/**
 * Each row's p<i> takes the fold's own earlier days of the pair too (a visitor seen on several
 * days of one fold), so that new rows are stored with their final p and only pairs with a
 * stored later row need raising (RAISE_LATER).
 */
const FOLD_ROWS = `insert into analytics_fold_rows
  select x.path, x.visitor, x.day, x.mask, ${BITS.map((i) => `x.f${i}`).join(', ')}, ${BITS.map((i) => `x.t${i}`).join(', ')},
         ${BITS.map((i) => `greatest(s.p${i}, max(x.day::int8 * ${DAY_MS} + x.t${i}) over earlier)`).join(', ')},
         ${BITS.map((i) => `s.n${i}`).join(', ')}, s.stored, s.later
    from (${grouped(FOLDING)}) x
    cross join lateral (${STORED}) s
  window earlier as (partition by x.path, x.visitor order by x.day rows between unbounded preceding and 1 preceding)`;

const INSERT = `insert into analytics_visits as v (project, path, visitor, day, ${VISIT_COLUMNS.join(', ')})
  select $1, x.path, x.visitor, x.day, x.mask, ${BITS.map((i) => `x.p${i}`).join(', ')},
         ${BITS.map((i) => `x.f${i}`).join(', ')}, ${BITS.map((i) => `x.t${i}`).join(', ')}
    from analytics_fold_rows x
   order by x.path, x.visitor, x.day
  on conflict (project, path, visitor, day) do update
     set mask = v.mask | excluded.mask,
         ${BITS.map((i) => `f${i} = least(v.f${i}, excluded.f${i}), t${i} = greatest(v.t${i}, excluded.t${i})`).join(', ')}
   where v.mask | excluded.mask <> v.mask
      ${BITS.map((i) => `or excluded.f${i} < v.f${i} or excluded.t${i} > v.t${i}`).join(' ')}`;

/**
 * Stored later rows of the same pair learn of a view on an earlier day (a late event, or a
 * parallel import): their p<i> becomes that view's time if it is later. Only fold rows whose
 * pair had a stored later row are looked at (`later`): rows this fold inserts took the fold's
 * earlier days in FOLD_ROWS, so in-order traffic raises nothing.
 */
const RAISE_LATER = `update analytics_visits v
    set ${BITS.map((i) => `p${i} = greatest(v.p${i}, u.p${i})`).join(', ')}
   from (
     select w.path, w.visitor, w.day,
            ${BITS.map((i) => `max(x.day::int8 * ${DAY_MS} + x.t${i}) as p${i}`).join(', ')}
       from analytics_fold_rows x
       join analytics_visits w on w.project = $1 and w.path = x.path and w.visitor = x.visitor and w.day + 0 > x.day
      where x.later
      group by w.path, w.visitor, w.day
   ) u
  where v.project = $1 and v.path = u.path and v.visitor = u.visitor and v.day = u.day
    and (${BITS.map((i) => `u.p${i} > coalesce(v.p${i}, u.p${i} - 1)`).join(' or ')})`;

/** The day of the latest earlier view of class i, from a fold row's p<i> (NEVER: none). */
const previousDay = (i: number) => `coalesce(floor(x.p${i}::float8 / ${DAY_MS})::int4, ${NEVER})`;

/**
 * analytics_visit_next learns of the classes the fold adds to a day (`gained`: all of a new
 * row's, and those an existing row had not): each earlier row of the pair from the latest one
 * with that class on (the rows before it lead to that one or nearer) gets this day as its next
 * of the class, if nearer than the one it has; and a new row takes its next days from the
 * pair's later stored rows (STORED). Later rows of the same fold are stored by then, so the
 * nearest of each wins. A next day only ever moves earlier: rows are removed by rebuilds only.
 * A row whose p are all NULL has no earlier row (stored or in the fold) to link.
 */
const GAINED = 'x.mask & ~x.stored';
const T = BITS.map((i) => `t${i}`);
const LINK_NEXT = `insert into analytics_visit_next as n (project, day, path, visitor, ${BITS.map((i) => `n${i}`).join(', ')}, ${T.join(', ')})
  select $1, e.day, e.path, e.visitor, ${BITS.map((i) => `min(e.n${i})`).join(', ')}, ${T.map((t) => `max(e.${t})`).join(', ')}
    from (
      select w.day, x.path, x.visitor,
             ${BITS.map((i) => `case when ${GAINED} & ${1 << i} <> 0 and w.day >= ${previousDay(i)} then x.day end`).join(', ')},
             ${T.map((t) => `w.${t}`).join(', ')}
        from analytics_fold_rows x
        join analytics_visits w on w.project = $1 and w.path = x.path and w.visitor = x.visitor and w.day + 0 < x.day
       where ${GAINED} <> 0 and coalesce(${BITS.map((i) => `x.p${i}`).join(', ')}) is not null
         and w.day >= least(${BITS.map((i) => `case when ${GAINED} & ${1 << i} <> 0 then ${previousDay(i)} end`).join(', ')})
      union all
      select x.day, x.path, x.visitor, ${BITS.map((i) => `x.n${i}`).join(', ')}, ${T.map((t) => `x.${t}`).join(', ')}
        from analytics_fold_rows x
       where x.stored = 0 and (${BITS.map((i) => `x.n${i} is not null`).join(' or ')})
    ) e (day, path, visitor, ${BITS.map((i) => `n${i}`).join(', ')}, ${T.join(', ')})
   group by e.day, e.path, e.visitor
  having ${BITS.map((i) => `min(e.n${i}) is not null`).join(' or ')}
   order by e.day, e.path, e.visitor
  on conflict (project, day, path, visitor) do update
     set ${BITS.map((i) => `n${i} = least(n.n${i}, excluded.n${i})`).join(', ')}
   where ${BITS.map((i) => `excluded.n${i} < coalesce(n.n${i}, 2147483647)`).join(' or ')}`;

/**
 * A next-day row keeps its first-visit row's last time of day per class (the clipped first
 * day's roll-up takes away, by them, the pairs that come back: edge-tables.ts). Rows the fold
 * widened (`stored`: the row was there) may have one; new rows take theirs in LINK_NEXT.
 */
const SYNC_NEXT_TIMES = `update analytics_visit_next n
    set ${T.map((t) => `${t} = greatest(n.${t}, x.${t})`).join(', ')}
   from analytics_fold_rows x
  where x.stored <> 0 and n.project = $1 and n.day = x.day and n.path = x.path and n.visitor = x.visitor
    and (${T.map((t) => `x.${t} > coalesce(n.${t}, -1)`).join(' or ')})`;

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
      const large = (moved.rowCount ?? 0) > 10_000;
      if (large) await client.query('analyze analytics_folding');
      await client.query(FOLD_ROWS_TABLE);
      await client.query(FOLD_ROWS, [project]);
      if (large) await client.query('analyze analytics_fold_rows');
      await client.query(INSERT, [project]);
      await client.query(RAISE_LATER, [project]);
      await client.query(SYNC_NEXT_TIMES, [project]);
      await client.query(LINK_NEXT, [project]);
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

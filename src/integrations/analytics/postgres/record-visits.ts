import type pg from 'pg';
import { VISIT_COLUMNS } from './visit-tables.ts';
import { BITS, classBits, DAY_MS } from './visits.ts';

/** A stored view as the first-visit table needs it. */
export interface VisitedView {
  day: number;
  ms: number;
  path: number;
  visitor: Buffer;
  category: number;
  purpose: number;
  verified: boolean;
}

/**
 * The batch's views grouped in SQL into (page, visitor, day) and (visitor, day) rows: the class
 * bits seen and, per bit, the first and last time of day. `$2..$6` are the views' arrays.
 */
const GROUPED = `select coalesce(r.path, 0) as path, r.visitor, r.day, bit_or(r.bits) as mask,
         ${BITS.map((i) => `min(r.ms) filter (where r.bits & ${1 << i} <> 0) as f${i}`).join(', ')},
         ${BITS.map((i) => `max(r.ms) filter (where r.bits & ${1 << i} <> 0) as t${i}`).join(', ')}
    from unnest($2::int4[], $3::bytea[], $4::int4[], $5::int4[], $6::int4[]) as r(path, visitor, day, ms, bits)
   group by grouping sets ((r.path, r.visitor, r.day), (r.visitor, r.day))`;

/** p<i> of a new row: the latest view of class i on an earlier day of the same pair. */
const PREVIOUS = `select ${BITS.map((i) => `max(w.day::int8 * ${DAY_MS} + w.t${i}) as p${i}`).join(', ')}
    from analytics_visits w
   where w.project = $1 and w.path = x.path and w.visitor = x.visitor and w.day < x.day`;

const INSERT = `insert into analytics_visits as v (project, path, visitor, day, ${VISIT_COLUMNS.join(', ')})
  select $1, x.path, x.visitor, x.day, x.mask, ${BITS.map((i) => `prev.p${i}`).join(', ')},
         ${BITS.map((i) => `x.f${i}`).join(', ')}, ${BITS.map((i) => `x.t${i}`).join(', ')}
    from (${GROUPED}) x
    left join lateral (${PREVIOUS}) prev on true
   order by x.path, x.visitor, x.day
  on conflict (project, path, visitor, day) do update
     set mask = v.mask | excluded.mask,
         ${BITS.map((i) => `f${i} = least(v.f${i}, excluded.f${i}), t${i} = greatest(v.t${i}, excluded.t${i})`).join(', ')}
   where v.mask | excluded.mask <> v.mask
      ${BITS.map((i) => `or excluded.f${i} < v.f${i} or excluded.t${i} > v.t${i}`).join(' ')}`;

/**
 * Later rows of the same pair learn of a view on an earlier day (a late event, or a batch
 * spanning days): their p<i> becomes that view's time if it is later.
 */
const RAISE_LATER = `update analytics_visits v
    set ${BITS.map((i) => `p${i} = greatest(v.p${i}, u.p${i})`).join(', ')}
   from (
     select w.path, w.visitor, w.day,
            ${BITS.map((i) => `max(x.day::int8 * ${DAY_MS} + x.t${i}) as p${i}`).join(', ')}
       from (${GROUPED}) x
       join analytics_visits w on w.project = $1 and w.path = x.path and w.visitor = x.visitor and w.day > x.day
      group by w.path, w.visitor, w.day
   ) u
  where v.project = $1 and v.path = u.path and v.visitor = u.visitor and v.day = u.day
    and (${BITS.map((i) => `u.p${i} > coalesce(v.p${i}, u.p${i} - 1)`).join(' or ')})`;

/**
 * Adds the views' (page, visitor, day) and (visitor, day) rows to the first-visit table: new
 * rows take their previous visits from the earlier rows, existing rows widen their classes
 * and times of day, and later rows of the same pair learn of an earlier day.
 */
export async function recordVisits(
  client: Pick<pg.PoolClient, 'query'>,
  project: number,
  views: readonly VisitedView[],
): Promise<void> {
  const counted = views.flatMap((v) => {
    const bits = classBits(v.category, v.purpose, v.verified);
    return bits === 0 ? [] : [{ ...v, bits }];
  });
  if (counted.length === 0) return;
  const params = (list: typeof counted) => [
    project,
    list.map((v) => v.path),
    list.map((v) => v.visitor),
    list.map((v) => v.day),
    list.map((v) => v.ms),
    list.map((v) => v.bits),
  ];
  await client.query(INSERT, params(counted));
  // Only views before the project's last day (late ones, or a batch spanning days) can have
  // later rows; in-order traffic skips this statement.
  const last = await client.query<{ day: number | null }>(
    'select max(day) as day from analytics_views where project = $1',
    [project],
  );
  const lastDay = last.rows[0]?.day ?? Number.NEGATIVE_INFINITY;
  const early = counted.filter((v) => v.day < lastDay);
  if (early.length > 0) await client.query(RAISE_LATER, params(early));
}

import type pg from 'pg';
import { COUNTED_CLASSES, NEVER } from './visits.ts';

/**
 * Adds the views' (page, visitor, day) and (visitor, day) classes to the first-visit table:
 * new rows take their previous visits from the earlier rows, and later rows of the same
 * page and visitor learn of the new day (a late event) in a second statement.
 */
export async function recordVisits(
  client: Pick<pg.PoolClient, 'query'>,
  project: number,
  rows: ReadonlyArray<{ day: number; path: number; visitor: Buffer; category: number }>,
): Promise<void> {
  const pairs = new Map<string, { path: number; visitor: Buffer; day: number; mask: number }>();
  for (const row of rows) {
    if (row.category >= COUNTED_CLASSES) continue;
    const bit = 1 << row.category;
    const hex = row.visitor.toString('hex');
    for (const path of [row.path, 0]) {
      const id = `${path}|${hex}|${row.day}`;
      const pair = pairs.get(id);
      if (pair) pair.mask |= bit;
      else pairs.set(id, { path, visitor: row.visitor, day: row.day, mask: bit });
    }
  }
  if (pairs.size === 0) return;
  const list = [...pairs.values()];
  const params = [
    project,
    list.map((p) => p.path),
    list.map((p) => p.visitor),
    list.map((p) => p.day),
    list.map((p) => p.mask),
  ];
  await client.query(
    `insert into analytics_visits as v (project, path, visitor, day, mask, last_h, last_a, last_c)
     select $1, x.path, x.visitor, x.day, x.mask,
            coalesce(p.h, ${NEVER}), coalesce(p.a, ${NEVER}), coalesce(p.c, ${NEVER})
       from unnest($2::int4[], $3::bytea[], $4::int4[], $5::int2[]) as x(path, visitor, day, mask)
       left join lateral (
         select max(w.day) filter (where w.mask & 1 <> 0) as h,
                max(w.day) filter (where w.mask & 2 <> 0) as a,
                max(w.day) filter (where w.mask & 4 <> 0) as c
           from analytics_visits w
          where w.project = $1 and w.path = x.path and w.visitor = x.visitor and w.day < x.day
       ) p on true
     order by x.path, x.visitor, x.day
     on conflict (project, path, visitor, day) do update set mask = v.mask | excluded.mask
       where v.mask | excluded.mask <> v.mask`,
    params,
  );
  // Later rows of the same (page, visitor): a class seen on day d is their latest earlier
  // visit of that class if theirs is before d. Several new days may precede one row: max.
  // Only views before the project's last day (late ones, or a batch spanning days) can have
  // later rows; in-order traffic skips this statement.
  const last = await client.query<{ day: number | null }>(
    'select max(day) as day from analytics_views where project = $1',
    [project],
  );
  const lastDay = last.rows[0]?.day ?? Number.NEGATIVE_INFINITY;
  const early = list.filter((p) => p.day < lastDay);
  if (early.length === 0) return;
  await client.query(
    `update analytics_visits v
        set last_h = greatest(v.last_h, u.h), last_a = greatest(v.last_a, u.a), last_c = greatest(v.last_c, u.c)
       from (
         select w.path, w.visitor, w.day,
                max(x.day) filter (where x.mask & 1 <> 0) as h,
                max(x.day) filter (where x.mask & 2 <> 0) as a,
                max(x.day) filter (where x.mask & 4 <> 0) as c
           from unnest($2::int4[], $3::bytea[], $4::int4[], $5::int2[]) as x(path, visitor, day, mask)
           join analytics_visits w
             on w.project = $1 and w.path = x.path and w.visitor = x.visitor and w.day > x.day
          group by w.path, w.visitor, w.day
       ) u
      where v.project = $1 and v.path = u.path and v.visitor = u.visitor and v.day = u.day
        and (u.h > v.last_h or u.a > v.last_a or u.c > v.last_c)`,
    [
      project,
      early.map((p) => p.path),
      early.map((p) => p.visitor),
      early.map((p) => p.day),
      early.map((p) => p.mask),
    ],
  );
}

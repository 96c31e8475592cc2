import { BITS, classBitsSql, DAY_MS, NEVER } from './visits.ts';

/**
 * The first-visit table and its rolled-up counts (schema version 3), as SQL: created by the
 * migration, rebuilt from the views by the migration and by reclassification.
 *
 * analytics_visits: one row per (page, visitor, UTC day) with a counted view, and one per
 * (visitor, day) under path 0 for the totals. `mask` holds the class bits seen that day (see
 * visits.ts). Per class bit i: `f<i>`/`t<i>` the first and last millisecond of the day with a
 * view of that class (so clipped edge days need no raw views), and `p<i>` the time (epoch ms)
 * of the latest view of that class on an earlier day (NULL: never). NULLs take no space, and a
 * row has one or two bits, so the row stays narrow.
 *
 * A row counts for a side S (a union of bits) in a range starting at `from` iff it has a bit of
 * S and the greatest p of S is before `from`: it is then the first visit in the range.
 */
const P = BITS.map((i) => `p${i}`);
const F = BITS.map((i) => `f${i}`);
const T = BITS.map((i) => `t${i}`);
const L = BITS.map((i) => `l${i}`);
const N = BITS.map((i) => `n${i}`);

export const VISIT_COLUMNS = ['mask', ...P, ...F, ...T] as const;

/** The counts table's key from a visits row `alias`: the day of each p (NEVER when NULL). */
function countKey(alias: string): string {
  return [
    `${alias}.project`,
    `${alias}.day`,
    `${alias}.path`,
    `${alias}.mask`,
    ...P.map((p) => `coalesce(floor(${alias}.${p}::float8 / ${DAY_MS})::int4, ${NEVER})`),
  ].join(', ');
}
const KEY = ['project', 'day', 'path', 'mask', ...L].join(', ');

/** A trigger function adding (sign 1) or removing (-1) transition rows to the counts. */
function countsFunction(name: string, body: string): string {
  return `create function ${name}() returns trigger language plpgsql as $f$
    begin
      if current_setting('analytics.counts', true) = 'off' then return null; end if;
      insert into analytics_visit_counts as c (${KEY}, n)
        ${body}
      on conflict (${KEY}) do update set n = c.n + excluded.n;
      return null;
    end $f$;`;
}
/** The counts' keys of the rows of `from`, as a subquery with the key's column names. */
const keys = (from: string, where = '') => `(select ${countKey('x')} from ${from} x ${where}) s (${KEY})`;
const grouped = (from: string, sign: string) =>
  `select ${KEY}, ${sign}count(*) from ${keys(from)} group by ${KEY} order by ${KEY}`;

export const CREATE_VISIT_TABLES_SQL = `
  create table analytics_visits (
    project int4 not null,
    path int4 not null,
    visitor bytea not null,
    day int4 not null,
    mask int4 not null,
    ${P.map((c) => `${c} int8`).join(', ')},
    ${[...F, ...T].map((c) => `${c} int4`).join(', ')},
    primary key (project, path, visitor, day)
  ) with (fillfactor = 90);
  -- The rows of one day (the clipped edges). A btree, not BRIN: rows of several days arrive
  -- together (parallel imports, late events), and folds insert a day's rows side by side.
  create index analytics_visits_day on analytics_visits (project, day);
  -- analytics_visits rolled up: how many rows have each (day, page, mask, day of each p).
  -- Whole days are counted from here, a few rows per (page, day) rather than one per visitor.
  -- Kept by statement triggers over the transition tables (set-based, in the same transaction);
  -- a session that rebuilds the counts itself sets analytics.counts = 'off'.
  create table analytics_visit_counts (
    project int4 not null,
    day int4 not null,
    path int4 not null,
    mask int4 not null,
    ${L.map((c) => `${c} int4 not null`).join(', ')},
    n int4 not null,
    primary key (${KEY})
  );
  ${countsFunction('analytics_visits_added', grouped('added', ''))}
  ${countsFunction('analytics_visits_removed', grouped('removed', '-'))}
  ${countsFunction(
    'analytics_visits_changed',
    // An update that leaves the key as it was (a later time of day) changes no count.
    `select ${KEY}, sum(d)::int4 from (
       select ${countKey('x')}, 1 as d from added x
       union all select ${countKey('x')}, -1 as d from removed x
     ) s (${KEY}, d) group by ${KEY} having sum(d) <> 0 order by ${KEY}`,
  )}
  create trigger analytics_visits_inserted after insert on analytics_visits
    referencing new table as added for each statement execute function analytics_visits_added();
  create trigger analytics_visits_updated after update on analytics_visits
    referencing old table as removed new table as added for each statement execute function analytics_visits_changed();
  create trigger analytics_visits_deleted after delete on analytics_visits
    referencing old table as removed for each statement execute function analytics_visits_removed();
`;

/**
 * Rebuilds first-visit rows from the views (of project $1, or all with `allProjects`), with the
 * counts off: the caller fills the counts with COUNTS_FROM_VISITS_SQL.
 */
export function rebuildVisitsSql(allProjects: boolean): string {
  const bit = (i: number) => `b.bits & ${1 << i} <> 0`;
  return `
    insert into analytics_visits (project, path, visitor, day, ${VISIT_COLUMNS.join(', ')})
    select s.project, s.path, s.visitor, s.day, s.mask,
           ${BITS.map((i) => `max(s.day::int8 * ${DAY_MS} + s.t${i}) over w`).join(', ')},
           ${[...F, ...T].map((c) => `s.${c}`).join(', ')}
      from (
        select b.project, coalesce(b.path, 0) as path, b.visitor, b.day, bit_or(b.bits) as mask,
               ${BITS.map((i) => `min(b.ms) filter (where ${bit(i)}) as f${i}`).join(', ')},
               ${BITS.map((i) => `max(b.ms) filter (where ${bit(i)}) as t${i}`).join(', ')}
          from (select v.project, v.path, v.visitor, v.day, v.ms, ${classBitsSql('v')} as bits
                  from analytics_views v ${allProjects ? '' : 'where v.project = $1'}) b
         where b.bits <> 0
         group by grouping sets ((b.project, b.path, b.visitor, b.day), (b.project, b.visitor, b.day))
      ) s
    window w as (partition by s.project, s.path, s.visitor order by s.day
                 rows between unbounded preceding and 1 preceding)`;
}

/** Fills the counts from the first-visit rows (of project $1, or all with `allProjects`). */
export function countsFromVisitsSql(allProjects: boolean): string {
  return `insert into analytics_visit_counts (${KEY}, n)
    select ${KEY}, count(*) from ${keys('analytics_visits', allProjects ? '' : 'where x.project = $1')}
     group by ${KEY}`;
}

/**
 * analytics_visit_next (schema version 4): for each first-visit row, per class bit i, `n<i>` the
 * day of the pair's next row with that class (NULL: none yet); a row is kept only while one is
 * set. A clipped first day L counts a row of a side S iff the side's last view of the day is in
 * the range and the pair has no S row on the whole days after it (the least n of S is at or
 * after the range's end): those it has were counted by the whole days already. So L is one read
 * of its own rows, with no look-up of later rows. Narrow and apart from analytics_visits, so
 * keeping it (record-visits.ts) neither rewrites the wide rows nor wakes the counts triggers.
 */
export const CREATE_NEXT_TABLE_SQL = `
  create table analytics_visit_next (
    project int4 not null,
    day int4 not null,
    path int4 not null,
    visitor bytea not null,
    ${N.map((c) => `${c} int4`).join(', ')},
    primary key (project, day, path, visitor)
  );
`;

/** Fills analytics_visit_next from the first-visit rows (of project $1, or all with `allProjects`). */
export function nextFromVisitsSql(allProjects: boolean): string {
  return `insert into analytics_visit_next (project, day, path, visitor, ${N.join(', ')})
    select s.project, s.day, s.path, s.visitor, ${N.map((c) => `s.${c}`).join(', ')}
      from (select v.project, v.day, v.path, v.visitor,
                   ${BITS.map((i) => `min(v.day) filter (where v.mask & ${1 << i} <> 0) over later as n${i}`).join(', ')}
              from analytics_visits v ${allProjects ? '' : 'where v.project = $1'}
            window later as (partition by v.project, v.path, v.visitor order by v.day
                             rows between 1 following and unbounded following)) s
     where ${N.map((c) => `s.${c} is not null`).join(' or ')}
     order by s.project, s.day, s.path, s.visitor`;
}

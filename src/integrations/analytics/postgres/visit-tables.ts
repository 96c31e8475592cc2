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

/**
 * A table rolled up from analytics_visits: how many rows (or contributions of rows) have each
 * key. Kept by the visits table's statement triggers over the transition tables, in the same
 * transaction as the change; a session that rebuilds the roll-ups itself sets
 * analytics.counts = 'off' and fills them with rollupFromVisitsSql.
 */
export interface Rollup {
  table: string;
  /** Its primary key (the columns before n). */
  key: readonly string[];
  /** A select of one key (in `key` order) per contribution of each row of `source` (alias x). */
  keysOf(source: string, where?: string): string;
}

/** analytics_visit_counts: per (day, page, mask, day of each p), the number of rows. */
export const COUNTS_ROLLUP: Rollup = {
  table: 'analytics_visit_counts',
  key: ['project', 'day', 'path', 'mask', ...L],
  keysOf: (source, where = '') => `select ${countKey('x')} from ${source} x ${where}`,
};

const upsert = (r: Rollup, select: string) => {
  const key = r.key.join(', ');
  return `insert into ${r.table} as c (${key}, n)
        ${select}
      on conflict (${key}) do update set n = c.n + excluded.n;`;
};
/** Adds (sign '') or removes ('-') the keys of the rows of `source`. */
const grouped = (r: Rollup, source: string, sign: string) => {
  const key = r.key.join(', ');
  return upsert(
    r,
    `select ${key}, ${sign}count(*) from (${r.keysOf(source)}) s (${key}) group by ${key} order by ${key}`,
  );
};
/** An update that leaves a row's key as it was (a later time of day, say) changes no count. */
const changed = (r: Rollup) => {
  const key = r.key.join(', ');
  return upsert(
    r,
    `select ${key}, sum(d)::int4 from (
       select s.*, 1 as d from (${r.keysOf('added')}) s
       union all select s.*, -1 as d from (${r.keysOf('removed')}) s
     ) s (${key}, d) group by ${key} having sum(d) <> 0 order by ${key}`,
  );
};
/** A trigger function running one statement per roll-up. */
const triggerFunction = (
  name: string,
  body: string,
) => `create or replace function ${name}() returns trigger language plpgsql as $f$
    begin
      if current_setting('analytics.counts', true) = 'off' then return null; end if;
      ${body}
      return null;
    end $f$;`;

/** The visits table's three trigger functions, keeping `rollups`. */
export function rollupTriggerFunctionsSql(rollups: readonly Rollup[]): string {
  return [
    triggerFunction('analytics_visits_added', rollups.map((r) => grouped(r, 'added', '')).join('\n')),
    triggerFunction('analytics_visits_removed', rollups.map((r) => grouped(r, 'removed', '-')).join('\n')),
    triggerFunction('analytics_visits_changed', rollups.map(changed).join('\n')),
  ].join('\n');
}

/**
 * Fills a roll-up from the first-visit rows (of project $1, or all with `allProjects`), in key
 * order, so that a day's rows sit together (as folds, which write a day's rows while it lasts,
 * leave them).
 */
export function rollupFromVisitsSql(r: Rollup, allProjects: boolean): string {
  const key = r.key.join(', ');
  return `insert into ${r.table} (${key}, n)
    select ${key}, count(*) from (${r.keysOf('analytics_visits', allProjects ? '' : 'where x.project = $1')}) s (${key})
     group by ${key} order by ${key}`;
}

const KEY = COUNTS_ROLLUP.key.join(', ');

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
  ${rollupTriggerFunctionsSql([COUNTS_ROLLUP])}
  create trigger analytics_visits_inserted after insert on analytics_visits
    referencing new table as added for each statement execute function analytics_visits_added();
  create trigger analytics_visits_updated after update on analytics_visits
    referencing old table as removed new table as added for each statement execute function analytics_visits_changed();
  create trigger analytics_visits_deleted after delete on analytics_visits
    referencing old table as removed for each statement execute function analytics_visits_removed();
`;

/**
 * Rebuilds first-visit rows from the views (of project $1, or all with `allProjects`), with the
 * roll-ups off: the caller fills them with rollupFromVisitsSql.
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

/**
 * Fills analytics_visit_next from the first-visit rows (of project $1, or all with
 * `allProjects`); with `times` (schema version 5 on), also each row's last time of day per
 * class (see edge-tables.ts).
 */
export function nextFromVisitsSql(allProjects: boolean, times = true): string {
  const t = times ? T : [];
  return `insert into analytics_visit_next (project, day, path, visitor, ${[...N, ...t].join(', ')})
    select s.project, s.day, s.path, s.visitor, ${[...N, ...t].map((c) => `s.${c}`).join(', ')}
      from (select v.project, v.day, v.path, v.visitor,
                   ${[...BITS.map((i) => `min(v.day) filter (where v.mask & ${1 << i} <> 0) over later as n${i}`), ...t.map((c) => `v.${c}`)].join(', ')}
              from analytics_visits v ${allProjects ? '' : 'where v.project = $1'}
            window later as (partition by v.project, v.path, v.visitor order by v.day
                             rows between 1 following and unbounded following)) s
     where ${N.map((c) => `s.${c} is not null`).join(' or ')}
     order by s.project, s.day, s.path, s.visitor`;
}

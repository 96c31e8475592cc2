import type pg from 'pg';
import type { Counts, PageQuery, PageRow } from '../../../domain/analytics/store.ts';
import type { Dictionary } from './dictionaries.ts';
import { rawRange, type Span } from './range.ts';

type Queryable = Pick<pg.Pool, 'query'>;

/** Which classes (mask bits: 1 human, 2 ai, 4 ai_crawler) each side of the export counts. */
export function sides(countAiCrawlersAsAi: boolean): { human: number; ai: number; total: number } {
  const ai = countAiCrawlersAsAi ? 6 : 2;
  return { human: 1, ai, total: 1 | ai };
}

/** The latest earlier visit of any class in `mask`, as SQL over analytics_visits `alias`. */
function previous(alias: string, mask: number): string {
  const columns = [
    mask & 1 ? `${alias}.last_h` : null,
    mask & 2 ? `${alias}.last_a` : null,
    mask & 4 ? `${alias}.last_c` : null,
  ].filter((c) => c !== null);
  return columns.length === 1 ? (columns[0] as string) : `greatest(${columns.join(', ')})`;
}

interface Counted {
  path: number;
  h: number;
  a: number;
  t: number;
}

/** Every page's counts (path 0: the totals), exact; rows with nothing counted are left out. */
export async function countPages(
  db: Queryable,
  paths: Dictionary,
  project: number,
  span: Span,
  query: Pick<PageQuery, 'measure' | 'countAiCrawlersAsAi'>,
): Promise<{ totals: Counts; rows: PageRow[] }> {
  const counted =
    query.measure === 'views'
      ? await countViews(db, project, span, query.countAiCrawlersAsAi)
      : await countVisitors(db, project, span, query.countAiCrawlersAsAi);
  let totals: Counts = { human: 0, ai: 0, total: 0 };
  const pageRows = counted.filter((c) => {
    if (c.path === 0) totals = { human: c.h, ai: c.a, total: c.t };
    return c.path !== 0 && c.t > 0;
  });
  const names = await paths.namesOf(
    db,
    pageRows.map((c) => c.path),
  );
  const rows = pageRows.map((c) => ({ path: names.get(c.path) as string, human: c.h, ai: c.a, total: c.t }));
  // Code-unit order, as the other backends (not the database's collation).
  rows.sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { totals, rows };
}

async function countViews(db: Queryable, project: number, span: Span, crawlers: boolean): Promise<Counted[]> {
  const range = rawRange(span.from, span.to, 2);
  const ai = crawlers ? 'v.category in (1, 2)' : 'v.category = 1';
  const result = await db.query<Counted>(
    `select coalesce(v.path, 0) as path,
            count(*) filter (where v.category = 0)::int4 as h,
            count(*) filter (where ${ai})::int4 as a,
            count(*) filter (where v.category = 0 or ${ai})::int4 as t
       from analytics_views v
      where v.project = $1 and ${range.sql}
      group by rollup (v.path)`,
    [project, ...range.values],
  );
  return result.rows;
}

/**
 * Distinct visitors per page. Whole days come from the first-visit table (rolled up in
 * analytics_visit_counts): a (page, visitor, day) row counts iff its earlier visit of the
 * side's classes is before the range. A clipped
 * first day (L) and last day (R) are read from the raw views and joined in without double
 * counting: W rows whose previous visit is on L's day and whose pair is in L were counted
 * in L; an R pair counts iff its day's row has no earlier visit in W, nor in L.
 */
async function countVisitors(
  db: Queryable,
  project: number,
  span: Span,
  crawlers: boolean,
): Promise<Counted[]> {
  const hasL = span.firstMs > 0;
  const hasR = span.endMs > 0;
  if (hasL && hasR && span.firstDay === span.endDay) return countVisitorsRaw(db, project, span, crawlers);
  const s = sides(crawlers);
  const d0 = span.firstDay;
  const values: number[] = [];
  const slots = new Map<string, string>();
  /** A bound parameter, numbered on first use (PostgreSQL refuses unused ones). */
  const p = (name: string, value: number) => {
    let slot = slots.get(name);
    if (slot === undefined) {
      values.push(value);
      slot = `$${values.length}::int4`;
      slots.set(name, slot);
    }
    return slot;
  };
  const project_ = p('project', project);
  const wf = p('wf', hasL ? d0 + 1 : d0);
  const d1 = p('d1', span.endDay);
  /** Rows meeting each side's test: counted, or with `of`, the sum of that column. */
  const count = (test: (mask: number) => string, sign = '', of = '') => {
    const agg = (mask: number) =>
      of === ''
        ? `count(*) filter (where ${test(mask)})`
        : `coalesce(sum(${of}) filter (where ${test(mask)}), 0)`;
    return `${sign}${agg(s.human)}::int4 as h, ${sign}${agg(s.ai)}::int4 as a, ${sign}${agg(s.total)}::int4 as t`;
  };
  // The whole days, from the rolled-up first-visit counts.
  const parts = [
    `select c.path, ${count((m) => `c.mask & ${m} <> 0 and ${previous('c', m)} < ${wf}`, '', 'c.n')}
       from analytics_visit_counts c where c.project = ${project_} and c.day >= ${wf} and c.day < ${d1}
      group by c.path`,
  ];
  const ctes: string[] = [];
  const pairs = (day: string, ms: string) =>
    `select coalesce(v.path, 0) as path, v.visitor, bit_or(1 << v.category)::int4 as m
       from analytics_views v where v.project = ${project_} and v.day = ${day} and ${ms} and v.category < 3
      group by grouping sets ((v.path, v.visitor), (v.visitor))`;
  if (hasL) {
    const day0 = p('d0', d0);
    ctes.push(`l as materialized (${pairs(day0, `v.ms >= ${p('firstMs', span.firstMs)}`)})`);
    parts.push(`select l.path, ${count((m) => `l.m & ${m} <> 0`)} from l group by l.path`);
    parts.push(
      `select v.path, ${count((m) => `v.mask & ${m} <> 0 and ${previous('v', m)} = ${day0} and l.m & ${m} <> 0`, '-')}
         from l join analytics_visits v
           on v.project = ${project_} and v.path = l.path and v.visitor = l.visitor and v.day >= ${wf} and v.day < ${d1}
        group by v.path`,
    );
  }
  if (hasR) {
    ctes.push(`r as materialized (${pairs(d1, `v.ms < ${p('endMs', span.endMs)}`)})`);
    // Not in W (no earlier visit on or after wf) and not in L (an earlier visit on d0 is in L).
    const notInL = (m: number) =>
      hasL ? `and not (${previous('v', m)} = ${p('d0', d0)} and coalesce(l.m, 0) & ${m} <> 0)` : '';
    parts.push(
      `select r.path, ${count((m) => `r.m & ${m} <> 0 and ${previous('v', m)} < ${wf} ${notInL(m)}`)}
         from r join analytics_visits v
           on v.project = ${project_} and v.day = ${d1} and v.path = r.path and v.visitor = r.visitor
         ${hasL ? 'left join l on l.path = r.path and l.visitor = r.visitor' : ''}
        group by r.path`,
    );
  }
  const sql = `${ctes.length > 0 ? `with ${ctes.join(', ')}` : ''}
    select path, sum(h)::int4 as h, sum(a)::int4 as a, sum(t)::int4 as t
      from (${parts.join(' union all ')}) parts group by path`;
  const result = await db.query<Counted>(sql, values);
  return result.rows;
}

/** Distinct visitors over raw views: for a range inside one day, clipped at both ends. */
async function countVisitorsRaw(
  db: Queryable,
  project: number,
  span: Span,
  crawlers: boolean,
): Promise<Counted[]> {
  const range = rawRange(span.from, span.to, 2);
  const ai = crawlers ? 'v.category in (1, 2)' : 'v.category = 1';
  const result = await db.query<Counted>(
    `select coalesce(v.path, 0) as path,
            count(distinct v.visitor) filter (where v.category = 0)::int4 as h,
            count(distinct v.visitor) filter (where ${ai})::int4 as a,
            count(distinct v.visitor) filter (where v.category = 0 or ${ai})::int4 as t
       from analytics_views v
      where v.project = $1 and ${range.sql}
      group by grouping sets ((v.path), ())`,
    [project, ...range.values],
  );
  return result.rows;
}

import type pg from 'pg';
import type { Counts, PageQuery, PageRow } from '../../../domain/analytics/store.ts';
import type { Dictionary } from './dictionaries.ts';
import { QUARTER_MS } from './edge-tables.ts';
import { rawRange, type Span } from './range.ts';
import { classBitsSql, columnsOf, NEVER_MS, over, SIDE_NAMES, type Sides, sideBit, sides } from './visits.ts';

type Queryable = Pick<pg.Pool, 'query'>;

/** A page's (path 0: the totals') count per side, in SIDE_NAMES order as s0..s6. */
type Counted = { path: number } & Record<`s${number}`, number>;

const sideColumns = SIDE_NAMES.map((_, k) => `s${k}`);

/** One aggregate per side, each over the rows meeting `test(side's bits)`. */
function perSide(s: Sides, aggregate: (bits: number) => string, sign = ''): string {
  return SIDE_NAMES.map((name, k) => `${sign}${aggregate(s[name])}::int4 as s${k}`).join(', ');
}

function toCounts(c: Counted): Counts {
  const counts = {} as Counts;
  SIDE_NAMES.forEach((name, k) => {
    counts[name] = c[`s${k}`] ?? 0;
  });
  return counts;
}

const ZERO: Counted = { path: 0, s0: 0, s1: 0, s2: 0, s3: 0, s4: 0, s5: 0, s6: 0 };

/** Every page's counts (path 0: the totals), exact; rows with nothing counted are left out. */
export async function countPages(
  db: Queryable,
  paths: Dictionary,
  project: number,
  span: Span,
  query: Pick<PageQuery, 'measure' | 'countAiCrawlersAsAi' | 'verifiedOnly'>,
): Promise<{ totals: Counts; rows: PageRow[] }> {
  const s = sides(query.countAiCrawlersAsAi, query.verifiedOnly);
  const clippedBothEnds = span.firstMs > 0 && span.endMs > 0 && span.firstDay === span.endDay;
  const counted =
    query.measure === 'views' || clippedBothEnds
      ? await countRaw(db, project, span, s, query.measure)
      : await countVisitors(db, project, span, s);
  const totals = toCounts(counted.find((c) => c.path === 0) ?? ZERO);
  const pageRows = counted.filter((c) => c.path !== 0 && (c.s2 ?? 0) > 0);
  const names = await paths.namesOf(
    db,
    pageRows.map((c) => c.path),
  );
  const rows = pageRows.map((c) => ({ path: names.get(c.path) as string, ...toCounts(c) }));
  // Code-unit order, as the other backends (not the database's collation).
  rows.sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { totals, rows };
}

/**
 * Views per page, or distinct visitors over the raw views (for a range inside one day clipped
 * at both ends, which the first-visit rows cannot split).
 */
async function countRaw(
  db: Queryable,
  project: number,
  span: Span,
  s: Sides,
  measure: 'visitors' | 'views',
): Promise<Counted[]> {
  const range = rawRange(span.from, span.to, 2);
  const aggregate = (bits: number) =>
    measure === 'views'
      ? `count(*) filter (where b.bits & ${bits} <> 0)`
      : `count(distinct b.visitor) filter (where b.bits & ${bits} <> 0)`;
  const result = await db.query<Counted>(
    `select coalesce(b.path, 0) as path, ${perSide(s, aggregate)}
       from (select v.path, v.visitor, ${classBitsSql('v')} as bits
               from analytics_views v where v.project = $1 and ${range.sql}) b
      where b.bits <> 0
      group by rollup (b.path)`,
    [project, ...range.values],
  );
  return result.rows;
}

/**
 * Distinct visitors per page from the first-visit rows, each counted at the pair's first visit
 * in the range [from, to): W, the whole days, from the rolled-up counts (a row counts iff the
 * side's latest earlier day is before W); L, a clipped first day, and R, a clipped last day,
 * from the quarter-hour edge roll-ups when the range starts (L) or starts and ends (R) on a
 * quarter hour (edge-tables.ts), else from the edge days' rows (edgeRowsL, edgeRowsR).
 */
async function countVisitors(db: Queryable, project: number, span: Span, s: Sides): Promise<Counted[]> {
  const hasL = span.firstMs > 0;
  const hasR = span.endMs > 0;
  const d0 = span.firstDay;
  const wf = hasL ? d0 + 1 : d0;
  const d1 = span.endDay;
  const onQuarters = span.from % QUARTER_MS === 0;
  // $1 project, $2 first whole day, $3 end day, $4 from (ms), $5 d0, $6 firstMs, $7 endMs,
  // $8 firstMs's quarter, $9 endMs's quarter, $10 from's quarter since the epoch.
  const values: Array<number | string> = [
    project,
    wf,
    d1,
    span.from,
    d0,
    span.firstMs,
    span.endMs,
    Math.floor(span.firstMs / QUARTER_MS),
    Math.floor(span.endMs / QUARTER_MS),
    Math.floor(span.from / QUARTER_MS),
  ];
  const parts = [
    `select c.path, ${perSide(
      s,
      (bits) =>
        `coalesce(sum(c.n) filter (where ${has('c', bits)} and ${over('greatest', columnsOf('l', bits, 'c'))} < $2), 0)`,
    )}
       from analytics_visit_counts c where c.project = $1 and c.day >= $2 and c.day < $3
      group by c.path`,
  ];
  if (hasL) parts.push(...(onQuarters ? edgeSumsL(s) : [edgeRowsL(s)]));
  if (hasR) parts.push(onQuarters && span.endMs % QUARTER_MS === 0 ? edgeSumsR(s) : edgeRowsR(s));
  const sql = `select path, ${sideColumns.map((c) => `sum(${c})::int4 as ${c}`).join(', ')}
      from (${parts.join(' union all ')}) parts group by path`;
  // PostgreSQL refuses a parameter that no part uses: number only those the parts mention.
  return (await db.query<Counted>(...bindUsed(sql, values))).rows;
}

const has = (alias: string, bits: number) => `${alias}.mask & ${bits} <> 0`;
/** Every bit any side of `s` counts. */
const anySide = (s: Sides) => s.total | s.aiAssistant | s.aiSearch | s.aiTraining | s.aiOther;

/**
 * L from the roll-ups: the start-edge rows of d0 whose side's last view is at or after the
 * start's quarter, less the pairs among them with a row of the side on W (their next day of
 * the side is before the end; W counted them), told by their next-day rows' last times.
 */
function edgeSumsL(s: Sides): string[] {
  const comesBack = (bits: number) =>
    `${over('greatest', columnsOf('t', bits, 'n'))} >= $6 and ${over('least', columnsOf('n', bits, 'n'))} < $3`;
  return [
    `select e.path, ${perSide(s, (bits) => `coalesce(sum(e.n) filter (where e.sides & ${sideBit(bits)} <> 0), 0)`)}
       from analytics_visit_starts e where e.project = $1 and e.day = $5 and e.tq >= $8
      group by e.path`,
    `select n.path, ${perSide(s, (bits) => `count(*) filter (where ${comesBack(bits)})`, '-')}
       from analytics_visit_next n where n.project = $1 and n.day = $5 and ${comesBack(anySide(s))}
      group by n.path`,
  ];
}

/**
 * R from the roll-ups: the end-edge rows of d1 whose side's first view is before the end's
 * quarter and whose side's latest earlier view is before the start's quarter.
 */
function edgeSumsR(s: Sides): string {
  return `select e.path, ${perSide(
    s,
    (bits) => `coalesce(sum(e.n) filter (where e.sides & ${sideBit(bits)} <> 0 and e.pq < $10), 0)`,
  )}
       from analytics_visit_ends e where e.project = $1 and e.day = $3 and e.fq < $9
      group by e.path`;
}

/**
 * L from its rows: a clipped first day's rows by their last time of day per class, leaving out
 * the pairs with a row of the side on W (their next day of the side, from analytics_visit_next,
 * is before the end: W counted them).
 */
function edgeRowsL(s: Sides): string {
  const inL = (alias: string, bits: number) =>
    `${has(alias, bits)} and ${over('greatest', columnsOf('t', bits, alias))} >= $6`;
  // Rows with no next day have no next-day row.
  const noneInW = (bits: number) => `coalesce(${over('least', columnsOf('n', bits, 'n'))}, $3) >= $3`;
  return `select l.path, ${perSide(s, (bits) => `count(*) filter (where ${inL('l', bits)} and ${noneInW(bits)})`)}
       from analytics_visits l
       left join analytics_visit_next n on n.project = $1 and n.day = $5 and n.path = l.path and n.visitor = l.visitor
      where l.project = $1 and l.day = $5 and ${inL('l', anySide(s))}
      group by l.path`;
}

/**
 * R from its rows: a clipped last day's rows by their first time of day per class and their
 * previous-visit times (before `from`: not seen in L or W).
 */
function edgeRowsR(s: Sides): string {
  const previousMs = (alias: string, bits: number) =>
    `coalesce(${over('greatest', columnsOf('p', bits, alias))}, ${NEVER_MS})`;
  return `select r.path, ${perSide(
    s,
    (bits) =>
      `count(*) filter (where ${has('r', bits)} and ${over('least', columnsOf('f', bits, 'r'))} < $7 and ${previousMs('r', bits)} < $4)`,
  )}
       from analytics_visits r where r.project = $1 and r.day = $3 and ${over('least', columnsOf('f', anySide(s), 'r'))} < $7
      group by r.path`;
}

/** Renumbers $n in `sql` to the parameters it uses, in order. */
function bindUsed(sql: string, values: ReadonlyArray<number | string>): [string, Array<number | string>] {
  const used: number[] = [];
  const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
    let at = used.indexOf(Number(n));
    if (at < 0) at = used.push(Number(n)) - 1;
    return `$${at + 1}`;
  });
  return [text, used.map((n) => values[n - 1] as number | string)];
}

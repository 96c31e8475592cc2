import type { Rollup } from './visit-tables.ts';
import { BITS, NEVER, over, SIDE_SETS } from './visits.ts';

/**
 * The clipped edges' roll-ups (schema version 5). Every time zone's offset is a multiple of 15
 * minutes, so a range from one local midnight to another (what the dashboard asks for) starts
 * and ends on a quarter hour. Keyed by quarter hours, a clipped edge day is a sum over a few
 * narrow rows per page, written while the day is folded, instead of a read of the day's wide
 * first-visit rows, which later folds scatter over the heap.
 *
 * A row of either roll-up stands for the first-visit rows that have the same values for a set
 * of sides (`sides`: bit k for SIDE_SETS[k]; a human row has the same values for the human side
 * and the four totals, so one row, not five):
 *
 * - analytics_visit_starts (day, page, sides, tq): tq is the quarter of the side's last view of
 *   the day. For a range starting at quarter f of day d, the side's rows of d with tq ≥ f saw the
 *   pair in the range; those whose pair comes back on the whole days after d are counted there
 *   and are taken away again, from analytics_visit_next, which keeps each row's last times.
 * - analytics_visit_ends (day, page, sides, fq, pq): fq is the quarter of the side's first view
 *   of the day, pq the quarter (since the epoch) of its latest view on an earlier day (NEVER:
 *   none). For a range [from, to) ending at quarter e of day d, the side's rows of d with fq < e
 *   and pq before from's quarter are the pairs first seen in the range on d.
 */
export const QUARTER_MS = 900_000;
/** "No view of the side that day" in tq (before every quarter) and fq (after every quarter). */
const NO_LAST = -1;
const NO_FIRST = 96;

/** Per stored side: its bit, whether row `x` has a view of it, and the values it keys by. */
function sideValues(values: (bits: number) => string[]): string {
  return SIDE_SETS.map((bits, k) => `(${2 ** k}, x.mask & ${bits} <> 0, ${values(bits).join(', ')})`).join(
    ',\n           ',
  );
}
const columns = (prefix: string, bits: number) =>
  BITS.filter((i) => bits & (1 << i)).map((i) => `x.${prefix}${i}`);

/** The stored sides row `x` has a view of, as a `sides` value. */
const sidesOfMask = SIDE_SETS.map(
  (bits, k) => `(case when x.mask & ${bits} <> 0 then ${2 ** k} else 0 end)`,
).join(' + ');
const ALL_BITS = (1 << BITS.length) - 1;

/**
 * One key per distinct value tuple of each row of `source`: its sides with those values OR-ed.
 * Most rows have the same values for every side they have (`uniform`: one class, or a class
 * and its purpose seen together): one key, computed directly. The others (a visitor's totals
 * row with several classes, say) list their sides, grouped by the row's primary key.
 */
function edgeKeys(
  source: string,
  where: string,
  uniform: string,
  direct: string[],
  values: (bits: number) => string[],
  names: string[],
): string {
  const list = names.map((n) => `e.${n}`).join(', ');
  const and = where ? `${where} and` : 'where';
  // Never NULL, so that every row takes exactly one of the two branches.
  uniform = `coalesce(${uniform}, false)`;
  return `select x.project, x.day, x.path, ${sidesOfMask}, ${direct.join(', ')}
      from ${source} x ${and} ${uniform}
    union all
    select x.project, x.day, x.path, bit_or(e.bit), ${list}
      from ${source} x cross join lateral (values
           ${sideValues(values)}) e (bit, has, ${names.join(', ')})
     ${and} not (${uniform}) and e.has
     group by x.project, x.path, x.visitor, x.day, ${list}`;
}

const lastQuarter = (bits: number) =>
  `coalesce(${over('greatest', columns('t', bits))} / ${QUARTER_MS}, ${NO_LAST})`;
const firstQuarter = (bits: number) =>
  `coalesce(${over('least', columns('f', bits))} / ${QUARTER_MS}, ${NO_FIRST})`;
const previousQuarter = (bits: number) =>
  `coalesce(floor(${over('greatest', columns('p', bits))}::float8 / ${QUARTER_MS})::int4, ${NEVER})`;
/** The bits whose p is set, as a mask. */
const previousMask = BITS.map((i) => `(case when x.p${i} is not null then ${1 << i} else 0 end)`).join(' + ');

/** The start-edge roll-up; `bySide` lists every row's sides (the tests' reference). */
export const startsRollup = (bySide = false): Rollup => ({
  table: 'analytics_visit_starts',
  key: ['project', 'day', 'path', 'sides', 'tq'],
  // t is set for the row's classes only: a side's last quarter is the row's if all agree.
  keysOf: (source, where = '') =>
    edgeKeys(
      source,
      where,
      bySide
        ? 'false'
        : `${over('greatest', columns('t', ALL_BITS))} = ${over('least', columns('t', ALL_BITS))}`,
      [lastQuarter(ALL_BITS)],
      (bits) => [lastQuarter(bits)],
      ['tq'],
    ),
});
export const STARTS_ROLLUP = startsRollup();

/** The end-edge roll-up; `bySide` lists every row's sides (the tests' reference). */
export const endsRollup = (bySide = false): Rollup => ({
  table: 'analytics_visit_ends',
  key: ['project', 'day', 'path', 'sides', 'fq', 'pq'],
  // p may be set for classes the row has not (an earlier view of another class): a side's
  // previous view is the row's only if p is set for none, or for exactly its classes, alike.
  keysOf: (source, where = '') =>
    edgeKeys(
      source,
      where,
      bySide
        ? 'false'
        : `${over('greatest', columns('f', ALL_BITS))} = ${over('least', columns('f', ALL_BITS))}
         and (coalesce(${BITS.map((i) => `x.p${i}`).join(', ')}) is null
              or (${previousMask} = x.mask
                  and ${over('greatest', columns('p', ALL_BITS))} = ${over('least', columns('p', ALL_BITS))}))`,
      [firstQuarter(ALL_BITS), previousQuarter(ALL_BITS)],
      (bits) => [firstQuarter(bits), previousQuarter(bits)],
      ['fq', 'pq'],
    ),
});
export const ENDS_ROLLUP = endsRollup();

export const CREATE_EDGE_TABLES_SQL = `
  create table analytics_visit_starts (
    project int4 not null, day int4 not null, path int4 not null, sides int4 not null,
    tq int4 not null, n int4 not null,
    primary key (project, day, path, sides, tq)
  );
  create table analytics_visit_ends (
    project int4 not null, day int4 not null, path int4 not null, sides int4 not null,
    fq int4 not null, pq int4 not null, n int4 not null,
    primary key (project, day, path, sides, fq, pq)
  );
`;

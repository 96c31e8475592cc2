/**
 * The first-visit table's classes and columns (see visit-tables.ts), shared by the upkeep
 * (record-visits.ts, the rebuild) and the queries (page-query.ts).
 *
 * A counted view sets one or two class bits of its (page, visitor, day) row: its category and
 * whether it was verified (human: bit 0; ai: 1 claimed, 2 verified; ai_crawler: 3, 4) and, for
 * an AI view with a purpose, the purpose and whether it was verified (bits 5 + 2·(purpose − 1)
 * + verified). Every export's side (human, ai, total, each purpose, with or without crawlers,
 * verified or not) is a union of these bits, so one row answers all of them.
 */

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
/** "No earlier visit" in analytics_visit_counts.l*: before every day. */
export const NEVER = -2147483648;
/** Before every timestamp, for a previous view that never was. */
export const NEVER_MS = '(-9223372036854775807)::int8';
/** Class bits 0..12 (see above). */
export const CLASS_BITS = 13;
export const BITS: readonly number[] = Array.from({ length: CLASS_BITS }, (_, i) => i);

/** The class bits of a view (0: not counted in any export's visitors). */
export function classBits(category: number, purpose: number, verified: boolean): number {
  const v = verified ? 1 : 0;
  if (category === 0) return 1;
  if (category !== 1 && category !== 2) return 0;
  const side = 1 << (1 + (category - 1) * 2 + v);
  return purpose >= 1 && purpose <= 4 ? side | (1 << (5 + (purpose - 1) * 2 + v)) : side;
}

/** classBits in SQL, over the columns of analytics_views `alias`. */
export function classBitsSql(alias: string): string {
  const a = alias;
  return `(case when ${a}.category = 0 then 1
    when ${a}.category in (1, 2) then (1 << (1 + (${a}.category - 1) * 2 + ${a}.verified::int4))
      | case when ${a}.purpose between 1 and 4 then 1 << (5 + (${a}.purpose - 1) * 2 + ${a}.verified::int4) else 0 end
    else 0 end)`;
}

/** The class bits each side of the exports counts. */
export interface Sides {
  human: number;
  ai: number;
  total: number;
  aiAssistant: number;
  aiSearch: number;
  aiTraining: number;
  aiOther: number;
}
export const SIDE_NAMES = [
  'human',
  'ai',
  'total',
  'aiAssistant',
  'aiSearch',
  'aiTraining',
  'aiOther',
] as const;

/**
 * With `verifiedOnly`, a claimed AI view counts as a bot: only the verified bits count. The
 * purposes cover ai and ai_crawler whatever `countAiCrawlersAsAi` says.
 */
export function sides(countAiCrawlersAsAi: boolean, verifiedOnly: boolean): Sides {
  const kept = (claimed: number, verified: number) => (verifiedOnly ? verified : claimed | verified);
  const ai = kept(1 << 1, 1 << 2) | (countAiCrawlersAsAi ? kept(1 << 3, 1 << 4) : 0);
  const purpose = (p: number) => kept(1 << (5 + (p - 1) * 2), 1 << (6 + (p - 1) * 2));
  return {
    human: 1,
    ai,
    total: 1 | ai,
    aiAssistant: purpose(1),
    aiSearch: purpose(2),
    aiTraining: purpose(3),
    aiOther: purpose(4),
  };
}

/** The bits of `mask`, as column names `prefix + bit`. */
export function columnsOf(prefix: string, mask: number, alias: string): string[] {
  return BITS.filter((i) => mask & (1 << i)).map((i) => `${alias}.${prefix}${i}`);
}

/** `fn` over the columns (greatest/least skip NULLs), or the one column itself. */
export function over(fn: 'greatest' | 'least', columns: readonly string[]): string {
  return columns.length === 1 ? (columns[0] as string) : `${fn}(${columns.join(', ')})`;
}

/**
 * Every side any export counts, whatever its options: 17 unions of class bits, in numeric
 * order. The edge roll-ups (edge-tables.ts) store a set of sides as bits of this list's
 * indexes, so the list is part of the stored format: changing it needs a migration that
 * rebuilds them.
 */
export const SIDE_SETS: readonly number[] = [
  ...new Set(
    [false, true].flatMap((crawlers) =>
      [false, true].flatMap((verified) => SIDE_NAMES.map((name) => sides(crawlers, verified)[name])),
    ),
  ),
].sort((a, b) => a - b);

/** The bit standing for the side `bits` in the edge roll-ups' `sides`. */
export function sideBit(bits: number): number {
  const at = SIDE_SETS.indexOf(bits);
  if (at < 0) throw new Error(`No stored side for class bits ${bits}`);
  return 2 ** at;
}

import type { Counts, TimeRange } from '../../../domain/analytics/store.ts';
import { CLASS_BIT_SQL, SIDE_MASKS } from './classes.ts';
import { literal } from './sql-literal.ts';

export const DAY_MS = 86_400_000;

/** The views of a project in a range: the day bounds let the primary key skip the rest. */
export function whereRange(projectId: string, range: TimeRange): string {
  const parts = [`project = ${literal(projectId)}`];
  if (range.from !== null) {
    parts.push(`day >= ${literal(Math.floor(range.from / DAY_MS))}`, `ts >= ${literal(range.from)}`);
  }
  if (range.to !== null) {
    parts.push(`day <= ${literal(Math.floor((range.to - 1) / DAY_MS))}`, `ts < ${literal(range.to)}`);
  }
  return parts.join(' AND ');
}

/** `mask`'s classes, as a SQL condition on a class mask expression. */
export function inSide(maskSql: string, side: number): string {
  return `bitAnd(${maskSql}, ${literal(SIDE_MASKS[side] as number)}) != 0`;
}

/** The views matching `where`, each with its class bit (`bit`; 0: never counted). */
export function classedViews(db: string, where: string, columns: string): string {
  return `SELECT ${columns}, ${CLASS_BIT_SQL} AS bit FROM ${db}.views WHERE ${where}`;
}

/**
 * Columns c0… over rows with a `bit` column: distinct visitors (exact) or views per side.
 */
export function rawMeasures(sides: readonly number[], measure: 'visitors' | 'views', prefix = 'c'): string {
  return sides
    .map((side, i) =>
      measure === 'visitors'
        ? `uniqExactIf(visitor_hi, visitor_lo, ${inSide('bit', side)}) AS ${prefix}${i}`
        : `countIf(${inSide('bit', side)}) AS ${prefix}${i}`,
    )
    .join(', ');
}

/** Seven figures in sideList order (human, ai, total, then the purposes) as Counts. */
export function toCounts(values: readonly number[] | undefined): Counts {
  const v = (i: number) => values?.[i] ?? 0;
  return {
    human: v(0),
    ai: v(1),
    total: v(2),
    aiAssistant: v(3),
    aiSearch: v(4),
    aiTraining: v(5),
    aiOther: v(6),
  };
}

/** Columns c0…c{n-1} of a result row as numbers. */
export function columnsOf(row: Record<string, unknown> | undefined, n: number, prefix = 'c'): number[] {
  return Array.from({ length: n }, (_, i) => Number(row?.[`${prefix}${i}`] ?? 0));
}

import type { TimeRange } from './store.ts';
import { parseDateOrDateTime } from './timestamps.ts';

/** A problem with one query parameter, named in the message. */
export interface QueryIssue {
  parameter: string;
  message: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; issues: QueryIssue[] };

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 250;
export const INTERVALS = ['day', 'hour'] as const;
export type Interval = (typeof INTERVALS)[number];

export interface PageParams {
  range: TimeRange;
  limit: number;
  offset: number;
}

/** Every export may count verified agents only (`verifiedOnly=true`; default false). */
export interface VerifiedParam {
  verifiedOnly: boolean;
}

type RawQuery = Record<string, unknown>;

/**
 * `dateFrom` (inclusive) and `dateTo` (exclusive): `YYYY-MM-DD` (midnight UTC) or an ISO 8601
 * date-time with its offset; either may be absent (unbounded).
 */
function parseRange(raw: RawQuery, issues: QueryIssue[]): TimeRange {
  const from = dateParam(raw, 'dateFrom', issues);
  const to = dateParam(raw, 'dateTo', issues);
  if (from !== null && to !== null && from >= to) {
    issues.push({ parameter: 'dateFrom', message: 'dateFrom must be before dateTo (dateTo is exclusive)' });
  }
  return { from, to };
}

export function parseRangeParams(raw: RawQuery): Parsed<{ range: TimeRange } & VerifiedParam> {
  const issues: QueryIssue[] = [];
  const range = parseRange(raw, issues);
  const verifiedOnly = booleanParam(raw, 'verifiedOnly', issues);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: { range, verifiedOnly } };
}

export function parsePageParams(raw: RawQuery): Parsed<PageParams & VerifiedParam> {
  const issues: QueryIssue[] = [];
  const range = parseRange(raw, issues);
  const limit = integerParam(raw, 'limit', { min: 1, max: MAX_LIMIT, fallback: DEFAULT_LIMIT }, issues);
  const offset = integerParam(raw, 'offset', { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }, issues);
  const verifiedOnly = booleanParam(raw, 'verifiedOnly', issues);
  return issues.length > 0
    ? { ok: false, issues }
    : { ok: true, value: { range, limit, offset, verifiedOnly } };
}

export function parseSeriesParams(
  raw: RawQuery,
): Parsed<{ range: TimeRange; interval: Interval } & VerifiedParam> {
  const issues: QueryIssue[] = [];
  const range = parseRange(raw, issues);
  const verifiedOnly = booleanParam(raw, 'verifiedOnly', issues);
  const value = single(raw, 'interval', issues);
  let interval: Interval = 'day';
  if (value !== undefined) {
    if ((INTERVALS as readonly string[]).includes(value)) interval = value as Interval;
    else
      issues.push({
        parameter: 'interval',
        message: `interval must be one of ${INTERVALS.join(', ')} (got "${value}")`,
      });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: { range, interval, verifiedOnly } };
}

/** `true` or `false`, exactly; absent is false. */
function booleanParam(raw: RawQuery, name: string, issues: QueryIssue[]): boolean {
  const value = single(raw, name, issues);
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  issues.push({ parameter: name, message: `${name} must be true or false (got "${clip(value)}")` });
  return false;
}

function single(raw: RawQuery, name: string, issues: QueryIssue[]): string | undefined {
  const value = raw[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    issues.push({ parameter: name, message: `${name} must be given once` });
    return undefined;
  }
  return value;
}

function dateParam(raw: RawQuery, name: string, issues: QueryIssue[]): number | null {
  const value = single(raw, name, issues);
  if (value === undefined || value === '') return null;
  const time = parseDateOrDateTime(value);
  if (time === null) {
    issues.push({
      parameter: name,
      message: `${name} must be a date (YYYY-MM-DD) or an ISO 8601 date-time with an offset, e.g. 2025-03-01T00:00:00Z (got "${clip(value)}")`,
    });
  }
  return time;
}

function integerParam(
  raw: RawQuery,
  name: string,
  { min, max, fallback }: { min: number; max: number; fallback: number },
  issues: QueryIssue[],
): number {
  const value = single(raw, name, issues);
  if (value === undefined) return fallback;
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    const bounds = max === Number.MAX_SAFE_INTEGER ? `of ${min} or more` : `from ${min} to ${max}`;
    issues.push({ parameter: name, message: `${name} must be an integer ${bounds} (got "${clip(value)}")` });
    return fallback;
  }
  return number;
}

function clip(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value;
}

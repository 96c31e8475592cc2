const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/** `YYYY-MM-DD` as midnight UTC, in epoch milliseconds; null if not a real calendar date. */
export function parseDate(value: string): number | null {
  const m = DATE.exec(value);
  if (!m) return null;
  return calendar(Number(m[1]), Number(m[2]), Number(m[3]), 0, 0, 0, 0);
}

/**
 * An ISO 8601 / RFC 3339 date-time with its offset (`Z` or `±HH:MM`) honoured, in epoch
 * milliseconds; null when malformed, impossible (Feb 30, 25:00) or without an offset, since a
 * local time would be ambiguous.
 */
export function parseDateTime(value: string): number | null {
  const fast = parseUtcDateTime(value);
  if (fast !== undefined) return fast;
  const m = DATE_TIME.exec(value);
  if (!m) return null;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const local = calendar(
    Number(m[1]),
    Number(m[2]),
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6] ?? 0),
    ms,
  );
  if (local === null) return null;
  if (m[8]) return local;
  const hours = Number(m[10]);
  const minutes = Number(m[11]);
  if (hours > 23 || minutes > 59) return null;
  const offset = (hours * 60 + minutes) * 60_000;
  return m[9] === '-' ? local + offset : local - offset;
}

// Positions of the digits in `YYYY-MM-DDTHH:MM:SS.sssZ`.
const DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22];

/**
 * `2025-03-01T12:00:00Z` or `2025-03-01T12:00:00.273Z`, the shapes nearly every log and
 * JavaScript client writes, read without a regex (a log import parses one per line); undefined
 * for any other shape, which the full parser then reads.
 */
function parseUtcDateTime(v: string): number | null | undefined {
  const n = v.length;
  if (n !== 20 && n !== 24) return undefined;
  if (
    v.charCodeAt(n - 1) !== 90 || // Z
    v.charCodeAt(4) !== 45 || // -
    v.charCodeAt(7) !== 45 ||
    v.charCodeAt(10) !== 84 || // T
    v.charCodeAt(13) !== 58 || // :
    v.charCodeAt(16) !== 58 ||
    (n === 24 && v.charCodeAt(19) !== 46) // .
  ) {
    return undefined;
  }
  const digits = n === 24 ? DIGITS.length : DIGITS.length - 3;
  for (let i = 0; i < digits; i++) {
    const c = v.charCodeAt(DIGITS[i] as number);
    if (c < 48 || c > 57) return undefined;
  }
  const d = (i: number) => v.charCodeAt(i) - 48;
  return calendar(
    d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3),
    d(5) * 10 + d(6),
    d(8) * 10 + d(9),
    d(11) * 10 + d(12),
    d(14) * 10 + d(15),
    d(17) * 10 + d(18),
    n === 24 ? d(20) * 100 + d(21) * 10 + d(22) : 0,
  );
}

/** A date or a date-time, as the export parameters accept. */
export function parseDateOrDateTime(value: string): number | null {
  return parseDate(value) ?? parseDateTime(value);
}

function calendar(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
): number | null {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const time = ((hour * 60 + minute) * 60 + second) * 1000 + ms;
  // A log's timestamps share a few dates: check each date once.
  if (year === last.year && month === last.month && day === last.day) return last.midnight + time;
  const midnight = Date.UTC(year, month - 1, day);
  // Date.UTC rolls Feb 30 over into March: a real date survives the round trip.
  const check = new Date(midnight);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return null;
  }
  last = { year, month, day, midnight };
  return midnight + time;
}

let last = { year: Number.NaN, month: 0, day: 0, midnight: 0 };

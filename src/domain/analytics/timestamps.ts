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

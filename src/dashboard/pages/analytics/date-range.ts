/**
 * The analytics page's date range: whole days in the viewer's time zone, from a preset or
 * chosen, sent to the API as ISO date-times with the viewer's offset at each end, so "today"
 * is the viewer's today wherever they are (and a day with a daylight-saving change is right).
 */

/** Calendar dates `YYYY-MM-DD`, both included. */
export interface DateRange {
  from: string;
  to: string;
}

export const PRESETS = [
  { id: 'today', label: 'Today' },
  { id: 'yesterday', label: 'Yesterday' },
  { id: '7d', label: 'Last 7 days' },
  { id: '30d', label: 'Last 30 days' },
  { id: '90d', label: 'Last 90 days' },
  { id: 'month', label: 'This month' },
  { id: 'last-month', label: 'Last month' },
] as const;
export type PresetId = (typeof PRESETS)[number]['id'];
export const DEFAULT_PRESET: PresetId = '30d';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A local calendar date as `YYYY-MM-DD`. */
export function isoDate(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** `YYYY-MM-DD` as the local Date at the start of that day, or null if it is no real date. */
export function parseDate(value: string): Date | null {
  const match = DATE.exec(value);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(year, month - 1, day);
  // new Date rolls 2025-02-30 over to March: such a date does not exist.
  if (date.getFullYear() !== year || date.getMonth() !== month - 1 || date.getDate() !== day) return null;
  return date;
}

const addDays = (date: Date, days: number) =>
  new Date(date.getFullYear(), date.getMonth(), date.getDate() + days);

/** The days a preset covers, seen from `now` in the viewer's time zone. */
export function presetRange(preset: PresetId, now: Date = new Date()): DateRange {
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const last = (days: number) => ({ from: isoDate(addDays(today, 1 - days)), to: isoDate(today) });
  switch (preset) {
    case 'today':
      return last(1);
    case 'yesterday': {
      const yesterday = isoDate(addDays(today, -1));
      return { from: yesterday, to: yesterday };
    }
    case '7d':
      return last(7);
    case '30d':
      return last(30);
    case '90d':
      return last(90);
    case 'month':
      return { from: isoDate(new Date(today.getFullYear(), today.getMonth(), 1)), to: isoDate(today) };
    case 'last-month':
      return {
        from: isoDate(new Date(today.getFullYear(), today.getMonth() - 1, 1)),
        to: isoDate(new Date(today.getFullYear(), today.getMonth(), 0)),
      };
  }
}

/**
 * The instant a local calendar day starts, as ISO 8601 with the local offset of that instant:
 * `2025-03-30T00:00:00+01:00`. Where midnight does not exist (a clock moved forward at
 * midnight) the day starts at the first time that does.
 */
export function startOfDayIso(date: string): string {
  const day = parseDate(date);
  if (!day) throw new Error(`Not a date: ${date}`);
  return localIso(day);
}

/** A Date as local ISO 8601 with its offset, to the second. */
export function localIso(date: Date): string {
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return (
    `${isoDate(date)}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** The API's `dateFrom` (inclusive) and `dateTo` (exclusive: the start of the day after `to`). */
export function toQuery(range: DateRange): { dateFrom: string; dateTo: string } {
  const to = parseDate(range.to);
  if (!to) throw new Error(`Not a date: ${range.to}`);
  return { dateFrom: startOfDayIso(range.from), dateTo: localIso(addDays(to, 1)) };
}

/** Days in the range, both ends included. */
export function rangeDays(range: DateRange): number {
  const from = parseDate(range.from);
  const to = parseDate(range.to);
  if (!from || !to) return 0;
  // Calendar days, whatever daylight saving does to the hours between them.
  return (
    Math.round(
      (Date.UTC(to.getFullYear(), to.getMonth(), to.getDate()) -
        Date.UTC(from.getFullYear(), from.getMonth(), from.getDate())) /
        86_400_000,
    ) + 1
  );
}

/** Hourly points for a day or two, daily points beyond. */
export const intervalFor = (range: DateRange): 'hour' | 'day' => (rangeDays(range) <= 2 ? 'hour' : 'day');

/** What is wrong with a chosen range, in words, or null. */
export function rangeProblem(range: DateRange): string | null {
  const from = parseDate(range.from);
  const to = parseDate(range.to);
  if (!from) return 'Choose a start date';
  if (!to) return 'Choose an end date';
  if (to < from) return 'The end date is before the start date';
  return null;
}

/** The viewer's time zone and its offset now, to say on the page: "Europe/Berlin (UTC+01:00)". */
export function timeZoneLabel(now: Date = new Date()): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const offset = localIso(now).slice(-6);
  return `${zone} (UTC${offset})`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

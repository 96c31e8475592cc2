import type { TimeRange } from '../../../domain/analytics/store.ts';
import type { ChunkLog } from './chunk-log.ts';
import { DAY_MS, DayIndex } from './day-index.ts';
import type { ProjectIndex } from './project-index.ts';
import { ViewCursor } from './record.ts';

/** A query's range laid over a project's index: the days it touches, whole or clipped. */
export interface RangePlan {
  index: ProjectIndex;
  from: number;
  to: number;
  /** Each day touched, ascending, with the part of it inside the range. */
  parts: RangePart[];
  /** True when every part is a whole day of the index (no clipped edge). */
  wholeDays: boolean;
  /** One DayIndex per day touched, clipped to the range at its edges (built on first use). */
  segments: () => DayIndex[];
  /** The newest view in any day touched: a cached answer with the same value is current. */
  fingerprint: number;
}

export interface RangePart {
  day: DayIndex;
  /** The part of the day inside the range: [from, to) in epoch ms. */
  from: number;
  to: number;
  whole: boolean;
}

/**
 * Plans a range over the index (as of `upTo`, the seq it reflects); null when no day with
 * views is in it. Clipped edge days are read from the chunks, when `segments` is first called.
 */
export function planRange(
  index: ProjectIndex,
  range: TimeRange,
  chunks: ChunkLog,
  upTo: number,
): RangePlan | null {
  const days = index.sortedDays();
  const firstDay = days[0];
  const lastDay = days[days.length - 1];
  if (firstDay === undefined || lastDay === undefined) return null;
  // A range that starts before the project's first day starts there: nothing is earlier. It
  // also must: first visits are counted as entries whose previous visit is before the
  // range's first day, and "no previous visit" is day 0 (1970-01-01), so a range starting
  // on or before the epoch would count no one.
  const from = Math.max(range.from ?? Number.NEGATIVE_INFINITY, firstDay * DAY_MS);
  const to = range.to ?? (lastDay + 1) * DAY_MS;
  if (from >= to) return null;
  const parts: RangePart[] = [];
  let fingerprint = 0;
  let wholeDays = true;
  const fromDay = Math.floor(from / DAY_MS);
  const toDay = Math.floor((to - 1) / DAY_MS);
  for (let i = lowerBound(days, fromDay); i < days.length; i++) {
    const d = days[i] as number;
    if (d > toDay) break;
    const day = index.days.get(d);
    if (!day) continue;
    if (day.lastSeq > fingerprint) fingerprint = day.lastSeq;
    const dayStart = d * DAY_MS;
    const dayEnd = dayStart + DAY_MS;
    const whole = from <= dayStart && dayEnd <= to;
    if (!whole) wholeDays = false;
    parts.push({ day, from: Math.max(from, dayStart), to: Math.min(to, dayEnd), whole });
  }
  let segments: DayIndex[] | null = null;
  const built = () => {
    segments ??= parts.map((p) =>
      p.whole ? p.day : partialDay(chunks, index.projectNo, p.day.day, p.from, p.to, upTo),
    );
    return segments;
  };
  return { index, from, to, parts, wholeDays, segments: built, fingerprint };
}

/** A range edge inside a day is counted from the views of that part of the day. */
function partialDay(
  chunks: ChunkLog,
  projectNo: number,
  day: number,
  from: number,
  to: number,
  upTo: number,
): DayIndex {
  const segment = new DayIndex(day);
  const start = from - day * DAY_MS;
  const end = to - day * DAY_MS;
  for (const chunk of chunks.dayInSpan(projectNo, day, upTo, start, end)) {
    for (const v = new ViewCursor(chunk); v.next(); ) {
      const ms = v.msOfDay;
      if (ms < start || ms >= end) continue;
      segment.addView(
        chunk.seq,
        day * DAY_MS + ms,
        v.path,
        v.visitor,
        v.category,
        v.agent,
        v.purposeCode,
        v.verified,
      );
    }
  }
  return segment;
}

function lowerBound(values: number[], target: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((values[mid] as number) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The time series over the whole range the page asked for. The API's series starts at the
 * project's first day with views when that is later than the range's start (and ends with its
 * last day with views), so "Last 30 days" would start at the first day with data: the buckets it
 * leaves out are empty, and are filled here with zeros. Buckets are UTC days or hours, the first
 * cut to the range's start, as the API cuts them.
 */
import type { Static } from 'typebox';
// From the route's schemas, not analytics-api.ts, which imports this file.
import type { Counts, SeriesReport } from '../../../http/routes/analytics.ts';

type Series = Static<typeof SeriesReport>;
type CountsPayload = Static<typeof Counts>;

const STEP_MS = { day: 86_400_000, hour: 3_600_000 } as const;

const ZERO: CountsPayload = {
  human: 0,
  ai: 0,
  total: 0,
  aiAssistant: 0,
  aiSearch: 0,
  aiTraining: 0,
  aiOther: 0,
};

export function fillSeries(series: Series, range: { dateFrom: string; dateTo: string }): Series {
  const step = series.interval === 'hour' ? STEP_MS.hour : STEP_MS.day;
  const from = Date.parse(range.dateFrom);
  const to = Date.parse(range.dateTo);
  if (!Number.isFinite(from) || !Number.isFinite(to)) return series;
  // Matched by bucket rather than by start, so a point the API cut differently is still its own.
  const byBucket = new Map(series.points.map((point) => [Math.floor(Date.parse(point.start) / step), point]));
  const points: Series['points'] = [];
  for (let start = Math.floor(from / step) * step; start < to; start += step) {
    const point = byBucket.get(start / step);
    points.push(
      point ?? { start: new Date(Math.max(start, from)).toISOString(), visitors: ZERO, views: ZERO },
    );
  }
  return { ...series, points };
}

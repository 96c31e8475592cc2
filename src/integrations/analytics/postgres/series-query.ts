import type pg from 'pg';
import type { SeriesPoint } from '../../../domain/analytics/store.ts';
import { invalid } from '../../../domain/errors.ts';
import { rawRange, type Span } from './range.ts';
import { DAY_MS, HOUR_MS } from './visits.ts';

type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Distinct visitors and views per UTC day or hour, each bucket clipped to the range: one
 * grouped pass over the range's raw views (a bucket is one day at most, so the distinct sets
 * are small).
 */
export async function timeSeries(
  db: Queryable,
  project: number,
  span: Span,
  interval: 'day' | 'hour',
  countAiCrawlersAsAi: boolean,
  maxBuckets: number,
): Promise<SeriesPoint[]> {
  const step = interval === 'day' ? DAY_MS : HOUR_MS;
  const firstBucket = Math.floor(span.from / step) * step;
  const buckets = Math.ceil((span.to - firstBucket) / step);
  if (buckets > maxBuckets) {
    throw invalid(
      `A time series may have at most ${maxBuckets} buckets; narrow the range or use a longer interval`,
    );
  }
  const range = rawRange(span.from, span.to, 3);
  const ai = countAiCrawlersAsAi ? 'v.category in (1, 2)' : 'v.category = 1';
  const result = await db.query<{
    bucket: string;
    vh: number;
    va: number;
    vt: number;
    nh: number;
    na: number;
    nt: number;
  }>(
    `select (v.day::int8 * ${DAY_MS} + v.ms) / $2::int8 as bucket,
            count(distinct v.visitor) filter (where v.category = 0)::int4 as vh,
            count(distinct v.visitor) filter (where ${ai})::int4 as va,
            count(distinct v.visitor) filter (where v.category = 0 or ${ai})::int4 as vt,
            count(*) filter (where v.category = 0)::int4 as nh,
            count(*) filter (where ${ai})::int4 as na,
            count(*) filter (where v.category = 0 or ${ai})::int4 as nt
       from analytics_views v
      where v.project = $1 and ${range.sql}
      group by 1`,
    [project, step, ...range.values],
  );
  const byBucket = new Map(result.rows.map((r) => [Number(r.bucket) * step, r]));
  const points: SeriesPoint[] = [];
  for (let start = firstBucket; start < span.to; start += step) {
    const r = byBucket.get(start);
    points.push({
      start: Math.max(start, span.from),
      visitors: { human: r?.vh ?? 0, ai: r?.va ?? 0, total: r?.vt ?? 0 },
      views: { human: r?.nh ?? 0, ai: r?.na ?? 0, total: r?.nt ?? 0 },
    });
  }
  return points;
}

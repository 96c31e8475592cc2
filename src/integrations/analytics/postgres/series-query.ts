import type pg from 'pg';
import type { Counts, SeriesPoint } from '../../../domain/analytics/store.ts';
import { invalid } from '../../../domain/errors.ts';
import { rawRange, type Span } from './range.ts';
import { classBitsSql, DAY_MS, HOUR_MS, SIDE_NAMES, sides } from './visits.ts';

type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Distinct visitors and views per UTC day or hour and side (see visits.ts), each bucket clipped
 * to the range: one grouped pass over the range's raw views (a bucket is one day at most, so the distinct sets
 * are small).
 */
export async function timeSeries(
  db: Queryable,
  project: number,
  span: Span,
  interval: 'day' | 'hour',
  countAiCrawlersAsAi: boolean,
  verifiedOnly: boolean,
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
  const s = sides(countAiCrawlersAsAi, verifiedOnly);
  const per = (aggregate: (bits: number) => string, prefix: string) =>
    SIDE_NAMES.map((name, k) => `${aggregate(s[name])}::int4 as ${prefix}${k}`).join(', ');
  const result = await db.query<{ bucket: string } & Record<string, number>>(
    `select b.bucket,
            ${per((bits) => `count(distinct b.visitor) filter (where b.bits & ${bits} <> 0)`, 'v')},
            ${per((bits) => `count(*) filter (where b.bits & ${bits} <> 0)`, 'n')}
       from (select (v.day::int8 * ${DAY_MS} + v.ms) / $2::int8 as bucket, v.visitor, ${classBitsSql('v')} as bits
               from analytics_views v where v.project = $1 and ${range.sql}) b
      where b.bits <> 0
      group by 1`,
    [project, step, ...range.values],
  );
  const byBucket = new Map(result.rows.map((r) => [Number(r.bucket) * step, r]));
  const counts = (r: Record<string, number> | undefined, prefix: string) => {
    const c = {} as Counts;
    SIDE_NAMES.forEach((name, k) => {
      c[name] = r?.[`${prefix}${k}`] ?? 0;
    });
    return c;
  };
  const points: SeriesPoint[] = [];
  for (let start = firstBucket; start < span.to; start += step) {
    const r = byBucket.get(start);
    points.push({ start: Math.max(start, span.from), visitors: counts(r, 'v'), views: counts(r, 'n') });
  }
  return points;
}

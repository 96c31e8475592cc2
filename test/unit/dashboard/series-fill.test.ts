import { describe, expect, it } from 'vitest';
import type { Series } from '../../../src/dashboard/pages/analytics/analytics-api.ts';
import { fillSeries } from '../../../src/dashboard/pages/analytics/series-fill.ts';

const counts = (total: number) => ({
  human: total,
  ai: 0,
  total,
  aiAssistant: 0,
  aiSearch: 0,
  aiTraining: 0,
  aiOther: 0,
});
const point = (start: string, total: number) => ({ start, visitors: counts(total), views: counts(total) });

describe("the analytics chart's series over the whole range", () => {
  it('starts at the range’s start: the days before the first with data are zeros', () => {
    // What the API answers for "Last 7 days" in Berlin when the project's first view was on the 5th.
    const series: Series = {
      interval: 'day',
      points: [
        point('2025-03-05T00:00:00.000Z', 4),
        point('2025-03-06T00:00:00.000Z', 2),
        point('2025-03-07T00:00:00.000Z', 1),
      ],
    };
    const filled = fillSeries(series, {
      dateFrom: '2025-03-01T00:00:00+01:00',
      dateTo: '2025-03-08T00:00:00+01:00',
    });
    expect(filled.points.map((p) => [p.start, p.views.total])).toEqual([
      // The first bucket is cut to the range's start, as the API cuts it.
      ['2025-02-28T23:00:00.000Z', 0],
      ['2025-03-01T00:00:00.000Z', 0],
      ['2025-03-02T00:00:00.000Z', 0],
      ['2025-03-03T00:00:00.000Z', 0],
      ['2025-03-04T00:00:00.000Z', 0],
      ['2025-03-05T00:00:00.000Z', 4],
      ['2025-03-06T00:00:00.000Z', 2],
      ['2025-03-07T00:00:00.000Z', 1],
    ]);
    expect(filled.points[0]?.visitors).toEqual(counts(0));
  });

  it('ends at the range’s end, and leaves a complete series as it was', () => {
    const complete: Series = {
      interval: 'day',
      points: [point('2025-03-01T00:00:00.000Z', 1), point('2025-03-02T00:00:00.000Z', 3)],
    };
    const range = { dateFrom: '2025-03-01T00:00:00Z', dateTo: '2025-03-03T00:00:00Z' };
    expect(fillSeries(complete, range)).toEqual(complete);
    const early: Series = { interval: 'day', points: [point('2025-03-01T00:00:00.000Z', 1)] };
    expect(fillSeries(early, range).points.map((p) => [p.start, p.views.total])).toEqual([
      ['2025-03-01T00:00:00.000Z', 1],
      ['2025-03-02T00:00:00.000Z', 0],
    ]);
  });

  it('fills hours, and a range with no data at all', () => {
    const empty: Series = { interval: 'hour', points: [] };
    const filled = fillSeries(empty, {
      dateFrom: '2025-03-01T00:30:00+01:00',
      dateTo: '2025-03-01T03:00:00+01:00',
    });
    expect(filled.points.map((p) => p.start)).toEqual([
      '2025-02-28T23:30:00.000Z',
      '2025-03-01T00:00:00.000Z',
      '2025-03-01T01:00:00.000Z',
    ]);
    expect(filled.points.every((p) => p.views.total === 0 && p.visitors.total === 0)).toBe(true);
  });
});

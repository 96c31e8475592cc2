/**
 * The analytics page's server state: the export API's own routes through the session
 * (`/dashboard/api/v1/analytics/{projectId}/…`), same queries and so the same numbers.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Static } from 'typebox';
import type { BreakdownReport, Counts, PageRow, SeriesReport } from '../../../http/routes/analytics.ts';
import { api, seg } from '../../api/client.ts';
import { type DateRange, intervalFor, toQuery } from './date-range.ts';

export type CountsPayload = Static<typeof Counts>;
export type PageRowPayload = Static<typeof PageRow>;
export type Series = Static<typeof SeriesReport>;
export type Breakdown = Static<typeof BreakdownReport>;
export type Measure = 'visitors' | 'views';
export interface PagesReport {
  totals: CountsPayload;
  rows: PageRowPayload[];
  hasMore: boolean;
}

export const PAGE_SIZE = 25;

const analyticsPath = (projectId: string, report: string, query: Record<string, string>) =>
  `/v1/analytics/${seg(projectId)}/${report}?${new URLSearchParams(query)}`;

const key = (projectId: string, ...rest: unknown[]) => ['project', projectId, 'analytics', ...rest];

/** Unique visitors (or views) per page: a page of rows and the totals of the whole range. */
export function usePages(
  projectId: string,
  measure: Measure,
  range: DateRange,
  page: number,
  { limit = PAGE_SIZE, enabled = true }: { limit?: number; enabled?: boolean } = {},
) {
  return useQuery({
    queryKey: key(projectId, measure, range, page, limit),
    queryFn: async ({ signal }) => {
      const report = await api.get<
        { totals: CountsPayload; hasMore: boolean } & Record<Measure, PageRowPayload[]>
      >(
        analyticsPath(projectId, measure, {
          ...toQuery(range),
          limit: String(limit),
          offset: String(page * limit),
        }),
        { signal },
      );
      return { totals: report.totals, rows: report[measure], hasMore: report.hasMore } satisfies PagesReport;
    },
    // Paging keeps the last page on screen until the next one is there.
    placeholderData: keepPreviousData,
    enabled,
  });
}

export function useSeries(projectId: string, range: DateRange) {
  return useQuery({
    queryKey: key(projectId, 'timeseries', range),
    queryFn: ({ signal }) =>
      api.get<Series>(
        analyticsPath(projectId, 'timeseries', { ...toQuery(range), interval: intervalFor(range) }),
        {
          signal,
        },
      ),
  });
}

/** `enabled`: false until the parts above it have their data (it is the slower query). */
export function useBreakdown(projectId: string, range: DateRange, enabled: boolean) {
  return useQuery({
    enabled,
    queryKey: key(projectId, 'breakdown', range),
    queryFn: ({ signal }) =>
      api.get<Breakdown>(analyticsPath(projectId, 'breakdown', toQuery(range)), { signal }),
  });
}

/**
 * Views over the whole range, from the time series: a view falls in exactly one bucket (and is
 * human or AI), so the buckets add up to the views export's totals without asking for them.
 */
export function viewTotals(series: Series): CountsPayload {
  return series.points.reduce(
    (sum, point) => ({
      human: sum.human + point.views.human,
      ai: sum.ai + point.views.ai,
      total: sum.total + point.views.total,
    }),
    { human: 0, ai: 0, total: 0 },
  );
}

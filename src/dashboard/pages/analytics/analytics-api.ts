/**
 * The analytics page's server state: the export API's own routes through the session
 * (`/dashboard/api/v1/analytics/{projectId}/…`), same queries and so the same numbers.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Static } from 'typebox';
import type { BreakdownReport, Counts, PageRow, SeriesReport } from '../../../http/routes/analytics.ts';
import { api, seg } from '../../api/client.ts';
import { type DateRange, intervalFor, toQuery } from './date-range.ts';
import { fillSeries } from './series-fill.ts';

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

/** What every report is asked for: its days, and whether to count verified agents only. */
export interface ReportFilter {
  range: DateRange;
  verifiedOnly: boolean;
}

const analyticsPath = (projectId: string, report: string, query: Record<string, string>) =>
  `/v1/analytics/${seg(projectId)}/${report}?${new URLSearchParams(query)}`;

/** The filter's query parameters: verifiedOnly only when asked, so the default URL stays as it was. */
const filterQuery = ({ range, verifiedOnly }: ReportFilter) => ({
  ...toQuery(range),
  ...(verifiedOnly ? { verifiedOnly: 'true' } : {}),
});

const key = (projectId: string, ...rest: unknown[]) => ['project', projectId, 'analytics', ...rest];

/** Unique visitors (or views) per page: a page of rows and the totals of the whole range. */
export function usePages(
  projectId: string,
  measure: Measure,
  filter: ReportFilter,
  page: number,
  { limit = PAGE_SIZE, enabled = true }: { limit?: number; enabled?: boolean } = {},
) {
  return useQuery({
    queryKey: key(projectId, measure, filter, page, limit),
    queryFn: async ({ signal }) => {
      const report = await api.get<
        { totals: CountsPayload; hasMore: boolean } & Record<Measure, PageRowPayload[]>
      >(
        analyticsPath(projectId, measure, {
          ...filterQuery(filter),
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

/** The time series over the whole range: the days before the first with data are zeros. */
export function useSeries(projectId: string, filter: ReportFilter) {
  return useQuery({
    queryKey: key(projectId, 'timeseries', filter),
    queryFn: async ({ signal }) => {
      const series = await api.get<Series>(
        analyticsPath(projectId, 'timeseries', {
          ...filterQuery(filter),
          interval: intervalFor(filter.range),
        }),
        { signal },
      );
      return fillSeries(series, toQuery(filter.range));
    },
  });
}

/** `enabled`: false until the parts above it have their data (it is the slower query). */
export function useBreakdown(projectId: string, filter: ReportFilter, enabled: boolean) {
  return useQuery({
    enabled,
    queryKey: key(projectId, 'breakdown', filter),
    queryFn: ({ signal }) =>
      api.get<Breakdown>(analyticsPath(projectId, 'breakdown', filterQuery(filter)), { signal }),
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
      aiAssistant: sum.aiAssistant + point.views.aiAssistant,
      aiSearch: sum.aiSearch + point.views.aiSearch,
      aiTraining: sum.aiTraining + point.views.aiTraining,
      aiOther: sum.aiOther + point.views.aiOther,
    }),
    { human: 0, ai: 0, total: 0, aiAssistant: 0, aiSearch: 0, aiTraining: 0, aiOther: 0 },
  );
}

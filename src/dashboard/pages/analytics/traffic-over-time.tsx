/** The chart of visitors (or views) per day or hour, with its numbers as a table. */
import { lazy, Suspense, useId, useState } from 'react';
import { ErrorState, Loading } from '../../components/states.tsx';
import { type Measure, type ReportFilter, type Series, useSeries } from './analytics-api.ts';
import { fmt, NumbersTable, ReadyMark } from './numbers.tsx';

// uPlot comes in its own chunk, asked for as soon as this page loads: it arrives while the
// page's data is on its way, rather than after it.
const chartModule = import('./traffic-chart.tsx');
const TrafficChart = lazy(() => chartModule);

export function TrafficOverTime({
  projectId,
  filter,
  measure,
}: {
  projectId: string;
  filter: ReportFilter;
  measure: Measure;
}) {
  const series = useSeries(projectId, filter);
  const [drawnFor, setDrawnFor] = useState<Series | null>(null);
  const captionId = useId();
  if (series.isPending) return <Loading label="Loading the chart" />;
  if (series.isError) return <ErrorState error={series.error} onRetry={() => series.refetch()} />;
  const data = series.data;
  const daily = data.interval === 'day';
  const nothing = data.points.every((p) => p[measure].total === 0);
  const what = measure === 'visitors' ? 'Unique visitors' : 'Views';
  return (
    <figure
      className="figure"
      aria-labelledby={captionId}
      data-testid="traffic-chart"
      data-ready={nothing || drawnFor === data}
    >
      <ReadyMark name="analytics:chart-ready" when={nothing || drawnFor === data} />
      <figcaption id={captionId} className="figure__caption">
        {what} per {daily ? 'day' : 'hour'}, human and AI.{' '}
        {daily
          ? 'Each point is a UTC day (00:00–24:00 UTC); the first and last are cut to your dates.'
          : 'Each point is an hour, shown in your time zone.'}
      </figcaption>
      {nothing ? (
        <p className="muted">Nothing to draw on these days.</p>
      ) : (
        <Suspense fallback={<Loading label="Drawing the chart" />}>
          <TrafficChart series={data} measure={measure} onDrawn={() => setDrawnFor(data)} />
        </Suspense>
      )}
      <details className="figure__table">
        <summary>Show the numbers as a table</summary>
        <NumbersTable
          caption={`${what} per ${daily ? 'UTC day' : 'hour'}`}
          rows={data.points}
          rowKey={(point) => point.start}
          columns={[
            { header: daily ? 'Day (UTC)' : 'Hour', cell: (point) => pointLabel(point.start, daily) },
            { header: 'Human', cell: (point) => fmt(point[measure].human), align: 'end' },
            { header: 'AI', cell: (point) => fmt(point[measure].ai), align: 'end' },
            { header: 'Total', cell: (point) => fmt(point[measure].total), align: 'end' },
          ]}
        />
      </details>
    </figure>
  );
}

const utcDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const localHour = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const pointLabel = (start: string, daily: boolean) =>
  daily ? utcDay.format(new Date(start)) : localHour.format(new Date(start));

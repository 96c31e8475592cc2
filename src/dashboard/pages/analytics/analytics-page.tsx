/**
 * `/projects/{projectId}/analytics`: who reads the docs, people and AI, over the chosen days.
 * Every number comes from the export API's own routes (through the session), so the page and
 * the API agree. The address holds the choices (`?range=7d` or `?from=…&to=…`, `measure`,
 * `page`), so a view can be shared or reloaded.
 */
import { lazy, Suspense, useEffect, useId, useState } from 'react';
import { useParams, useSearchParams } from 'wouter';
import { useSettings } from '../../api/settings.ts';
import { Button } from '../../components/button.tsx';
import { Page, Section } from '../../components/page.tsx';
import { EmptyState, ErrorState, Loading, QueryView } from '../../components/states.tsx';
import { Table } from '../../components/table.tsx';
import {
  type Breakdown,
  type CountsPayload,
  type Measure,
  PAGE_SIZE,
  type Series,
  useBreakdown,
  usePages,
  useSeries,
  viewTotals,
} from './analytics-api.ts';
import {
  type DateRange,
  DEFAULT_PRESET,
  PRESETS,
  type PresetId,
  parseDate,
  presetRange,
} from './date-range.ts';
import { InstallGuide } from './install.tsx';
import { type RangeChoice, RangePicker } from './range-picker.tsx';
import './analytics.css';

// uPlot comes in its own chunk, asked for as soon as this page loads: it arrives while the
// page's data is on its way, rather than after it.
const chartModule = import('./traffic-chart.tsx');
const TrafficChart = lazy(() => chartModule);

const numbers = new Intl.NumberFormat();
const fmt = (value: number) => numbers.format(value);

/** Shorter, for the agents table's column of kinds. */
const CATEGORY_SHORT: Record<string, string> = {
  human: 'Person',
  ai: 'AI',
  ai_crawler: 'AI crawler',
  search: 'Search',
  bot: 'Bot',
};

const CATEGORY_LABEL: Record<string, string> = {
  human: 'People',
  ai: 'AI assistants and agents',
  ai_crawler: 'AI crawlers',
  search: 'Search engines',
  bot: 'Other bots',
};

export default function AnalyticsPage() {
  const { projectId } = useParams<{ projectId: string }>();
  const [params, setParams] = useSearchParams();
  const choice = choiceFrom(params);
  // Query keys compare by value: a range computed anew each render asks nothing again.
  const range = 'preset' in choice ? presetRange(choice.preset) : choice.custom;
  const measure: Measure = params.get('measure') === 'views' ? 'views' : 'visitors';
  const page = Math.max(0, Number.parseInt(params.get('page') ?? '1', 10) - 1 || 0);

  const update = (change: Record<string, string | null>) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [name, value] of Object.entries(change)) {
          if (value === null) next.delete(name);
          else next.set(name, value);
        }
        return next;
      },
      { replace: true },
    );
  const choose = (next: RangeChoice) =>
    update(
      'preset' in next
        ? { range: next.preset === DEFAULT_PRESET ? null : next.preset, from: null, to: null, page: null }
        : { range: null, from: next.custom.from, to: next.custom.to, page: null },
    );

  // The page asks only for what it shows: views per page only when they are chosen (the views
  // export is the slowest on a large project), the views' totals from the time series, and the
  // breakdown (below the fold) once the chart and the top pages have their data.
  const series = useSeries(projectId, range);
  const visitors = usePages(projectId, 'visitors', range, measure === 'visitors' ? page : 0);
  const views = usePages(projectId, 'views', range, page, { enabled: measure === 'views' });
  const pages = measure === 'visitors' ? visitors : views;
  const settings = useSettings(projectId);
  const viewsTotals = series.data ? viewTotals(series.data) : undefined;
  const empty = visitors.data?.totals.total === 0 && viewsTotals?.total === 0;
  const aboveReady = !series.isPending && !pages.isPending;

  return (
    <Page title="Analytics" description="Who reads the docs: people, and AI assistants, agents and crawlers.">
      <div className="analytics-controls">
        <RangePicker key={JSON.stringify(choice)} choice={choice} range={range} onChange={choose} />
        <MeasureSwitch
          measure={measure}
          onChange={(next) => update({ measure: next === 'visitors' ? null : next, page: null })}
        />
      </div>

      <Totals visitors={visitors.data?.totals} views={viewsTotals} error={visitors.error ?? series.error} />

      {empty && (
        <EmptyState title="No traffic on these days">
          <p>Choose other dates, or send the docs site's traffic here: see “Get traffic in” below.</p>
        </EmptyState>
      )}

      <Section title="Over time">
        <TrafficOverTime projectId={projectId} range={range} measure={measure} />
      </Section>

      <Section
        title="Top pages"
        description={measure === 'visitors' ? 'Unique visitors per page.' : 'Views per page.'}
      >
        <QueryView query={pages} label="Loading the pages">
          {(report) => (
            <div
              className="top-pages"
              data-testid="top-pages"
              data-ready={!pages.isPlaceholderData}
              aria-busy={pages.isPlaceholderData}
            >
              <ReadyMark name="analytics:top-pages-ready" when={!pages.isPlaceholderData} />
              {report.rows.length === 0 ? (
                <EmptyState title={page === 0 ? 'No pages on these days' : 'No more pages'} />
              ) : (
                <NumbersTable
                  caption={`Top pages by ${measure === 'visitors' ? 'unique visitors' : 'views'}, rows ${page * PAGE_SIZE + 1} to ${page * PAGE_SIZE + report.rows.length}`}
                  rows={report.rows}
                  rowKey={(row) => row.path}
                  columns={[
                    { header: 'Page', cell: (row) => <span className="wrap page-path">{row.path}</span> },
                    { header: 'Human', cell: (row) => fmt(row.human), align: 'end' },
                    { header: 'AI', cell: (row) => fmt(row.ai), align: 'end' },
                    { header: 'Total', cell: (row) => <strong>{fmt(row.total)}</strong>, align: 'end' },
                  ]}
                />
              )}
              <nav className="pager" aria-label="Top pages">
                <Button
                  small
                  disabled={page === 0}
                  onClick={() => update({ page: page <= 1 ? null : String(page) })}
                >
                  Previous
                </Button>
                <span className="muted">
                  {report.rows.length > 0
                    ? `Rows ${fmt(page * PAGE_SIZE + 1)}–${fmt(page * PAGE_SIZE + report.rows.length)}`
                    : `Page ${page + 1}`}
                </span>
                <Button small disabled={!report.hasMore} onClick={() => update({ page: String(page + 2) })}>
                  Next
                </Button>
              </nav>
            </div>
          )}
        </QueryView>
      </Section>

      <BreakdownSection
        projectId={projectId}
        range={range}
        enabled={aboveReady}
        crawlersAsAi={settings.data?.analytics.countAiCrawlersAsAi ?? null}
      />

      <Section
        title="Get traffic in"
        description="Three ways to send the docs site's traffic here, with this project's values."
      >
        <QueryView query={settings} label="Loading the project's settings">
          {(data) => <InstallGuide projectId={projectId} settings={data} />}
        </QueryView>
      </Section>
    </Page>
  );
}

/**
 * A `performance.mark` each time a part of the page has its data on screen: the benchmark
 * (bench/dashboard/analytics-page.ts) times the page by them, as `data-ready` shows it to tests.
 */
function ReadyMark({ name, when }: { name: string; when: boolean }) {
  useEffect(() => {
    if (when) performance.mark(name);
  }, [name, when]);
  return null;
}

/** The shared table, kept a table on a phone (see analytics.css). */
function NumbersTable<Row>(props: Parameters<typeof Table<Row>>[0]) {
  return (
    <div className="numbers-table">
      <Table {...props} />
    </div>
  );
}

function choiceFrom(params: URLSearchParams): RangeChoice {
  const from = params.get('from');
  const to = params.get('to');
  if (from && to && parseDate(from) && parseDate(to) && from <= to) return { custom: { from, to } };
  const preset = params.get('range');
  return { preset: PRESETS.some((p) => p.id === preset) ? (preset as PresetId) : DEFAULT_PRESET };
}

function MeasureSwitch({ measure, onChange }: { measure: Measure; onChange: (measure: Measure) => void }) {
  const name = useId();
  return (
    <fieldset className="segmented">
      <legend className="field__label">Count</legend>
      <div className="segmented__options">
        {(
          [
            ['visitors', 'Unique visitors'],
            ['views', 'Views'],
          ] as const
        ).map(([value, label]) => (
          <label key={value} className="segmented__option">
            <input
              type="radio"
              name={name}
              value={value}
              checked={measure === value}
              onChange={() => onChange(value)}
            />
            <span>{label}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function Totals({
  visitors,
  views,
  error,
}: {
  visitors: CountsPayload | undefined;
  views: CountsPayload | undefined;
  error: unknown;
}) {
  if (error) return <ErrorState error={error} />;
  return (
    <ul className="totals" aria-label="Totals for these days">
      <Total label="Unique visitors" counts={visitors} testId="total-visitors" />
      <Total label="Views" counts={views} testId="total-views" />
    </ul>
  );
}

function Total({
  label,
  counts,
  testId,
}: {
  label: string;
  counts: CountsPayload | undefined;
  testId: string;
}) {
  return (
    <li className="total" data-testid={testId}>
      <p className="total__label">{label}</p>
      {counts ? (
        <>
          <p className="total__value" data-count="total">
            {fmt(counts.total)}
          </p>
          <p className="total__split">
            <span>
              <span className="chart-swatch chart-swatch--human" aria-hidden="true" /> Human{' '}
              <strong data-count="human">{fmt(counts.human)}</strong>
            </span>
            <span>
              <span className="chart-swatch chart-swatch--ai" aria-hidden="true" /> AI{' '}
              <strong data-count="ai">{fmt(counts.ai)}</strong>
            </span>
          </p>
        </>
      ) : (
        <p className="total__value muted">…</p>
      )}
    </li>
  );
}

function TrafficOverTime({
  projectId,
  range,
  measure,
}: {
  projectId: string;
  range: DateRange;
  measure: Measure;
}) {
  const series = useSeries(projectId, range);
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

function BreakdownSection({
  projectId,
  range,
  enabled,
  crawlersAsAi,
}: {
  projectId: string;
  range: DateRange;
  enabled: boolean;
  crawlersAsAi: boolean | null;
}) {
  const breakdown = useBreakdown(projectId, range, enabled);
  return (
    <Section
      title="Who reads"
      description={
        crawlersAsAi === null
          ? 'By kind of reader, by operator and by agent.'
          : `By kind of reader, by operator and by agent. AI crawlers ${crawlersAsAi ? 'count' : 'do not count'} as AI in the totals (a setting).`
      }
    >
      <QueryView query={breakdown} label="Loading the breakdown">
        {(data) => <BreakdownTables breakdown={data} />}
      </QueryView>
    </Section>
  );
}

const AGENTS_SHOWN = 10;

function BreakdownTables({ breakdown }: { breakdown: Breakdown }) {
  const [allAgents, setAllAgents] = useState(false);
  const categories = breakdown.categories.filter((c) => c.views > 0);
  const agents = allAgents ? breakdown.agents : breakdown.agents.slice(0, AGENTS_SHOWN);
  if (categories.length === 0) return <EmptyState title="No readers on these days" />;
  return (
    <div className="breakdown" data-testid="breakdown">
      <div className="breakdown__kinds">
        <NumbersTable
          caption="Readers by kind"
          rows={categories}
          rowKey={(row) => row.category}
          columns={[
            { header: 'Kind', cell: (row) => CATEGORY_LABEL[row.category] ?? row.category },
            { header: 'Visitors', cell: (row) => fmt(row.visitors), align: 'end' },
            { header: 'Views', cell: (row) => fmt(row.views), align: 'end' },
          ]}
        />
        {breakdown.operators.length > 0 && (
          <div className="breakdown__operators">
            <NumbersTable
              caption="Readers by operator (all of its agents: assistants, crawlers, search)"
              rows={breakdown.operators}
              rowKey={(row) => row.operator}
              columns={[
                { header: 'Operator', cell: (row) => <span className="wrap">{row.operator}</span> },
                { header: 'Visitors', cell: (row) => fmt(row.visitors), align: 'end' },
                { header: 'Views', cell: (row) => fmt(row.views), align: 'end' },
              ]}
            />
          </div>
        )}
      </div>
      {breakdown.agents.length > 0 && (
        <div className="breakdown__agents">
          <NumbersTable
            caption="Readers by agent"
            rows={agents}
            rowKey={(row) => `${row.category}:${row.agent}`}
            columns={[
              { header: 'Agent', cell: (row) => <span className="wrap">{row.agent}</span> },
              { header: 'Kind', cell: (row) => CATEGORY_SHORT[row.category] ?? row.category },
              { header: 'Visitors', cell: (row) => fmt(row.visitors), align: 'end' },
              { header: 'Views', cell: (row) => fmt(row.views), align: 'end' },
            ]}
          />
          {breakdown.agents.length > AGENTS_SHOWN && (
            <Button small onClick={() => setAllAgents((all) => !all)}>
              {allAgents ? 'Show fewer agents' : `Show all ${fmt(breakdown.agents.length)} agents`}
            </Button>
          )}
        </div>
      )}
    </div>
  );
}

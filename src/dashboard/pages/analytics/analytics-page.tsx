/**
 * `/projects/{projectId}/analytics`: who reads the docs, people and AI, over the chosen days.
 * Every number comes from the export API's own routes (through the session), so the page and
 * the API agree. The address holds the choices (`?range=7d` or `?from=…&to=…`, `measure`,
 * `page`), so a view can be shared or reloaded.
 */
import { useId } from 'react';
import { useParams, useSearchParams } from 'wouter';
import { useSettings } from '../../api/settings.ts';
import { Button } from '../../components/button.tsx';
import { CheckboxField } from '../../components/field.tsx';
import { Page, Section } from '../../components/page.tsx';
import { EmptyState, QueryView } from '../../components/states.tsx';
import { type Measure, PAGE_SIZE, usePages, useSeries, viewTotals } from './analytics-api.ts';
import { BreakdownSection } from './breakdown.tsx';
import { DEFAULT_PRESET, PRESETS, type PresetId, parseDate, presetRange, toQuery } from './date-range.ts';
import { InstallGuide } from './install.tsx';
import { fmt, NumbersTable, ReadyMark } from './numbers.tsx';
import { pageColumns } from './page-columns.tsx';
import { type RangeChoice, RangePicker } from './range-picker.tsx';
import { Totals } from './totals.tsx';
import { TrafficOverTime } from './traffic-over-time.tsx';
import { rotationOf, visitorCountNote } from './visitor-periods.ts';
import './analytics.css';

export default function AnalyticsPage() {
  const { projectId } = useParams<{ projectId: string }>();
  const [params, setParams] = useSearchParams();
  const choice = choiceFrom(params);
  // Query keys compare by value: a range computed anew each render asks nothing again.
  const range = 'preset' in choice ? presetRange(choice.preset) : choice.custom;
  const measure: Measure = params.get('measure') === 'views' ? 'views' : 'visitors';
  const page = Math.max(0, Number.parseInt(params.get('page') ?? '1', 10) - 1 || 0);
  // `verified=1`: count agents only when their operator's published IP ranges confirm them.
  const verifiedOnly = params.get('verified') === '1';
  const filter = { range, verifiedOnly };

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
  const series = useSeries(projectId, filter);
  const visitors = usePages(projectId, 'visitors', filter, measure === 'visitors' ? page : 0);
  const views = usePages(projectId, 'views', filter, page, { enabled: measure === 'views' });
  const pages = measure === 'visitors' ? visitors : views;
  const settings = useSettings(projectId);
  const viewsTotals = series.data ? viewTotals(series.data) : undefined;
  const empty = visitors.data?.totals.total === 0 && viewsTotals?.total === 0;
  const crawlersAsAi = settings.data?.analytics.countAiCrawlersAsAi ?? null;
  const note = settings.data ? visitorCountNote(rotationOf(settings.data), toQuery(range)) : null;
  const aboveReady = !series.isPending && !pages.isPending;

  return (
    <Page title="Analytics" description="Who reads the docs: people, and AI assistants, agents and crawlers.">
      <div className="analytics-controls">
        <RangePicker key={JSON.stringify(choice)} choice={choice} range={range} onChange={choose} />
        <MeasureSwitch
          measure={measure}
          onChange={(next) => update({ measure: next === 'visitors' ? null : next, page: null })}
        />
        <div className="analytics-controls__verified">
          <CheckboxField
            label="Verified agents only"
            hint="Count an AI agent or search engine only when its request came from the addresses its operator publishes; the others count as bots."
            checked={verifiedOnly}
            onChange={(event) => update({ verified: event.currentTarget.checked ? '1' : null, page: null })}
          />
        </div>
      </div>

      <Totals
        visitors={visitors.data?.totals}
        views={viewsTotals}
        error={visitors.error ?? series.error}
        crawlersAsAi={crawlersAsAi}
        note={note}
      />

      {empty && (
        <EmptyState title="No traffic on these days">
          <p>Choose other dates, or send the docs site's traffic here: see “Get traffic in” below.</p>
        </EmptyState>
      )}

      <Section title="Over time">
        <TrafficOverTime projectId={projectId} filter={filter} measure={measure} />
      </Section>

      <Section
        title="Top pages"
        description={[
          measure === 'visitors' ? 'Unique visitors per page.' : 'Views per page.',
          crawlersAsAi === true &&
            'AI counts AI crawlers too (a setting); the last four columns split it by purpose.',
          crawlersAsAi === false &&
            'AI crawlers are not counted in AI or Total (a setting): their columns come after Total.',
        ]
          .filter(Boolean)
          .join(' ')}
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
                  phone="cards"
                  caption={`Top pages by ${measure === 'visitors' ? 'unique visitors' : 'views'}, rows ${page * PAGE_SIZE + 1} to ${page * PAGE_SIZE + report.rows.length}`}
                  rows={report.rows}
                  rowKey={(row) => row.path}
                  columns={pageColumns(crawlersAsAi)}
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
        filter={filter}
        enabled={aboveReady}
        crawlersAsAi={crawlersAsAi}
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

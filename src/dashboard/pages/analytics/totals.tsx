/**
 * The totals of the chosen days: visitors and views, human and AI, and the AI crawlers. Every
 * group of parts adds up to the number it sits beside: with the default setting AI counts
 * assistants and agents only, and the crawlers (which `ai` and `total` leave out) are shown apart
 * with their own total; when the project counts crawlers as AI, AI is split by purpose.
 */
import type { ReactNode } from 'react';
import { ErrorState } from '../../components/states.tsx';
import type { CountsPayload } from './analytics-api.ts';
import { fmt } from './numbers.tsx';

export function Totals({
  visitors,
  views,
  error,
  crawlersAsAi,
  note,
}: {
  visitors: CountsPayload | undefined;
  views: CountsPayload | undefined;
  error: unknown;
  /** The project's `countAiCrawlersAsAi`; null until its settings are read. */
  crawlersAsAi: boolean | null;
  /** What a unique visitor is over these days (the salt rotation), when it matters. */
  note: string | null;
}) {
  if (error) return <ErrorState error={error} />;
  return (
    <div className="totals-block">
      <ul className="totals" aria-label="Totals for these days">
        <Total
          label="Unique visitors"
          counts={visitors}
          crawlersAsAi={crawlersAsAi}
          testId="total-visitors"
        />
        <Total label="Views" counts={views} crawlersAsAi={crawlersAsAi} testId="total-views" />
      </ul>
      {note && (
        <p className="totals__note muted" data-testid="visitor-count-note">
          {note}
        </p>
      )}
    </div>
  );
}

/**
 * The crawlers' traffic: the sum of the three purposes only crawlers have (every `ai` view is an
 * assistant's, every `ai_crawler` view another purpose's). Exact for views; for visitors too,
 * since an address and user agent is one agent of one purpose, unless callers send their own
 * `visitorId` for crawlers of two purposes.
 */
export const crawlerCount = (counts: CountsPayload) => counts.aiSearch + counts.aiTraining + counts.aiOther;

const SEARCH = [
  'aiSearch',
  'AI search',
  'Building an AI search index: OAI-SearchBot, Claude-SearchBot, PerplexityBot',
];
const TRAINING = ['aiTraining', 'Training', 'Collecting training data: GPTBot, ClaudeBot, CCBot'];
const OTHER = ['aiOther', 'Other', 'Another purpose, or none stated'];
const ASSISTANTS = [
  'aiAssistant',
  'Assistants',
  'Fetching for a person now: ChatGPT-User, Claude-User, Claude Code',
];
type Purpose = [keyof CountsPayload, string, string];

function Total({
  label,
  counts,
  crawlersAsAi,
  testId,
}: {
  label: string;
  counts: CountsPayload | undefined;
  crawlersAsAi: boolean | null;
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
          {crawlersAsAi === true && (
            <Parts
              sumOf="ai"
              title="AI by purpose, crawlers included (a setting)"
              counts={counts}
              purposes={[ASSISTANTS, SEARCH, TRAINING, OTHER] as Purpose[]}
            />
          )}
          {crawlersAsAi === false && (
            <Parts
              sumOf="aiCrawlers"
              title={
                <>
                  AI crawlers, not counted in AI (a setting):{' '}
                  <strong data-count="aiCrawlers">{fmt(crawlerCount(counts))}</strong>
                </>
              }
              counts={counts}
              purposes={[SEARCH, TRAINING, OTHER] as Purpose[]}
            />
          )}
        </>
      ) : (
        <p className="total__value muted">…</p>
      )}
    </li>
  );
}

/** A number's parts, by purpose; `data-sum-of` names the count they add up to. */
function Parts({
  sumOf,
  title,
  counts,
  purposes,
}: {
  sumOf: string;
  title: ReactNode;
  counts: CountsPayload;
  purposes: Purpose[];
}) {
  return (
    <div className="purposes">
      <p className="purposes__title">{title}</p>
      <dl className="purposes__list" data-sum-of={sumOf}>
        {purposes.map(([key, label, hint]) => (
          <div key={key} className="purposes__item" title={hint}>
            <dt>{label}</dt>
            <dd data-count={key}>{fmt(counts[key])}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

/** The totals of the chosen days: visitors and views, human and AI, and AI by purpose. */
import { ErrorState } from '../../components/states.tsx';
import type { CountsPayload } from './analytics-api.ts';
import { fmt } from './numbers.tsx';

export function Totals({
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
          <PurposeSplit counts={counts} />
        </>
      ) : (
        <p className="total__value muted">…</p>
      )}
    </li>
  );
}

/** Whom the AI traffic works for; crawlers are included here whatever the crawler setting. */
const PURPOSES = [
  ['aiAssistant', 'Assistants', 'Fetching for a person now: ChatGPT-User, Claude-User, Perplexity-User'],
  ['aiSearch', 'AI search', 'Building an AI search index: OAI-SearchBot, Claude-SearchBot, PerplexityBot'],
  ['aiTraining', 'Training', 'Collecting training data: GPTBot, ClaudeBot, CCBot'],
  ['aiOther', 'Other', 'Another purpose, or none stated'],
] as const;

function PurposeSplit({ counts }: { counts: CountsPayload }) {
  return (
    <div className="purposes">
      <p className="purposes__title">AI by purpose, crawlers included</p>
      <dl className="purposes__list">
        {PURPOSES.map(([key, label, hint]) => (
          <div key={key} className="purposes__item" title={hint}>
            <dt>{label}</dt>
            <dd data-count={key}>{fmt(counts[key])}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

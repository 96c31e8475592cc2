/**
 * A job's conversation: per turn, the prompt, what the agent said and did (tool steps folded,
 * their input and output a click away), where it set its plan (folded too), its notes and
 * validation findings, and the turn's end:
 * status, summary or error, token usage. Never as HTML: the agent's words and the summary are
 * Markdown, rendered as React elements (markdown-text.tsx); everything else is plain text.
 */
import { lazy, Suspense, useState } from 'react';
import { formatDateTime, formatUsd } from '../../components/format.tsx';
import { WarningIcon } from '../../components/icons.tsx';
import type { Conversation, Message, PlanEvent, Step, Turn } from './job-api.ts';
import { TurnStatusBadge } from './job-status.tsx';
import { PlanEntry } from './plan.tsx';

// react-markdown and its parser (about 34 KB gzipped) come in their own chunk, asked for as soon
// as the job page loads: it arrives while the conversation is on its way. Until then, the text as it is.
const markdownModule = import('./markdown-text.tsx');
const LazyMarkdown = lazy(() => markdownModule);

function MarkdownText({ text }: { text: string }) {
  return (
    <Suspense fallback={<p className="text">{text}</p>}>
      <LazyMarkdown text={text} />
    </Suspense>
  );
}

const FINDINGS_PREFIX = 'Validation findings introduced by this change:';
/** Longer tool output is cut on screen (a whole file read), with a button for the rest. */
const OUTPUT_PREVIEW_CHARS = 4000;

const numbers = new Intl.NumberFormat();

/** What the conversation shows of a message or a live event. */
type EntryData = Pick<Message, 'role' | 'text' | 'tool'> & { plan?: Message['plan'] };

export function ConversationView({
  conversation,
  steps,
  plans,
}: {
  conversation: Conversation;
  steps: { id: number; step: Step }[];
  plans: { id: number; plan: PlanEvent }[];
}) {
  const turns = [...conversation.turns].sort((a, b) => a.turn - b.turn);
  return (
    <ol className="turns" aria-label="Conversation">
      {turns.map((turn) => {
        const messages = conversation.messages.filter((m) => m.turn === turn.turn && m.role !== 'user');
        // Steps show the running turn until its messages are stored; of its plans, the last, where
        // it was set, as the turn will store it.
        const live: { id: number; entry: EntryData }[] = [];
        if (messages.length === 0) {
          for (const { id, step } of steps) if (step.turn === turn.turn) live.push({ id, entry: step });
          const plan = plans.findLast((p) => p.plan.turn === turn.turn);
          if (plan) {
            const entry: EntryData = {
              role: 'plan',
              text: null,
              tool: null,
              plan: { items: plan.plan.items },
            };
            live.push({ id: plan.id, entry });
            live.sort((a, b) => a.id - b.id);
          }
        }
        return (
          <li key={turn.turn} className="turn" data-turn={turn.turn} data-turn-status={turn.status}>
            <TurnView turn={turn} messages={messages} steps={live} />
          </li>
        );
      })}
    </ol>
  );
}

function TurnView({
  turn,
  messages,
  steps,
}: {
  turn: Turn;
  messages: Message[];
  steps: { id: number; entry: EntryData }[];
}) {
  return (
    <article className="turn__body" aria-label={`Turn ${turn.turn}`}>
      <div className="bubble bubble--user">
        <p className="bubble__who">
          {turn.turn === 1 ? 'Prompt' : `Follow-up ${turn.turn - 1}`}
          <time className="muted" dateTime={turn.createdAt}>
            {formatDateTime(turn.createdAt)}
          </time>
        </p>
        <p className="text">{turn.prompt}</p>
      </div>
      <div className="agent">
        {messages.map((message) => (
          <Entry key={message.id} entry={message} />
        ))}
        {steps.map(({ id, entry }) => (
          <Entry key={`step-${id}`} entry={entry} />
        ))}
        {turn.status === 'running' && (
          <p className="agent__working" role="status">
            <span className="spinner spinner--small" aria-hidden="true" />
            The agent is working…
          </p>
        )}
        {turn.status === 'pending' && (
          <p className="agent__working muted">
            {turn.attempts > 0 ? 'Waiting to try again…' : 'Queued: the agent starts on it shortly.'}
          </p>
        )}
      </div>
      <TurnEnd turn={turn} />
    </article>
  );
}

function Entry({ entry }: { entry: EntryData }) {
  if (entry.role === 'tool' && entry.tool) return <ToolStep tool={entry.tool} />;
  if (entry.role === 'plan') return entry.plan ? <PlanEntry plan={entry.plan} /> : null;
  const text = entry.text ?? '';
  if (entry.role === 'note' && text.startsWith(FINDINGS_PREFIX)) {
    return (
      <div className="callout callout--warning findings" data-testid="validation-findings">
        <p className="callout__title">
          <WarningIcon />
          Validation findings introduced by this change
        </p>
        <p className="text">{text.slice(FINDINGS_PREFIX.length).trim()}</p>
      </div>
    );
  }
  if (entry.role === 'note') return <p className="note text">{text}</p>;
  return (
    <div className="bubble bubble--agent">
      <p className="bubble__who">Agent</p>
      <MarkdownText text={text} />
    </div>
  );
}

function ToolStep({ tool }: { tool: NonNullable<Message['tool']> }) {
  const target = toolTarget(tool.input);
  const failed = tool.output.startsWith('Error:');
  return (
    <details className={`tool${failed ? ' tool--failed' : ''}`}>
      <summary className="tool__summary">
        <code className="tool__name">{tool.name}</code>
        {target && <span className="tool__target">{target}</span>}
        {failed && <span className="badge">error</span>}
      </summary>
      <div className="tool__detail">
        <p className="tool__label">Input</p>
        <ScrollBox label={`Input of ${tool.name}`}>{JSON.stringify(tool.input, null, 2)}</ScrollBox>
        <p className="tool__label">Output</p>
        <ToolOutput output={tool.output} name={tool.name} />
      </div>
    </details>
  );
}

/** Text in a box that scrolls when long; the keyboard can reach it to scroll it. */
function ScrollBox({ label, children }: { label: string; children: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
    <section className="scroll-box" tabIndex={0} aria-label={label}>
      <pre className="pre">{children}</pre>
    </section>
  );
}

function ToolOutput({ output, name }: { output: string; name: string }) {
  const [all, setAll] = useState(false);
  const long = output.length > OUTPUT_PREVIEW_CHARS;
  return (
    <>
      <ScrollBox label={`Output of ${name}`}>
        {long && !all ? `${output.slice(0, OUTPUT_PREVIEW_CHARS)}…` : output || '(empty)'}
      </ScrollBox>
      {long && !all && (
        <button type="button" className="link-button" onClick={() => setAll(true)}>
          Show all {numbers.format(output.length)} characters
        </button>
      )}
    </>
  );
}

/**
 * What a tool call was about, in a few words: the path, pattern or URL it was given, with the
 * connected repository it read (`api:src/cli.ts`) when it named one.
 */
export function toolTarget(input: unknown): string | null {
  if (typeof input !== 'object' || input === null) return null;
  const fields = input as Record<string, unknown>;
  const repository =
    typeof fields.repository === 'string' && fields.repository !== '' ? fields.repository : null;
  for (const name of ['path', 'pattern', 'url', 'query', 'summary']) {
    const value = fields[name];
    if (typeof value === 'string' && value !== '') {
      const target =
        repository && name === 'path'
          ? `${repository}:${value}`
          : repository
            ? `${value} in ${repository}`
            : value;
      return target.length > 80 ? `${target.slice(0, 79)}…` : target;
    }
  }
  return null;
}

function TurnEnd({ turn }: { turn: Turn }) {
  const finished = turn.status === 'succeeded' || turn.status === 'failed' || turn.status === 'cancelled';
  return (
    <footer className="turn__end">
      <TurnStatusBadge status={turn.status} />
      {turn.model && <span className="muted">{turn.model}</span>}
      {turn.usage && (
        <span className="muted" data-testid="turn-usage">
          {numbers.format(turn.usage.inputTokens)} input · {numbers.format(turn.usage.outputTokens)} output
          tokens · {turn.usage.costUsd === null ? 'cost unknown' : `about ${formatUsd(turn.usage.costUsd)}`}
        </span>
      )}
      {finished && turn.startedAt && turn.finishedAt && (
        <span className="muted">{duration(turn.startedAt, turn.finishedAt)}</span>
      )}
      {turn.attempts > 1 && <span className="muted">{turn.attempts} attempts</span>}
      {turn.summary && (
        <div className="turn__summary">
          <p className="tool__label">Summary</p>
          <MarkdownText text={turn.summary} />
        </div>
      )}
      {turn.error && (
        <p className="form-error text" role="note">
          {turn.error}
        </p>
      )}
    </footer>
  );
}

function duration(from: string, to: string): string {
  const seconds = Math.max(0, (new Date(to).getTime() - new Date(from).getTime()) / 1000);
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

/**
 * The agent's plan: a checklist it keeps up to date while it works (update_plan). The job page
 * shows the current turn's plan above the conversation, live; the conversation shows where the
 * turn's (last) plan was set, folded to one line. Each step's status is said in words, its mark
 * only helps.
 */
import { DateTime } from '../../components/format.tsx';
import type { Conversation, Plan, PlanEvent, PlanItem } from './job-api.ts';

const STATUS_LABEL: Record<PlanItem['status'], string> = {
  pending: 'Pending',
  in_progress: 'In progress',
  done: 'Done',
};

/** A turn's plan as the page shows it: the stored one, or the last update of the running turn. */
export interface ShownPlan {
  turn: number;
  items: PlanItem[];
  updatedAt: string;
}

/**
 * The plan of the job's current turn (the running one, else the newest): its stored plan once
 * the turn has ended, else its last live update; null when that turn has none (yet).
 */
export function currentPlan(
  conversation: Conversation,
  plans: { id: number; plan: PlanEvent }[],
): ShownPlan | null {
  const turns = conversation.turns;
  const current =
    turns.find((t) => t.status === 'running') ??
    turns.reduce<(typeof turns)[number] | undefined>((a, b) => (a && a.turn > b.turn ? a : b), undefined);
  if (!current) return null;
  const stored = conversation.messages.findLast((m) => m.turn === current.turn && m.role === 'plan');
  if (stored?.plan) return { turn: current.turn, items: stored.plan.items, updatedAt: stored.createdAt };
  const live = plans.findLast((p) => p.plan.turn === current.turn)?.plan;
  return live ? { turn: live.turn, items: live.items, updatedAt: live.createdAt } : null;
}

/** The current plan, above the conversation. */
export function PlanCard({ plan }: { plan: ShownPlan }) {
  return (
    <section className="plan-card" aria-labelledby="plan-title" data-testid="plan" data-turn={plan.turn}>
      <div className="plan-card__head">
        <h2 className="plan-card__title" id="plan-title">
          Plan
        </h2>
        <p className="muted plan-card__facts">
          {plan.turn > 1 && <span>Follow-up {plan.turn - 1} · </span>}
          <span data-testid="plan-progress">{progress(plan.items)}</span> · updated{' '}
          <DateTime iso={plan.updatedAt} style="relative" />
        </p>
      </div>
      <PlanChecklist items={plan.items} label="The agent's plan" />
    </section>
  );
}

/** Where the plan was set in the turn: one line (how far along, the step under way), the list a click away. */
export function PlanEntry({ plan }: { plan: Plan }) {
  const current = plan.items.find((item) => item.status === 'in_progress');
  return (
    <details className="tool plan-entry">
      <summary className="tool__summary">
        <span className="tool__name">Plan</span>
        <span className="muted">{progress(plan.items)}</span>
        {current && <span className="plan-entry__current">now: {current.title}</span>}
      </summary>
      <div className="tool__detail">
        <PlanChecklist items={plan.items} label="Plan" />
      </div>
    </details>
  );
}

function PlanChecklist({ items, label }: { items: PlanItem[]; label: string }) {
  return (
    <ol className="plan" aria-label={label}>
      {items.map((item, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a plan is replaced whole; its steps have no identity
        <li key={index} className={`plan__item plan__item--${item.status}`} data-status={item.status}>
          <StatusMark status={item.status} />
          <span className="plan__title">{item.title}</span>
          <span className="plan__status">{STATUS_LABEL[item.status]}</span>
        </li>
      ))}
    </ol>
  );
}

/** A check, a half-filled circle, an empty circle: shapes that differ without their colours. */
function StatusMark({ status }: { status: PlanItem['status'] }) {
  return (
    <svg
      className="plan__mark"
      viewBox="0 0 20 20"
      width="18"
      height="18"
      aria-hidden="true"
      focusable="false"
    >
      <circle
        cx="10"
        cy="10"
        r="8"
        fill={status === 'done' ? 'currentColor' : 'none'}
        stroke="currentColor"
        strokeWidth="2"
      />
      {status === 'done' && (
        <path
          d="M6 10.5l2.6 2.6L14 7.6"
          fill="none"
          stroke="var(--surface)"
          strokeWidth="2.2"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      )}
      {status === 'in_progress' && <path d="M10 2a8 8 0 0 1 0 16z" fill="currentColor" />}
    </svg>
  );
}

function progress(items: PlanItem[]): string {
  const done = items.filter((item) => item.status === 'done').length;
  return `${done} of ${items.length} done`;
}

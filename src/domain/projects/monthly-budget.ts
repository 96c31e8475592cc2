import type { Executor } from '../../storage/queries/executor.ts';
import { findProjectSpend } from '../../storage/queries/project-spend.ts';
import { DomainError } from '../errors.ts';
import type { ProjectSettings } from './project.ts';

/** A project's estimated spend this calendar month (UTC) against its monthly budget. */
export interface MonthlySpend {
  /** `2026-11`: the current calendar month, in UTC. */
  month: string;
  /** USD; null: no budget. */
  budgetUsd: number | null;
  /** Estimated USD of the turns recorded this month (those with a price). */
  spentUsd: number;
  /** Turns recorded this month whose model has no price: not in `spentUsd`. */
  unpricedTurns: number;
  /** The first day of the next month (`2026-12-01`), when the spend starts again from zero. */
  resetsOn: string;
  /** True once `spentUsd` has reached the budget: new turns are refused. */
  budgetSpent: boolean;
}

/** The calendar month of an instant, in UTC: `2026-11`. */
export function monthOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** The first day of the month after that of `at`, in UTC: `2026-12-01`. */
export function nextMonthStart(at: Date): string {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
}

/** The project's monthly budget in USD, or null for none. */
export function monthlyBudget(settings: ProjectSettings): number | null {
  const value = settings.monthlyBudgetUsd;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

export async function monthlySpend(
  db: Executor,
  project: { id: string; settings: ProjectSettings },
  now: Date,
): Promise<MonthlySpend> {
  const month = monthOf(now);
  const spend = await findProjectSpend(db, project.id, month);
  const budgetUsd = monthlyBudget(project.settings);
  return {
    month,
    budgetUsd,
    spentUsd: spend.costUsd,
    unpricedTurns: spend.unpricedTurns,
    resetsOn: nextMonthStart(now),
    budgetSpent: budgetUsd !== null && spend.costUsd >= budgetUsd,
  };
}

/** Why a new turn is refused, in words for the person who can act on it; null when it is not. */
export function budgetRefusal(spend: MonthlySpend): string | null {
  if (!spend.budgetSpent || spend.budgetUsd === null) return null;
  return (
    `Monthly budget of ${usd(spend.budgetUsd)} for this project is spent ` +
    `(${usd(spend.spentUsd)} used in ${spend.month}, UTC); ` +
    `raise it in Settings or wait until ${spend.resetsOn} (UTC)`
  );
}

/** Throws `budget_spent` (HTTP 402) when the project's monthly budget is spent. */
export async function assertBudgetLeft(
  db: Executor,
  project: { id: string; settings: ProjectSettings },
  now: Date,
): Promise<void> {
  const refusal = budgetRefusal(await monthlySpend(db, project, now));
  if (refusal !== null) throw new DomainError('budget_spent', refusal);
}

/** `$12.50`; amounts under a dollar keep four decimals (`$0.0042`) so small spends do not read as zero. */
export function usd(amount: number): string {
  return `$${amount >= 1 || amount === 0 ? amount.toFixed(2) : amount.toFixed(4)}`;
}

import { describe, expect, it } from 'vitest';
import {
  budgetRefusal,
  type MonthlySpend,
  monthlyBudget,
  monthOf,
  nextMonthStart,
  usd,
} from '../../../src/domain/projects/monthly-budget.ts';

describe('monthly budget', () => {
  it('counts calendar months in UTC', () => {
    expect(monthOf(new Date('2026-11-30T23:59:59.999Z'))).toBe('2026-11');
    expect(monthOf(new Date('2026-12-01T00:00:00.000Z'))).toBe('2026-12');
    // 00:30 on 1 December in Paris is still November in UTC.
    expect(monthOf(new Date('2026-12-01T00:30:00+01:00'))).toBe('2026-11');
    expect(nextMonthStart(new Date('2026-11-25T10:00:00Z'))).toBe('2026-12-01');
    expect(nextMonthStart(new Date('2026-12-31T23:00:00Z'))).toBe('2027-01-01');
  });

  it('reads only a non-negative number as a budget', () => {
    expect(monthlyBudget({ monthlyBudgetUsd: 25 })).toBe(25);
    expect(monthlyBudget({ monthlyBudgetUsd: 0 })).toBe(0);
    expect(monthlyBudget({})).toBeNull();
    expect(monthlyBudget(JSON.parse('{"monthlyBudgetUsd": "25"}'))).toBeNull();
    expect(monthlyBudget({ monthlyBudgetUsd: -1 })).toBeNull();
  });

  it('refuses once the spend reaches the budget, saying how much, which month and what to do', () => {
    const spend: MonthlySpend = {
      month: '2026-11',
      budgetUsd: 5,
      spentUsd: 5.004,
      unpricedTurns: 0,
      resetsOn: '2026-12-01',
      budgetSpent: true,
    };
    expect(budgetRefusal(spend)).toBe(
      'Monthly budget of $5.00 for this project is spent ($5.00 used in 2026-11, UTC); raise it in Settings or wait until 2026-12-01 (UTC)',
    );
    expect(budgetRefusal({ ...spend, spentUsd: 4.99, budgetSpent: false })).toBeNull();
    expect(budgetRefusal({ ...spend, budgetUsd: null, budgetSpent: false })).toBeNull();
  });

  it('writes small amounts with enough decimals not to read as zero', () => {
    expect(usd(0)).toBe('$0.00');
    expect(usd(0.0042)).toBe('$0.0042');
    expect(usd(12.5)).toBe('$12.50');
  });
});

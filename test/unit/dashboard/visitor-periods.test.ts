import { describe, expect, it } from 'vitest';
import { saltPeriods, visitorCountNote } from '../../../src/dashboard/pages/analytics/visitor-periods.ts';

// A range as the page sends it: whole local days, the end exclusive.
const berlinWeek = { dateFrom: '2025-03-01T00:00:00+01:00', dateTo: '2025-03-08T00:00:00+01:00' };
const utcDay = { dateFrom: '2025-03-03T00:00:00Z', dateTo: '2025-03-04T00:00:00Z' };

describe('what a unique visitor is over the chosen days (the salt rotation)', () => {
  it('counts the periods of the rotation the range touches, as the server keys visitors (UTC)', () => {
    // Berlin's 1 to 7 March starts at 23:00 UTC on 28 February: eight UTC days.
    expect(saltPeriods('daily', berlinWeek)).toBe(8);
    expect(saltPeriods('daily', utcDay)).toBe(1);
    // Monday-based weeks: 24 Feb to 2 Mar, and 3 to 9 Mar.
    expect(saltPeriods('weekly', berlinWeek)).toBe(2);
    expect(saltPeriods('weekly', { dateFrom: '2025-03-03T00:00:00Z', dateTo: '2025-03-10T00:00:00Z' })).toBe(
      1,
    );
    expect(saltPeriods('monthly', berlinWeek)).toBe(2);
    expect(saltPeriods('monthly', { dateFrom: '2025-03-01T00:00:00Z', dateTo: '2025-04-01T00:00:00Z' })).toBe(
      1,
    );
    expect(saltPeriods('never', berlinWeek)).toBe(1);
  });

  it('says a visitor counts once per day when the range spans several, and nothing when it does not', () => {
    expect(visitorCountNote('daily', berlinWeek)).toMatch(
      /^A visitor counts once per UTC day: .*visitor-days, not people\.$/,
    );
    expect(visitorCountNote('weekly', berlinWeek)).toMatch(/once per week \(Monday to Sunday, UTC\)/);
    expect(visitorCountNote('daily', utcDay)).toBeNull();
    expect(
      visitorCountNote('monthly', { dateFrom: '2025-03-01T00:00:00Z', dateTo: '2025-04-01T00:00:00Z' }),
    ).toBeNull();
    expect(visitorCountNote('never', berlinWeek)).toBeNull();
  });
});

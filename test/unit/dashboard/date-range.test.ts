import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  intervalFor,
  parseDate,
  presetRange,
  rangeDays,
  rangeProblem,
  startOfDayIso,
  timeZoneLabel,
  toQuery,
} from '../../../src/dashboard/pages/analytics/date-range.ts';

// Node reads TZ again whenever it is assigned, so each block runs in the viewer's zone it names.
const originalTz = process.env.TZ;
const inZone = (zone: string) => {
  beforeAll(() => {
    process.env.TZ = zone;
  });
  afterAll(() => {
    if (originalTz === undefined) delete process.env.TZ;
    else process.env.TZ = originalTz;
  });
};

describe('the analytics date range, in Berlin', () => {
  inZone('Europe/Berlin');

  it('sends whole local days with the offset of each end, across a daylight-saving change', () => {
    expect(toQuery({ from: '2025-03-30', to: '2025-03-30' })).toEqual({
      dateFrom: '2025-03-30T00:00:00+01:00',
      dateTo: '2025-03-31T00:00:00+02:00',
    });
    expect(toQuery({ from: '2025-01-01', to: '2025-01-31' })).toEqual({
      dateFrom: '2025-01-01T00:00:00+01:00',
      dateTo: '2025-02-01T00:00:00+01:00',
    });
    expect(rangeDays({ from: '2025-03-29', to: '2025-03-31' })).toBe(3);
    expect(timeZoneLabel(new Date('2025-07-01T12:00:00Z'))).toBe('Europe/Berlin (UTC+02:00)');
  });

  it('computes the presets from the viewer’s today, not UTC’s', () => {
    // 23:30 UTC on 31 March is already 1 April in Berlin.
    const now = new Date('2025-03-31T23:30:00Z');
    expect(presetRange('today', now)).toEqual({ from: '2025-04-01', to: '2025-04-01' });
    expect(presetRange('yesterday', now)).toEqual({ from: '2025-03-31', to: '2025-03-31' });
    expect(presetRange('7d', now)).toEqual({ from: '2025-03-26', to: '2025-04-01' });
    expect(presetRange('30d', now)).toEqual({ from: '2025-03-03', to: '2025-04-01' });
    expect(presetRange('90d', now)).toEqual({ from: '2025-01-02', to: '2025-04-01' });
    expect(presetRange('month', now)).toEqual({ from: '2025-04-01', to: '2025-04-01' });
    expect(presetRange('last-month', now)).toEqual({ from: '2025-03-01', to: '2025-03-31' });
    expect(presetRange('last-month', new Date('2025-01-15T12:00:00Z'))).toEqual({
      from: '2024-12-01',
      to: '2024-12-31',
    });
  });
});

describe('the analytics date range, west of UTC', () => {
  inZone('America/Los_Angeles');

  it('uses the negative offset, and "today" is still the viewer’s day', () => {
    const now = new Date('2025-06-02T03:00:00Z'); // 1 June, 20:00 in Los Angeles
    const today = presetRange('today', now);
    expect(today).toEqual({ from: '2025-06-01', to: '2025-06-01' });
    expect(toQuery(today)).toEqual({
      dateFrom: '2025-06-01T00:00:00-07:00',
      dateTo: '2025-06-02T00:00:00-07:00',
    });
  });
});

describe('the analytics date range, where a day starts at 01:00', () => {
  // Santiago moved its clocks from 00:00 to 01:00 on 8 September 2024: that day had no midnight.
  inZone('America/Santiago');

  it('starts the day at the first time that exists', () => {
    expect(startOfDayIso('2024-09-08')).toBe('2024-09-08T01:00:00-03:00');
    expect(startOfDayIso('2024-09-07')).toBe('2024-09-07T00:00:00-04:00');
  });
});

describe('date range checks', () => {
  it('refuses dates that do not exist and ranges that end before they start', () => {
    expect(parseDate('2025-02-30')).toBeNull();
    expect(parseDate('2025-2-3')).toBeNull();
    expect(parseDate('2024-02-29')?.getDate()).toBe(29);
    expect(rangeProblem({ from: '', to: '2025-01-01' })).toBe('Choose a start date');
    expect(rangeProblem({ from: '2025-01-02', to: '2025-01-01' })).toBe(
      'The end date is before the start date',
    );
    expect(rangeProblem({ from: '2025-01-01', to: '2025-01-01' })).toBeNull();
  });

  it('shows hours for a day or two, days beyond', () => {
    expect(intervalFor({ from: '2025-01-01', to: '2025-01-01' })).toBe('hour');
    expect(intervalFor({ from: '2025-01-01', to: '2025-01-02' })).toBe('hour');
    expect(intervalFor({ from: '2025-01-01', to: '2025-01-03' })).toBe('day');
  });
});

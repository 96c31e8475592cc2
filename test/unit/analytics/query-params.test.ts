import { describe, expect, it } from 'vitest';
import {
  parsePageParams,
  parseRangeParams,
  parseSeriesParams,
} from '../../../src/domain/analytics/query-params.ts';
import { parseDateOrDateTime, parseDateTime } from '../../../src/domain/analytics/timestamps.ts';

describe('timestamps', () => {
  it.each([
    ['2025-03-01', '2025-03-01T00:00:00.000Z'],
    ['2025-03-01T00:00:00Z', '2025-03-01T00:00:00.000Z'],
    ['2025-03-01T02:00:00+02:00', '2025-03-01T00:00:00.000Z'],
    ['2025-02-28T19:00:00-05:00', '2025-03-01T00:00:00.000Z'],
    ['2025-03-01T05:30+05:30', '2025-03-01T00:00:00.000Z'],
    ['2025-03-01T00:00:00.123456Z', '2025-03-01T00:00:00.123Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
  ])('%s is %s', (text, iso) => {
    expect(new Date(parseDateOrDateTime(text) ?? Number.NaN).toISOString()).toBe(iso);
  });

  it.each([
    '2025-02-29',
    '2025-13-01',
    '2025-03-01T24:00:00Z',
    '2025-03-01T10:00:00',
    'yesterday',
    '2025-3-1',
    '',
  ])('rejects %j', (text) => {
    expect(parseDateOrDateTime(text)).toBeNull();
  });

  it('accepts only date-times for events', () => {
    expect(parseDateTime('2025-03-01')).toBeNull();
  });

  it('checks each date, whatever was parsed before (dates are remembered)', () => {
    for (let i = 0; i < 2; i++) {
      expect(parseDateTime('2024-02-29T23:59:59.999Z')).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 999));
      expect(parseDateTime('2024-02-29T01:02:03+02:00')).toBe(Date.UTC(2024, 1, 28, 23, 2, 3));
      expect(parseDateTime('2025-02-29T10:00:00Z')).toBeNull();
      expect(parseDateTime('2024-02-30T10:00:00Z')).toBeNull();
    }
  });
});

describe('UTC date-times in their usual shape (read without the regex)', () => {
  it('agree with Date.parse on random instants, with and without milliseconds', () => {
    let seed = 7;
    const next = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    for (let i = 0; i < 2000; i++) {
      const ms = Date.UTC(1990, 0, 1) + (next() % 40_000) * 86_400_000 + (next() % 86_400_000);
      const iso = new Date(ms).toISOString();
      expect(parseDateTime(iso)).toBe(ms);
      const seconds = `${iso.slice(0, 19)}Z`;
      expect(parseDateTime(seconds)).toBe(Date.parse(seconds));
    }
  });

  it.each([
    '2025-13-01T00:00:00Z',
    '2025-00-10T00:00:00Z',
    '2025-04-31T00:00:00.000Z',
    '2025-01-01T24:00:00Z',
    '2025-01-01T00:60:00Z',
    '2025-01-01T00:00:60.000Z',
    '2025-0a-01T00:00:00Z',
    '2025-01-01T00:00:00.00aZ',
    '2025-01-01X00:00:00.000Z',
  ])('rejects %j', (text) => {
    expect(parseDateTime(text)).toBeNull();
  });
});

describe('export parameters', () => {
  it('defaults to unbounded, limit 50, offset 0', () => {
    expect(parsePageParams({})).toEqual({
      ok: true,
      value: { range: { from: null, to: null }, limit: 50, offset: 0, verifiedOnly: false },
    });
  });

  it('reads verifiedOnly on every export: true, false or absent (false)', () => {
    for (const parse of [parsePageParams, parseSeriesParams, parseRangeParams]) {
      expect(parse({ verifiedOnly: 'true' })).toMatchObject({ ok: true, value: { verifiedOnly: true } });
      expect(parse({ verifiedOnly: 'false' })).toMatchObject({ ok: true, value: { verifiedOnly: false } });
      expect(parse({})).toMatchObject({ ok: true, value: { verifiedOnly: false } });
      expect(parse({ verifiedOnly: 'yes' })).toEqual({
        ok: false,
        issues: [{ parameter: 'verifiedOnly', message: 'verifiedOnly must be true or false (got "yes")' }],
      });
    }
  });

  it.each([
    [{ limit: '0' }, 'limit', /limit must be an integer from 1 to 250/],
    [{ limit: '251' }, 'limit', /limit/],
    [{ limit: '2.5' }, 'limit', /limit/],
    [{ limit: 'ten' }, 'limit', /got "ten"/],
    [{ offset: '-1' }, 'offset', /offset must be an integer of 0 or more/],
    [{ offset: ['1', '2'] }, 'offset', /offset must be given once/],
    [{ dateFrom: '2025-02-30' }, 'dateFrom', /dateFrom must be a date/],
    [{ dateTo: 'tomorrow' }, 'dateTo', /dateTo must be a date/],
    [{ dateFrom: '2025-03-02', dateTo: '2025-03-02' }, 'dateFrom', /dateFrom must be before dateTo/],
    [{ dateFrom: '2025-03-02T00:00:00+01:00', dateTo: '2025-03-01T23:00:00Z' }, 'dateFrom', /before/],
    [{ verifiedOnly: '1' }, 'verifiedOnly', /verifiedOnly must be true or false \(got "1"\)/],
    [{ verifiedOnly: ['true', 'true'] }, 'verifiedOnly', /verifiedOnly must be given once/],
  ])('%j is rejected, naming %s', (raw, parameter, message) => {
    const parsed = parsePageParams(raw);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues).toHaveLength(1);
    expect(parsed.issues[0]?.parameter).toBe(parameter);
    expect(parsed.issues[0]?.message).toMatch(message);
  });

  it('reports every bad parameter at once', () => {
    const parsed = parsePageParams({ limit: 'x', offset: 'y', dateFrom: 'z' });
    expect(parsed.ok ? [] : parsed.issues.map((i) => i.parameter)).toEqual(['dateFrom', 'limit', 'offset']);
  });

  it('checks the series interval', () => {
    expect(parseSeriesParams({ interval: 'hour' }).ok).toBe(true);
    expect(parseSeriesParams({ interval: 'week' }).ok).toBe(false);
  });
});

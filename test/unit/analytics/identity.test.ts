import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type SaltSource,
  saltExpired,
  saltPeriod,
  VisitorIdentity,
} from '../../../src/domain/analytics/identity.ts';

class MemorySalts implements SaltSource {
  readonly salts = new Map<string, Buffer>();
  async salt(period: string): Promise<Buffer> {
    let salt = this.salts.get(period);
    if (!salt) {
      salt = randomBytes(32);
      this.salts.set(period, salt);
    }
    return salt;
  }
}

const UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const t = (iso: string) => Date.parse(iso);

async function identity(rotation: 'daily' | 'weekly' | 'monthly' | 'never', salts = new MemorySalts()) {
  const id = new VisitorIdentity({ rotation, salts });
  await id.prepare(['visitor-id']);
  return id;
}

describe('saltPeriod', () => {
  it('names days, Monday-based weeks, months, or one period', () => {
    expect(saltPeriod('daily', t('2025-03-14T23:59:59.999Z'))).toBe('2025-03-14');
    expect(saltPeriod('daily', t('2025-03-15T00:00:00Z'))).toBe('2025-03-15');
    expect(saltPeriod('weekly', t('2025-03-16T12:00:00Z'))).toBe('week-2025-03-10'); // Sunday
    expect(saltPeriod('weekly', t('2025-03-17T00:00:00Z'))).toBe('week-2025-03-17'); // Monday
    expect(saltPeriod('monthly', t('2025-03-31T23:00:00Z'))).toBe('2025-03');
    expect(saltPeriod('never', t('2025-03-31T23:00:00Z'))).toBe('never');
  });
});

describe('saltExpired', () => {
  const now = t('2025-03-20T12:00:00Z');
  it('expires a period the retention after it ended, never before', () => {
    // 2025-03-10 ends at 03-11T00:00; with 7 days, kept until 03-18T00:00.
    expect(saltExpired('2025-03-10', t('2025-03-17T23:59:59Z'), 7)).toBe(false);
    expect(saltExpired('2025-03-10', t('2025-03-18T00:00:00Z'), 7)).toBe(true);
    expect(saltExpired('2025-03-19', now, 1)).toBe(false);
    expect(saltExpired('2025-03-18', now, 1)).toBe(true);
  });

  it('reads weekly and monthly periods by their end', () => {
    expect(saltExpired('week-2025-03-10', now, 4)).toBe(false); // ends 03-17: with 4 days, kept until 03-21
    expect(saltExpired('week-2025-03-10', now, 3)).toBe(true); // with 3 days, until 03-20T00:00
    expect(saltExpired('2025-02', now, 17)).toBe(true); // ends 03-01
    expect(saltExpired('2025-02', now, 20)).toBe(false);
    expect(saltExpired('2024-12', now, 7)).toBe(true); // ends 2025-01-01
  });

  it('never expires the single salt of never, nor the fixed salt of caller-given ids', () => {
    expect(saltExpired('never', now, 1)).toBe(false);
    expect(saltExpired('visitor-id', now, 1)).toBe(false);
  });
});

describe('VisitorIdentity', () => {
  it('gives the same (project, IP, UA) one key within a period and another in the next', async () => {
    const id = await identity('daily');
    const a = t('2025-03-14T08:00:00Z');
    const b = t('2025-03-14T20:00:00Z');
    const next = t('2025-03-15T08:00:00Z');
    await id.prepare([id.periodOf(a), id.periodOf(next)]);
    const key = (timestamp: number, ip = '203.0.113.7', ua = UA, projectId = 'prj_a') =>
      id.key({ projectId, timestamp, ip, userAgent: ua }).toString('hex');
    expect(key(a)).toBe(key(b));
    expect(key(a)).toHaveLength(32);
    expect(key(a)).not.toBe(key(next));
    expect(key(a)).not.toBe(key(a, '203.0.113.8'));
    expect(key(a)).not.toBe(key(a, undefined, `${UA} x`));
    expect(key(a)).not.toBe(key(a, undefined, undefined, 'prj_b'));
  });

  it('keeps identities across restarts because salts are stored, and never across rotations with never', async () => {
    const salts = new MemorySalts();
    const first = await identity('never', salts);
    const second = await identity('never', salts);
    const jan = t('2025-01-01T00:00:00Z');
    const dec = t('2025-12-31T00:00:00Z');
    await first.prepare(['never']);
    await second.prepare(['never']);
    const input = { projectId: 'prj_a', ip: '2001:db8::1', userAgent: UA };
    expect(first.key({ ...input, timestamp: jan }).equals(second.key({ ...input, timestamp: dec }))).toBe(
      true,
    );
  });

  it('uses the caller visitorId instead of the IP and user agent, hashed per project', async () => {
    const id = await identity('daily');
    const a = id.key({
      projectId: 'p',
      timestamp: t('2025-01-01T00:00:00Z'),
      visitorId: 'u1',
      ip: '1.1.1.1',
      userAgent: 'x',
    });
    const b = id.key({
      projectId: 'p',
      timestamp: t('2025-06-01T00:00:00Z'),
      visitorId: 'u1',
      ip: '2.2.2.2',
      userAgent: 'y',
    });
    const other = id.key({
      projectId: 'q',
      timestamp: t('2025-01-01T00:00:00Z'),
      visitorId: 'u1',
      userAgent: 'x',
    });
    expect(a.equals(b)).toBe(true);
    expect(a.equals(other)).toBe(false);
    expect(a.toString('latin1')).not.toContain('u1');
  });

  it('derives keys as HMAC-SHA256 under the period salt (RFC 2104), for any salt and message length', async () => {
    for (const saltLength of [16, 32, 64, 100]) {
      const salts = new MemorySalts();
      salts.salts.set('never', randomBytes(saltLength));
      const id = await identity('never', salts);
      await id.prepare(['never']);
      for (const userAgent of [UA, 'ü→🤖 agent', 'x'.repeat(3000)]) {
        const expected = createHmac('sha256', salts.salts.get('never') as Buffer)
          .update(`p\u00001.2.3.4\u0000${userAgent}`)
          .digest()
          .subarray(0, 12);
        const key = id.key({ projectId: 'p', timestamp: 0, ip: '1.2.3.4', userAgent });
        expect(key.subarray(4)).toEqual(expected);
      }
    }
  });

  it('keys a project by its own rotation, even where two rotations start a period on the same day', async () => {
    const id = await identity('daily');
    const monday1st = t('2025-09-01T10:00:00Z'); // the first of a month, and a Monday
    const salts = await id.prepare([
      id.periodOf(monday1st, 'weekly'),
      id.periodOf(monday1st, 'monthly'),
      id.periodOf(monday1st),
    ]);
    expect(id.periodOf(monday1st, 'weekly')).toBe('week-2025-09-01');
    expect(id.periodOf(monday1st, 'monthly')).toBe('2025-09');
    const weekly = id.anonymousKey('prj_1', monday1st, '203.0.113.1', UA, salts, 'weekly');
    const monthly = id.anonymousKey('prj_1', monday1st, '203.0.113.1', UA, salts, 'monthly');
    const daily = id.anonymousKey('prj_1', monday1st, '203.0.113.1', UA, salts);
    expect(new Set([weekly, monthly, daily].map((k) => k.toString('hex'))).size).toBe(3);
    // Each is the same key when asked again, whatever came in between.
    expect(id.anonymousKey('prj_1', monday1st, '203.0.113.1', UA, salts, 'weekly')).toEqual(weekly);
  });

  it('refuses to hash without the period salt', async () => {
    const id = await identity('daily');
    expect(() => id.key({ projectId: 'p', timestamp: 0, ip: '1.1.1.1', userAgent: UA })).toThrow(
      /not prepared/,
    );
  });

  it('keys a prepared batch with its salts even if they are forgotten (pruned) meanwhile', async () => {
    const id = await identity('daily');
    const day = t('2025-03-14T08:00:00Z');
    const batch = await id.prepare([id.periodOf(day)]);
    const input = { projectId: 'p', timestamp: day, ip: '1.1.1.1', userAgent: UA };
    const before = id.key(input, batch);
    id.forget([id.periodOf(day)]);
    expect(id.key(input, batch).equals(before)).toBe(true);
    expect(() => id.key({ ...input, ip: '2.2.2.2' })).toThrow(/not prepared/);
  });
});

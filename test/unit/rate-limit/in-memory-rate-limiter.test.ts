import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors.ts';
import { InMemoryRateLimiter } from '../../../src/domain/rate-limit/in-memory-rate-limiter.ts';

function limiter(options: { limit: number; maxKeys?: number }) {
  const clock = { now: new Date('2026-01-01T12:00:10.000Z') };
  const instance = new InMemoryRateLimiter({ clock: () => clock.now, windowSeconds: 60, ...options });
  return { clock, limiter: instance };
}

function refusal(run: () => void): DomainError | null {
  try {
    run();
    return null;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

describe('InMemoryRateLimiter', () => {
  it('allows `limit` hits per key per window, then refuses with the seconds left in the window', () => {
    const { limiter: l } = limiter({ limit: 2 });
    l.hit('a');
    l.hit('a');
    const error = refusal(() => l.hit('a'));
    expect(error?.kind).toBe('rate_limited');
    expect(error?.retryAfterSeconds).toBe(50);
    expect(refusal(() => l.hit('b'))).toBeNull();
  });

  it('drops every count of the old window when a new one starts', () => {
    const { clock, limiter: l } = limiter({ limit: 1 });
    for (let i = 0; i < 1000; i++) l.hit(`ip-${i}`);
    expect(l.size).toBe(1000);
    expect(refusal(() => l.hit('ip-0'))).not.toBeNull();
    clock.now = new Date('2026-01-01T12:01:00.000Z');
    expect(refusal(() => l.hit('ip-0'))).toBeNull();
    expect(l.size).toBe(1);
  });

  it('tracks at most maxKeys keys under a flood of distinct clients, forgetting the least recently seen', () => {
    const { limiter: l } = limiter({ limit: 1, maxKeys: 100 });
    l.hit('busy');
    for (let i = 0; i < 10_000; i++) {
      l.hit(`flood-${i}`);
      expect(refusal(() => l.hit('busy'))).not.toBeNull(); // seen again: kept, still over
      expect(l.size).toBeLessThanOrEqual(100);
    }
    expect(l.size).toBe(100);
    // The oldest flood keys were forgotten (they start again from zero); recent ones are kept.
    expect(refusal(() => l.hit('flood-0'))).toBeNull();
    expect(refusal(() => l.hit('flood-9999'))).not.toBeNull();
  });

  it('counts nothing when the limit is 0', () => {
    const { limiter: l } = limiter({ limit: 0 });
    for (let i = 0; i < 1000; i++) l.hit('a');
    expect(l.size).toBe(0);
  });

  it('refuses nonsensical settings', () => {
    expect(() => limiter({ limit: -1 })).toThrow(RangeError);
    expect(() => limiter({ limit: 1, maxKeys: 0 })).toThrow(RangeError);
  });
});

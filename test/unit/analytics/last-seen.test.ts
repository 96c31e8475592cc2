import { describe, expect, it } from 'vitest';
import { LastSeen } from '../../../src/integrations/analytics/embedded/prev-list.ts';

describe('LastSeen (the last-seen tables of (page, visitor) pairs)', () => {
  it('keeps every pair and its days through growth, whatever room was reserved', () => {
    for (const expected of [0, 5, 100]) {
      const seen = new LastSeen(4);
      for (let page = 1; page <= 700; page++) seen.reserve(page, expected);
      const reference = new Map<string, number[]>();
      // Pseudo-random pairs with repeats, more than the table starts with, so it grows.
      let x = 12345;
      for (let i = 0; i < 20_000; i++) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        const page = 1 + (x % 700);
        const visitor = (x >>> 10) % 300;
        const k = i % 4;
        const day = 20_000 + (i % 50);
        seen.setDay(seen.slot(page, visitor), k, day);
        const days = reference.get(`${page}:${visitor}`) ?? [0, 0, 0, 0];
        days[k] = day;
        reference.set(`${page}:${visitor}`, days);
      }
      expect(seen.size).toBe(reference.size);
      const stored = new Map<string, number[]>();
      for (const pair of reference.keys()) {
        const [page, visitor] = pair.split(':').map(Number) as [number, number];
        const slot = seen.slot(page, visitor);
        stored.set(
          pair,
          [0, 1, 2, 3].map((k) => seen.day(slot, k)),
        );
      }
      expect(stored).toEqual(reference);
      expect(seen.size).toBe(reference.size);
    }
  });
});

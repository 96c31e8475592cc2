import { describe, expect, it } from 'vitest';
import { KeySet } from '../../../src/integrations/analytics/embedded/key-set.ts';

describe('KeySet (the idempotency keys of a day)', () => {
  it('holds exactly the keys added, through growth from any starting size', () => {
    for (const expected of [0, 7, 1000, 50_000]) {
      const keys = new KeySet(expected);
      const reference = new Set<string>();
      let x = 987654321;
      const next = () => {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        return x;
      };
      for (let i = 0; i < 30_000; i++) {
        // A small range of words, so keys repeat and some share a word with another.
        const lo = next() % 20_000;
        const hi = i % 3 === 0 ? 0 : next() % 50;
        if (lo === 0 && hi === 0) continue;
        const fresh = !reference.has(`${lo}:${hi}`);
        expect(keys.add(lo, hi)).toBe(fresh);
        reference.add(`${lo}:${hi}`);
      }
      expect(keys.size).toBe(reference.size);
      for (const key of reference) {
        const [lo, hi] = key.split(':').map(Number) as [number, number];
        expect(keys.has(lo, hi)).toBe(true);
      }
      let absent = 0;
      for (let lo = 20_000; lo < 20_500; lo++) if (!keys.has(lo, 1)) absent++;
      expect(absent).toBe(500);
    }
  });

  it('stays within 13 bytes a key once it has grown', () => {
    const keys = new KeySet();
    for (let i = 1; i <= 67_000; i++) keys.add(Math.imul(i, 0x9e3779b1) >>> 0, i);
    expect(keys.size).toBe(67_000);
    expect(keys.bytes / keys.size).toBeLessThan(13);
  });
});

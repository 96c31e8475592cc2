import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CompactVisitorSet,
  expanded,
  membersOf,
} from '../../../src/integrations/analytics/embedded/compact-set.ts';
import { distinctCount, Marks, unionCounts } from '../../../src/integrations/analytics/embedded/counting.ts';
import { VisitorSet } from '../../../src/integrations/analytics/embedded/visitor-set.ts';

// Packed days keep their hour and agent sets compact, as gaps or as a bitmap over the span they
// cover: what comes back must be the same members (sorted, once each) and views, and the same
// counts in unions with ordinary sets, for gaps of every encoded length up to the largest number.
describe('compact visitor sets', () => {
  const sparse = fc.array(
    fc.oneof(
      fc.integer({ min: 0, max: 300 }),
      fc.integer({ min: 0, max: 2 ** 21 }),
      fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      fc.constantFrom(0, 127, 128, 16_383, 16_384, 2 ** 28 - 1, 2 ** 28, 2 ** 31, 2 ** 32 - 1),
    ),
    { maxLength: 400 },
  );
  // Many members in a narrow span somewhere: the bitmap form.
  const dense = fc
    .tuple(
      fc.integer({ min: 0, max: 5_000 }),
      fc.array(fc.integer({ min: 0, max: 600 }), { minLength: 150, maxLength: 800 }),
    )
    .map(([base, offsets]) => offsets.map((o) => base + o));
  const setOf = (visitors: number[], extraViews = 0) => {
    const set = new VisitorSet();
    for (const visitor of visitors) set.add(visitor);
    set.views += extraViews;
    return set;
  };

  it('expand to the set they were made from, in either form', () => {
    fc.assert(
      fc.property(fc.oneof(sparse, dense), fc.integer({ min: 0, max: 5 }), (visitors, extraViews) => {
        const compact = CompactVisitorSet.of(setOf(visitors, extraViews));
        const back = compact.expand();
        const expected = [...new Set(visitors)].sort((a, b) => a - b);
        expect([...back.values.subarray(0, back.length)]).toEqual(expected);
        expect(back.size()).toBe(expected.length);
        expect(compact.length).toBe(expected.length);
        expect(back.views).toBe(visitors.length + extraViews);
        expect(expanded(compact).views).toBe(back.views);
        expect(compact.byteLength).toBeLessThanOrEqual(5 * expected.length);
      }),
      { numRuns: 300 },
    );
  });

  it('count in unions as the sets they were made from', () => {
    const marks = new Marks();
    fc.assert(
      fc.property(
        fc.array(fc.oneof(dense, fc.array(fc.integer({ min: 0, max: 6_000 }), { maxLength: 50 })), {
          maxLength: 5,
        }),
        fc.array(fc.oneof(dense, fc.array(fc.integer({ min: 0, max: 6_000 }), { maxLength: 50 })), {
          maxLength: 3,
        }),
        (humanSides, aiSides) => {
          const universe = 6_000;
          const plain = (lists: number[][]) => lists.map((l) => setOf(l));
          const compact = (lists: number[][]) => lists.map((l) => membersOf(CompactVisitorSet.of(setOf(l))));
          const expected = unionCounts(marks, universe, plain(humanSides), plain(aiSides));
          expect(unionCounts(marks, universe, compact(humanSides), compact(aiSides))).toEqual(expected);
          expect(distinctCount(marks, universe, compact(humanSides))).toBe(new Set(humanSides.flat()).size);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('take one byte a member when the gaps are small, and a bit when the set is dense', () => {
    const busyHour = new VisitorSet();
    for (let v = 3; v < 30_000; v += 1 + (v % 127)) busyHour.add(v);
    const gaps = CompactVisitorSet.of(busyHour);
    expect(gaps.bitmap).toBeNull();
    expect(gaps.byteLength).toBe(busyHour.size());

    const readers = new VisitorSet();
    for (let v = 1_000_000; v < 1_064_000; v += 2) readers.add(v);
    const bitmap = CompactVisitorSet.of(readers);
    expect(bitmap.bitmap).not.toBeNull();
    // Over its own span (from visitor 1,000,000), not from 0.
    expect(bitmap.byteLength).toBe(64_000 / 8);
    expect(bitmap.expand().values).toEqual(readers.values.subarray(0, readers.size()));
  });

  it('decode into a larger array at an offset, leaving the rest alone', () => {
    const into = new Uint32Array(9).fill(7);
    CompactVisitorSet.of(setOf([5, 1, 900, 2 ** 32 - 1, 70_000])).decodeInto(into, 2);
    expect([...into]).toEqual([7, 7, 1, 5, 900, 70_000, 2 ** 32 - 1, 7, 7]);
  });

  it('leave a VisitorSet as it is', () => {
    const set = setOf([3]);
    expect(expanded(set)).toBe(set);
    expect(membersOf(set)).toBe(set);
  });
});

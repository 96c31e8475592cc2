import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_GROUP_VIEWS, takeGroup } from '../../../src/integrations/analytics/append-groups.ts';

interface Waiting {
  id: number;
  events: readonly unknown[];
}

describe('append groups (PostgreSQL and ClickHouse engines)', () => {
  it('take the waiting appends in order, each group within the bound unless one append alone exceeds it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 3_000 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 10_000 }),
        (sizes, maxViews) => {
          const queue: Waiting[] = sizes.map((size, id) => ({ id, events: new Array(size) }));
          const groups: Waiting[][] = [];
          while (queue.length > 0) groups.push(takeGroup(queue, maxViews));
          // Every append once, in the order it came.
          expect(groups.flat().map((w) => w.id)).toEqual(sizes.map((_size, id) => id));
          const views = groups.map((group) => group.reduce((sum, w) => sum + w.events.length, 0));
          // Within the bound, or one append alone.
          expect(groups.filter((group, i) => group.length > 1 && (views[i] as number) > maxViews)).toEqual(
            [],
          );
          // Full: no group ends while the next group's first append would have fitted.
          const notFull = groups
            .slice(1)
            .filter((group, i) => (views[i] as number) + (group[0] as Waiting).events.length <= maxViews);
          expect(notFull).toEqual([]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('give an append larger than the bound a group of its own', () => {
    const queue = [
      { events: new Array(5) },
      { events: new Array(MAX_GROUP_VIEWS + 1) },
      { events: new Array(5) },
    ];
    expect(takeGroup(queue, MAX_GROUP_VIEWS).map((w) => w.events.length)).toEqual([5]);
    expect(takeGroup(queue, MAX_GROUP_VIEWS).map((w) => w.events.length)).toEqual([MAX_GROUP_VIEWS + 1]);
    expect(takeGroup(queue, MAX_GROUP_VIEWS).map((w) => w.events.length)).toEqual([5]);
    expect(queue).toEqual([]);
  });
});

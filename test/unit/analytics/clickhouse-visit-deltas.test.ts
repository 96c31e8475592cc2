import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CLASS_COUNT,
  LATEST,
  NEVER,
  QUARTERS_PER_DAY,
  SIDE_MASKS,
} from '../../../src/integrations/analytics/clickhouse/classes.ts';
import {
  addView,
  type DayState,
  FIRST_VISITS,
  FROM_EDGES,
  type PairState,
  pairId,
  pairPage,
  TO_EDGES,
  visitDeltas,
} from '../../../src/integrations/analytics/clickhouse/visit-deltas.ts';

// visitDeltas derives only the rows a batch can change, shares rows between sides and keeps
// scratch space between pairs. The reference here derives every row of every side of a pair's
// whole history, before and after the batch, one side at a time, and takes the difference: the
// two must agree on every (kind, page, day, side, a, b).

/** A view: pair index, day offset, class number, quarter hour. */
type View = [number, number, number, number];

const PAIRS = [
  pairId('visitor-a.......', '/guide'),
  pairId('visitor-a.......', ''),
  pairId('visitor-b.......', '/guide'),
];
const DAY0 = 20_000;

function statesOf(views: readonly View[]): Map<string, PairState> {
  const states = new Map<string, PairState>();
  for (const [p, day, cls, quarter] of views) {
    const pair = PAIRS[p] as string;
    let state = states.get(pair);
    if (!state) {
      state = new Map();
      states.set(pair, state);
    }
    addView(state, DAY0 + day, cls, quarter);
  }
  return states;
}

function copyStates(states: Map<string, PairState>): Map<string, PairState> {
  const copy = new Map<string, PairState>();
  for (const [pair, state] of states) {
    const days: PairState = new Map();
    for (const [day, d] of state)
      days.set(day, { mask: d.mask, first: d.first.slice(), last: d.last.slice() });
    copy.set(pair, days);
  }
  return copy;
}

function span(d: DayState, classes: number): [number, number] {
  let first = QUARTERS_PER_DAY;
  let last = -1;
  for (let cls = 0; cls < CLASS_COUNT; cls++) {
    if ((d.mask & classes & (2 ** cls)) === 0) continue;
    first = Math.min(first, d.first[cls] as number);
    last = Math.max(last, d.last[cls] as number);
  }
  return [first, last];
}

/** Every count row of every side of `states`, one count per side, keyed kind|page|day|side|a|b. */
function allRows(states: Map<string, PairState>, into: Map<string, number>, sign: number): void {
  for (const [pair, state] of states) {
    for (const [side, mask] of SIDE_MASKS.entries()) {
      const days = [...state.keys()].filter((day) => ((state.get(day) as DayState).mask & mask) !== 0);
      days.sort((x, y) => x - y);
      for (const [i, day] of days.entries()) {
        const [first, last] = span(state.get(day) as DayState, mask);
        const prev = i > 0 ? (days[i - 1] as number) : NEVER;
        const next = i + 1 < days.length ? (days[i + 1] as number) : LATEST;
        const prevq =
          prev === NEVER ? NEVER : prev * QUARTERS_PER_DAY + span(state.get(prev) as DayState, mask)[1];
        for (const [kind, a, b] of [
          [FIRST_VISITS, prev, 0],
          [FROM_EDGES, last, next],
          [TO_EDGES, first, prevq],
        ]) {
          const key = `${kind}|${pairPage(pair)}|${day}|${side}|${a}|${b}`;
          into.set(key, (into.get(key) ?? 0) + sign);
        }
      }
    }
  }
}

function nonZero(sums: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...sums].filter(([, n]) => n !== 0).sort(([x], [y]) => (x < y ? -1 : 1)));
}

const view = fc.tuple(
  fc.integer({ min: 0, max: PAIRS.length - 1 }),
  fc.integer({ min: 0, max: 6 }),
  // Mostly human and two AI classes, sometimes any class.
  fc.oneof(fc.constantFrom(0, 1, 12), fc.integer({ min: 0, max: CLASS_COUNT - 1 })),
  fc.integer({ min: 0, max: QUARTERS_PER_DAY - 1 }),
);

describe('ClickHouse first-visit bookkeeping (visitDeltas)', () => {
  it('adds exactly the difference between the whole history derived before and after a batch', () => {
    fc.assert(
      fc.property(
        fc.array(view, { maxLength: 12 }),
        fc.array(view, { minLength: 1, maxLength: 12 }),
        (stored, batch) => {
          const before = statesOf(stored);
          const after = statesOf([...stored, ...batch]);
          const expected = new Map<string, number>();
          allRows(after, expected, 1);
          allRows(before, expected, -1);

          const known = copyStates(before);
          const { counts, pairDays } = visitDeltas(known, statesOf(batch));
          const got = new Map<string, number>();
          for (const c of counts)
            for (let side = 0; side < SIDE_MASKS.length; side++)
              if ((c.sides & (2 ** side)) !== 0) {
                const key = `${c.kind}|${c.page}|${c.day}|${side}|${c.a}|${c.b}`;
                got.set(key, (got.get(key) ?? 0) + c.n);
              }
          expect(nonZero(got)).toEqual(nonZero(expected));

          // pair_days rows: each (pair, day, class) whose span the batch widened, with its new span.
          const widened = new Set<string>();
          for (const [pair, state] of after)
            for (const [day, d] of state)
              for (let cls = 0; cls < CLASS_COUNT; cls++) {
                if ((d.mask & (2 ** cls)) === 0) continue;
                const old = before.get(pair)?.get(day);
                const had = old !== undefined && (old.mask & (2 ** cls)) !== 0;
                if (had && old.first[cls] === d.first[cls] && old.last[cls] === d.last[cls]) continue;
                widened.add(`${pair}|${day}|${cls}|${d.first[cls]}|${d.last[cls]}`);
              }
          expect(new Set(pairDays.map((r) => `${r.pair}|${r.day}|${r.cls}|${r.first}|${r.last}`))).toEqual(
            widened,
          );
          expect(pairDays).toHaveLength(widened.size);

          // `known` now holds the state after the batch: the same batch again adds nothing.
          const again = visitDeltas(known, statesOf(batch));
          expect(again.counts).toEqual([]);
          expect(again.pairDays).toEqual([]);
        },
      ),
      { numRuns: 1500 },
    );
  });
});

import type { RowBinaryReader } from './row-binary.ts';
import { addView, type PairState, pairId } from './visit-deltas.ts';

/**
 * The `pair_days` rows matching `where`, one per (page, visitor, day, class) with its span, in
 * the RowBinary layout `readPairStates` reads: for an append's lookup and a rebuild's ranges.
 */
export function pairDaysSql(db: string, where: string): string {
  return `SELECT visitor_hi, visitor_lo, page, day, cls, min(first), max(last) FROM ${db}.pair_days
    WHERE ${where}
    GROUP BY visitor_hi, visitor_lo, page, day, cls`;
}

/** `pairDaysSql`'s answer as each pair's state. */
export function readPairStates(answer: RowBinaryReader): Map<string, PairState> {
  const pairs = new Map<string, PairState>();
  while (!answer.done) {
    const pair = pairId(answer.uint64Latin1() + answer.uint64Latin1(), answer.string());
    const day = answer.int32();
    const cls = answer.uint8();
    const first = answer.uint8();
    const last = answer.uint8();
    let state = pairs.get(pair);
    if (!state) {
      state = new Map();
      pairs.set(pair, state);
    }
    addView(state, day, cls, first);
    addView(state, day, cls, last);
  }
  return pairs;
}

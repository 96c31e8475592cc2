import type { DayIndex } from './day-index.ts';
import { LastSeen } from './prev-list.ts';

/**
 * Recomputes, for every page list of every day (ascending), each visitor's previous visit and
 * drops repeats within a day; returns the last-seen table for the views still to come. Needed
 * after loading snapshots and after views arrived out of time order. O(entries): one pass per
 * page with a scratch array per side indexed by visitor number. Packed days are unpacked.
 */
export function rebuildPrevs(days: readonly DayIndex[], universe: number): LastSeen {
  for (const day of days) day.unpack();
  let entries = 0;
  const paths = new Set<number>();
  for (const day of days) {
    for (const [path, page] of day.pages) {
      paths.add(path);
      for (const list of page.lists) if (list) entries += list.length;
    }
  }
  const seen = new LastSeen(Math.ceil(entries / 2));
  const scratch = [new Uint16Array(universe), new Uint16Array(universe), new Uint16Array(universe)];
  for (const path of paths) {
    for (const day of days) {
      const page = day.pages.get(path);
      if (!page) continue;
      for (let side = 0; side < 3; side++) {
        const list = page.lists[side];
        if (!list) continue;
        const last = scratch[side] as Uint16Array;
        const values = list.values;
        const prev = list.prev;
        let kept = 0;
        for (let i = 0; i < list.length; i++) {
          const visitor = values[i] as number;
          const previous = last[visitor] as number;
          if (previous === day.day) continue;
          values[kept] = visitor;
          prev[kept] = previous;
          kept++;
          last[visitor] = day.day;
        }
        list.length = kept;
      }
    }
    // Record where each visitor of this page was last seen, and clear the scratch for the next.
    const [human, ai, total] = scratch as [Uint16Array, Uint16Array, Uint16Array];
    for (const day of days) {
      const page = day.pages.get(path);
      if (!page) continue;
      for (const list of page.lists) {
        if (!list) continue;
        for (let i = 0; i < list.length; i++) {
          const visitor = list.values[i] as number;
          if (human[visitor] === 0 && ai[visitor] === 0 && total[visitor] === 0) continue;
          const slot = seen.slot(path, visitor);
          seen.setDay(slot, 0, human[visitor] as number);
          seen.setDay(slot, 1, ai[visitor] as number);
          human[visitor] = 0;
          ai[visitor] = 0;
          total[visitor] = 0;
        }
      }
    }
  }
  return seen;
}

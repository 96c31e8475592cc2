// The packed form of a closed day's pages (PackedPages): every page's previous-visit lists in a
// few flat arrays, each list sorted by previous visit, and how counting reads them.
import type { QuarterCarrier, Quarters } from './edge-quarters.ts';
import { LIST_SIDES, SEGMENTS } from './index-layout.ts';
import { PrevList } from './prev-list.ts';
import type { VisitorSet } from './visitor-set.ts';

/**
 * One page on one day (see index-layout.ts): previous-visit lists, indexed by side
 * (0..LIST_SIDES−1), and plain visitor sets, indexed by segment − LIST_SIDES.
 */
export interface PageEntry {
  lists: Array<PrevList | null>;
  sets: Array<VisitorSet | null>;
}

/**
 * A closed day's pages packed into a few arrays (no per-list objects): page i's list side s
 * (index-layout.ts) is `values[offsets[LIST_SIDES·i + s] .. offsets[LIST_SIDES·i + s + 1])`,
 * with the previous visits at the same positions in `prev`. Each list is sorted by previous
 * visit, so the entries whose previous visit is before a day are a prefix found by binary
 * search (see `firstSince`). The plain sets (crawlers, verified agents) are rare: only the pages
 * that have any keep them, in `sets` by page index.
 */
export interface PackedPages {
  paths: Uint32Array;
  offsets: Uint32Array;
  values: Uint32Array;
  prev: Uint16Array;
  views: Uint32Array;
  sets: Map<number, Array<VisitorSet | null>>;
  /**
   * Each entry's first and last quarter hour on its side, for edges clipped on a quarter hour
   * (edge-quarters.ts): null until computed from the day's views (see ProjectIndexes.addQuarters).
   */
  quarters: Quarters | null;
}

/** A page with no list or set yet. */
export function emptyEntry(): PageEntry {
  return {
    lists: new Array(LIST_SIDES).fill(null),
    sets: new Array(SEGMENTS - LIST_SIDES).fill(null),
  };
}

/** Zeroed packed arrays for `pages` pages holding `entries` list entries in all. */
export function allocatePacked(pages: number, entries: number): PackedPages {
  return {
    paths: new Uint32Array(pages),
    offsets: new Uint32Array(pages * LIST_SIDES + 1),
    values: new Uint32Array(entries),
    prev: new Uint16Array(entries),
    views: new Uint32Array(pages * LIST_SIDES),
    sets: new Map(),
    quarters: null,
  };
}

/** Packs a day's pages (lists free of repeated visitors); the lists are left as they were. */
export function packPages(pages: ReadonlyMap<number, PageEntry>): PackedPages {
  let total = 0;
  let longest = 0;
  for (const page of pages.values()) {
    for (const list of page.lists) {
      if (!list) continue;
      total += list.length;
      if (list.length > longest) longest = list.length;
    }
  }
  const n = pages.size;
  const packed = allocatePacked(n, total);
  let i = 0;
  let at = 0;
  const scratch = new Float64Array(longest);
  for (const [path, page] of pages) {
    packed.paths[i] = path;
    for (let s = 0; s < LIST_SIDES; s++) {
      packed.offsets[i * LIST_SIDES + s] = at;
      const list = page.lists[s];
      if (!list) continue;
      packed.views[i * LIST_SIDES + s] = list.views;
      sortByPrev(list, packed.values, packed.prev, at, scratch);
      at += list.length;
    }
    if (page.sets.some((set) => set !== null)) packed.sets.set(i, page.sets);
    i++;
  }
  packed.offsets[n * LIST_SIDES] = at;
  return packed;
}

/** Every page of a packed day with its segments, as views into the packed arrays (not copies). */
export function* packedEntries(packed: PackedPages): Generator<[number, PageEntry]> {
  const { paths, offsets, values, prev, views, sets } = packed;
  for (let i = 0; i < paths.length; i++) {
    const entry = emptyEntry();
    for (let s = 0; s < LIST_SIDES; s++) {
      const start = offsets[i * LIST_SIDES + s] as number;
      const end = offsets[i * LIST_SIDES + s + 1] as number;
      const count = views[i * LIST_SIDES + s] as number;
      if (end === start && count === 0) continue;
      entry.lists[s] = PrevList.from(values.subarray(start, end), prev.subarray(start, end), count);
    }
    const pageSets = sets.get(i);
    if (pageSets) entry.sets = pageSets;
    yield [paths[i] as number, entry];
  }
}

/**
 * Writes a list's entries to `values`/`prev` at `at`, ordered by previous visit (then visitor):
 * each entry as one float64 key prev · 2³² + visitor, sorted natively.
 */
function sortByPrev(
  list: PrevList,
  values: Uint32Array,
  prev: Uint16Array,
  at: number,
  scratch: Float64Array,
): void {
  const n = list.length;
  const keys = scratch.subarray(0, n);
  for (let i = 0; i < n; i++) keys[i] = (list.prev[i] as number) * TWO_32 + (list.values[i] as number);
  keys.sort();
  for (let i = 0; i < n; i++) {
    const key = keys[i] as number;
    const p = Math.floor(key / TWO_32);
    prev[at + i] = p;
    values[at + i] = key - p * TWO_32;
  }
}

const TWO_32 = 2 ** 32;

/**
 * Sorts `values`/`prev[start, end)` by previous visit, then visitor, in place, unless they are
 * already; `scratch` must hold end − start numbers. A packed day's quarters go along through
 * `carrier`. Returns whether the entries moved.
 */
export function sortSegmentByPrev(
  values: Uint32Array,
  prev: Uint16Array,
  start: number,
  end: number,
  scratch: Float64Array,
  carrier: QuarterCarrier | null = null,
): boolean {
  let sorted = true;
  for (let i = start + 1; i < end && sorted; i++) {
    const a = prev[i - 1] as number;
    const b = prev[i] as number;
    if (a > b || (a === b && (values[i - 1] as number) > (values[i] as number))) sorted = false;
  }
  if (sorted) return false;
  carrier?.save(values, start, end);
  const keys = scratch.subarray(0, end - start);
  for (let i = start; i < end; i++) keys[i - start] = (prev[i] as number) * TWO_32 + (values[i] as number);
  keys.sort();
  for (let i = start; i < end; i++) {
    const key = keys[i - start] as number;
    const p = Math.floor(key / TWO_32);
    prev[i] = p;
    values[i] = key - p * TWO_32;
  }
  carrier?.restore(values, start, end);
  return true;
}

/**
 * The first position in `prev[start, end)` (sorted ascending) holding a day ≥ `day`: the
 * entries before it are those whose previous visit is before `day`.
 */
export function firstSince(prev: Uint16Array, start: number, end: number, day: number): number {
  let lo = start;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((prev[mid] as number) < day) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

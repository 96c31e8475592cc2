import { type LastSeen, PrevList, SIDE_AI, SIDE_HUMAN, SIDE_TOTAL } from './prev-list.ts';
import { VisitorSet } from './visitor-set.ts';

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
/** Category codes 0..2 (human, ai, ai_crawler) are counted per page and per hour. */
export const COUNTED_CATEGORIES = 3;
export const CATEGORY_COUNT = 5;
const CRAWLER = 2;

/** One page on one day: distinct visitors per side with their previous visits, and crawlers. */
export interface PageEntry {
  /** Indexed by SIDE_HUMAN, SIDE_AI, SIDE_TOTAL (human ∪ ai). */
  lists: Array<PrevList | null>;
  crawlers: VisitorSet | null;
}

/**
 * A closed day's page lists packed into a few arrays (no per-list objects): page i's human,
 * ai, total and crawler members are `values[offsets[4i + s] .. offsets[4i + s + 1])`, with
 * the previous visits at the same positions in `prev` (unused for crawlers). Each human, ai
 * and total list is sorted by previous visit, so the entries whose previous visit is before a
 * day are a prefix found by binary search (see `firstSince`).
 */
export interface PackedPages {
  paths: Uint32Array;
  offsets: Uint32Array;
  values: Uint32Array;
  prev: Uint16Array;
  views: Uint32Array;
}

/** How a day tells its project that a view arrived out of time order. */
export interface DayOwner {
  lastSeen: LastSeen;
  outOfOrder(day: number): void;
}

/**
 * Everything the exports need about one UTC day (or, for a range edge, part of one): per page
 * the visitor lists with previous visits, and visitor sets per category, per (agent, category)
 * and per (hour, category). `lastSeen` is the newest event in it, so a cached answer can tell
 * whether it is stale.
 */
export class DayIndex {
  readonly day: number;
  lastSeq = 0;
  /** Open days: one entry per page. Closed days keep `packed` instead (and this is empty). */
  readonly pages = new Map<number, PageEntry>();
  packed: PackedPages | null = null;
  readonly categories: Array<VisitorSet | null> = new Array(CATEGORY_COUNT).fill(null);
  /** Keyed by agent * 8 + category: a generic agent name can appear in two categories. */
  readonly agents = new Map<number, VisitorSet>();
  /** Indexed by hour * COUNTED_CATEGORIES + category. */
  readonly hours: Array<VisitorSet | null> = new Array(24 * COUNTED_CATEGORIES).fill(null);
  /**
   * A list may hold a visitor twice: a late view was added before the previous visits were
   * rebuilt (see rebuildPrevs, which removes the repeats and clears this).
   */
  repeats = false;
  /** Null for a partial day built for one query: its lists may repeat visitors. */
  private readonly owner: DayOwner | null;

  constructor(day: number, owner: DayOwner | null = null) {
    this.day = day;
    this.owner = owner;
  }

  addView(seq: number, ts: number, path: number, visitor: number, category: number, agent: number): void {
    if (this.packed) this.unpack();
    if (seq > this.lastSeq) this.lastSeq = seq;
    let set = this.categories[category];
    if (!set) {
      set = new VisitorSet();
      this.categories[category] = set;
    }
    set.add(visitor);

    const agentKey = agent * 8 + category;
    let agentSet = this.agents.get(agentKey);
    if (!agentSet) {
      agentSet = new VisitorSet();
      this.agents.set(agentKey, agentSet);
    }
    agentSet.add(visitor);

    if (category >= COUNTED_CATEGORIES) return;
    const hour = Math.floor((ts - this.day * DAY_MS) / HOUR_MS);
    const slot = hour * COUNTED_CATEGORIES + category;
    let hourSet = this.hours[slot];
    if (!hourSet) {
      hourSet = new VisitorSet();
      this.hours[slot] = hourSet;
    }
    hourSet.add(visitor);

    let page = this.pages.get(path);
    if (!page) {
      page = { lists: [null, null, null], crawlers: null };
      this.pages.set(path, page);
    }
    if (category === CRAWLER) {
      if (!page.crawlers) page.crawlers = new VisitorSet();
      page.crawlers.add(visitor);
      return;
    }
    const owner = this.owner;
    const at = owner ? owner.lastSeen.slot(path, visitor) : -1;
    // Total first: its last day is derived from the human and ai days before this view.
    this.addToSide(page, SIDE_TOTAL, visitor, at);
    this.addToSide(page, category === 0 ? SIDE_HUMAN : SIDE_AI, visitor, at);
  }

  private addToSide(page: PageEntry, side: number, visitor: number, at: number): void {
    let list = page.lists[side];
    if (!list) {
      list = new PrevList();
      page.lists[side] = list;
    }
    list.views++;
    const owner = this.owner;
    if (!owner) {
      list.push(visitor, 0);
      return;
    }
    const last = owner.lastSeen.day(at, side);
    if (last === this.day) return; // already on today's list
    if (last > this.day) {
      // A late view: its previous visit, and the next visit's, are rebuilt before counting.
      list.push(visitor, 0);
      this.repeats = true;
      owner.outOfOrder(this.day);
      return;
    }
    list.push(visitor, last);
    owner.lastSeen.setDay(at, side, this.day);
  }

  /** Compacts every set and packs the page lists: for days that are unlikely to change. */
  trim(): void {
    for (const set of this.allSets()) set.trim();
    this.pack();
  }

  /** Every page with its lists, whichever form the day is in (packed pages are views, not copies). */
  *pageEntries(): Generator<[number, PageEntry]> {
    const packed = this.packed;
    if (!packed) {
      yield* this.pages;
      return;
    }
    const { paths, offsets, values, prev, views } = packed;
    for (let i = 0; i < paths.length; i++) {
      const lists: Array<PrevList | null> = [null, null, null];
      for (let side = 0; side < 3; side++) {
        const start = offsets[i * 4 + side] as number;
        const end = offsets[i * 4 + side + 1] as number;
        if (end > start || (views[i * 4 + side] as number) > 0) {
          lists[side] = PrevList.from(
            values.subarray(start, end),
            prev.subarray(start, end),
            views[i * 4 + side] as number,
          );
        }
      }
      const start = offsets[i * 4 + 3] as number;
      const end = offsets[i * 4 + 4] as number;
      const crawlers =
        end > start || (views[i * 4 + 3] as number) > 0
          ? VisitorSet.fromSorted(values.subarray(start, end), views[i * 4 + 3] as number)
          : null;
      yield [paths[i] as number, { lists, crawlers }];
    }
  }

  /** Takes pages already packed (a snapshot read back), each list sorted by previous visit. */
  setPacked(packed: PackedPages): void {
    this.pages.clear();
    this.packed = packed;
  }

  private pack(): void {
    if (this.packed || this.pages.size === 0) return;
    let total = 0;
    for (const page of this.pages.values()) {
      for (const list of page.lists) if (list) total += list.length;
      if (page.crawlers) total += page.crawlers.size();
    }
    const n = this.pages.size;
    const packed: PackedPages = {
      paths: new Uint32Array(n),
      offsets: new Uint32Array(n * 4 + 1),
      values: new Uint32Array(total),
      prev: new Uint16Array(total),
      views: new Uint32Array(n * 4),
    };
    let i = 0;
    let at = 0;
    const scratch = new Float64Array(this.longestList());
    for (const [path, page] of this.pages) {
      packed.paths[i] = path;
      for (let side = 0; side < 4; side++) {
        packed.offsets[i * 4 + side] = at;
        const members = side < 3 ? page.lists[side] : page.crawlers;
        if (!members) continue;
        packed.views[i * 4 + side] = members.views;
        if (members instanceof PrevList) sortByPrev(members, packed.values, packed.prev, at, scratch);
        else packed.values.set(members.values.subarray(0, members.length), at);
        at += members.length;
      }
      i++;
    }
    packed.offsets[n * 4] = at;
    this.packed = packed;
    this.pages.clear();
  }

  private longestList(): number {
    let longest = 0;
    for (const page of this.pages.values())
      for (const list of page.lists) if (list && list.length > longest) longest = list.length;
    return longest;
  }

  /** Back to one entry per page, with copies that can grow: a late view for a closed day. */
  unpack(): void {
    if (!this.packed) return;
    const entries = [...this.pageEntries()];
    this.packed = null;
    for (const [path, page] of entries) {
      const lists = page.lists.map((l) =>
        l ? PrevList.from(l.values.slice(), l.prev.slice(), l.views) : null,
      );
      const crawlers = page.crawlers
        ? VisitorSet.fromSorted(page.crawlers.values.slice(), page.crawlers.views)
        : null;
      this.pages.set(path, { lists, crawlers });
    }
  }

  *allSets(): Generator<VisitorSet> {
    for (const set of this.categories) if (set) yield set;
    for (const set of this.agents.values()) yield set;
    for (const page of this.pages.values()) if (page.crawlers) yield page.crawlers;
    for (const set of this.hours) if (set) yield set;
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
 * already; `scratch` must hold end − start numbers.
 */
export function sortSegmentByPrev(
  values: Uint32Array,
  prev: Uint16Array,
  start: number,
  end: number,
  scratch: Float64Array,
): void {
  let sorted = true;
  for (let i = start + 1; i < end && sorted; i++) {
    const a = prev[i - 1] as number;
    const b = prev[i] as number;
    if (a > b || (a === b && (values[i - 1] as number) > (values[i] as number))) sorted = false;
  }
  if (sorted) return;
  const keys = scratch.subarray(0, end - start);
  for (let i = start; i < end; i++) keys[i - start] = (prev[i] as number) * TWO_32 + (values[i] as number);
  keys.sort();
  for (let i = start; i < end; i++) {
    const key = keys[i - start] as number;
    const p = Math.floor(key / TWO_32);
    prev[i] = p;
    values[i] = key - p * TWO_32;
  }
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

import { CompactVisitorSet, expanded } from './compact-set.ts';
import {
  AI,
  agentKey,
  CATEGORY_SLOTS,
  CRAWLER,
  categorySlot,
  countsPurpose,
  HOUR_SLOTS,
  hourCategorySlot,
  hourPurposeSlot,
  LIST_SIDES,
  PURPOSE_SLOTS,
  purposeSlot,
  SET_AI_VERIFIED,
  SET_CRAWLER,
  SET_CRAWLER_VERIFIED,
  SET_PURPOSE_VERIFIED,
  SIDE_AI,
  SIDE_HUMAN,
  SIDE_PURPOSE,
  SIDE_TOTAL,
} from './index-layout.ts';
import { emptyEntry, type PackedPages, type PageEntry, packedEntries, packPages } from './packed-pages.ts';
import { type LastSeen, PrevList, type Seen } from './prev-list.ts';
import { VisitorSet } from './visitor-set.ts';

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/**
 * Room a new list of an open day starts with. A page's list on a day holds a handful of
 * visitors: starting at 2 grew most lists three times, each growth two new typed arrays that
 * outlive a scavenge (2 M events over HTTP: 8 gave about 10 % more events/s, 1 µs less server
 * CPU an event and a quarter less time in minor GCs; 16 was no better). Packing trims lists to
 * their length.
 */
const OPEN_LIST_CAPACITY = 8;

/** Where a day finds previous visits, and how it tells its project that a view arrived out of time order. */
export interface DayOwner {
  /**
   * The last-seen tables: human and ai days of every (page, visitor), and the four purposes'
   * days of the pairs with an AI view.
   */
  seen(): Seen;
  /**
   * Views are being taken in without their previous visits (a bulk replay of the log): each is
   * listed with none, its day marked as repeating, and the owner rebuilds them all at the end.
   */
  deferPrevs: boolean;
  outOfOrder(day: number): void;
}

function addTo(sets: Array<VisitorSet | null>, slot: number, visitor: number): void {
  let set = sets[slot];
  if (!set) {
    set = new VisitorSet();
    sets[slot] = set;
  }
  set.add(visitor);
}

/**
 * Everything the exports need about one UTC day (or, for a range edge, part of one): per page
 * the visitor lists with previous visits and the sets beside them, and visitor sets per
 * category, per purpose, per (agent, category, verified) and per hour (see index-layout.ts).
 * `lastSeq` is the newest event in it, so a cached answer can tell whether it is stale.
 */
export class DayIndex {
  readonly day: number;
  lastSeq = 0;
  /** Open days: one entry per page. Closed days keep `packed` instead (and this is empty). */
  readonly pages = new Map<number, PageEntry>();
  packed: PackedPages | null = null;
  /** Indexed by `categorySlot`. Dense ones are bitmaps while the day is packed (see compactSets). */
  readonly categories: Array<VisitorSet | CompactVisitorSet | null> = new Array(CATEGORY_SLOTS).fill(null);
  /** Indexed by `purposeSlot`. Dense ones are bitmaps while the day is packed (see compactSets). */
  readonly purposes: Array<VisitorSet | CompactVisitorSet | null> = new Array(PURPOSE_SLOTS).fill(null);
  /** Keyed by `agentKey`. Compact while the day is packed (see compactSets): count them through membersOf. */
  readonly agents = new Map<number, VisitorSet | CompactVisitorSet>();
  /**
   * Indexed by hour · HOUR_SLOTS + hour slot. Compact while the day is packed (see
   * compactSets): count them through membersOf.
   */
  readonly hours: Array<VisitorSet | CompactVisitorSet | null> = new Array(24 * HOUR_SLOTS).fill(null);
  /** Whether the day's sets are in their compact forms (see compactSets). */
  private compacted = false;
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

  addView(
    seq: number,
    ts: number,
    path: number,
    visitor: number,
    category: number,
    agent: number,
    purpose: number,
    verified: boolean,
  ): void {
    if (this.packed) this.unpack();
    if (this.compacted) this.expandSets();
    if (seq > this.lastSeq) this.lastSeq = seq;
    addTo(this.categories as Array<VisitorSet | null>, categorySlot(category, verified), visitor);
    const key = agentKey(agent, category, verified);
    let agentSet = this.agents.get(key) as VisitorSet | undefined;
    if (!agentSet) {
      agentSet = new VisitorSet();
      this.agents.set(key, agentSet);
    }
    agentSet.add(visitor);
    const withPurpose = countsPurpose(category, purpose);
    if (withPurpose)
      addTo(this.purposes as Array<VisitorSet | null>, purposeSlot(purpose, verified), visitor);

    const hourSlot = hourCategorySlot(category, verified);
    if (hourSlot < 0) return;
    const hour = Math.floor((ts - this.day * DAY_MS) / HOUR_MS);
    const hours = this.hours as Array<VisitorSet | null>;
    addTo(hours, hour * HOUR_SLOTS + hourSlot, visitor);
    if (withPurpose) addTo(hours, hour * HOUR_SLOTS + hourPurposeSlot(purpose, verified), visitor);

    let page = this.pages.get(path);
    if (!page) {
      page = emptyEntry();
      this.pages.set(path, page);
    }
    let owner = this.owner;
    if (owner?.deferPrevs) {
      owner = null;
      this.repeats = true;
    }
    const tables = owner ? owner.seen() : null;
    if (withPurpose) {
      const purposeSeen = tables ? tables.purposeSeen : null;
      const at = purposeSeen ? purposeSeen.slot(path, visitor) : -1;
      this.addToSide(page, SIDE_PURPOSE + purpose - 1, visitor, purposeSeen, at, purpose - 1);
      if (verified) addTo(page.sets, SET_PURPOSE_VERIFIED + purpose - 1 - LIST_SIDES, visitor);
    }
    if (category === CRAWLER) {
      addTo(page.sets, SET_CRAWLER - LIST_SIDES, visitor);
      if (verified) addTo(page.sets, SET_CRAWLER_VERIFIED - LIST_SIDES, visitor);
      return;
    }
    if (category === AI && verified) addTo(page.sets, SET_AI_VERIFIED - LIST_SIDES, visitor);
    const seen = tables ? tables.lastSeen : null;
    const at = seen ? seen.slot(path, visitor) : -1;
    // Total first: its last day is derived from the human and ai days before this view.
    this.addToSide(page, SIDE_TOTAL, visitor, seen, at, -1);
    if (category === AI) this.addToSide(page, SIDE_AI, visitor, seen, at, 1);
    else this.addToSide(page, SIDE_HUMAN, visitor, seen, at, 0);
  }

  /** `k`: the side's day in `seen` (−1: the later of days 0 and 1, for the total). */
  private addToSide(
    page: PageEntry,
    side: number,
    visitor: number,
    seen: LastSeen | null,
    at: number,
    k: number,
  ): void {
    let list = page.lists[side];
    if (!list) {
      list = new PrevList(OPEN_LIST_CAPACITY);
      page.lists[side] = list;
    }
    list.views++;
    if (!seen) {
      list.push(visitor, 0);
      return;
    }
    const last = k < 0 ? seen.latest(at) : seen.day(at, k);
    if (last === this.day) return; // already on today's list
    if (last > this.day) {
      // A late view: its previous visit, and the next visit's, are rebuilt before counting.
      list.push(visitor, 0);
      this.repeats = true;
      this.owner?.outOfOrder(this.day);
      return;
    }
    list.push(visitor, last);
    if (k >= 0) seen.setDay(at, k, this.day);
  }

  /** Compacts every set and packs the page lists: for days that are unlikely to change. */
  trim(): void {
    this.trimSets();
    this.pack();
  }

  /**
   * Stores the hour and agent sets compactly, and the dense category and purpose sets as bitmaps
   * (compact-set.ts): done when the day is packed, so for the days that no longer change;
   * undone by the next view.
   */
  compactSets(): void {
    if (this.compacted) return;
    for (const sets of [this.categories, this.purposes]) {
      for (let i = 0; i < sets.length; i++) {
        const set = sets[i];
        if (set instanceof VisitorSet) sets[i] = CompactVisitorSet.ofDense(set);
      }
    }
    for (let i = 0; i < this.hours.length; i++) {
      const set = this.hours[i];
      if (set instanceof VisitorSet) this.hours[i] = CompactVisitorSet.of(set);
    }
    for (const [key, set] of this.agents) {
      if (set instanceof VisitorSet) this.agents.set(key, CompactVisitorSet.of(set));
    }
    this.compacted = true;
  }

  private expandSets(): void {
    for (const sets of [this.categories, this.purposes, this.hours]) {
      for (let i = 0; i < sets.length; i++) {
        const set = sets[i];
        if (set) sets[i] = expanded(set);
      }
    }
    for (const [key, set] of this.agents) this.agents.set(key, expanded(set));
    this.compacted = false;
  }

  /** Every page with its segments, whichever form the day is in (packed pages are views, not copies). */
  *pageEntries(): Generator<[number, PageEntry]> {
    if (this.packed) yield* packedEntries(this.packed);
    else yield* this.pages;
  }

  /** Takes pages already packed (a snapshot read back), each list sorted by previous visit. */
  setPacked(packed: PackedPages): void {
    this.pages.clear();
    this.packed = packed;
  }

  private pack(): void {
    if (this.packed || this.pages.size === 0) return;
    if (this.repeats) {
      // One entry per visitor, whichever previous visit it keeps: they are all rebuilt before
      // counting (the owner knows they are out of order, or is deferring them), and a packed
      // day without repeats is rebuilt in place instead of unpacked.
      for (const page of this.pages.values()) for (const list of page.lists) list?.dedupe();
      this.repeats = false;
    }
    this.packed = packPages(this.pages);
    this.pages.clear();
    this.compactSets();
  }

  /** Back to one entry per page, with copies that can grow: a late view for a closed day. */
  unpack(): void {
    if (!this.packed) return;
    const entries = [...this.pageEntries()];
    this.packed = null;
    for (const [path, page] of entries) {
      this.pages.set(path, {
        lists: page.lists.map((l) => (l ? PrevList.from(l.values.slice(), l.prev.slice(), l.views) : null)),
        sets: page.sets.map((set) => (set ? VisitorSet.fromSorted(set.values.slice(), set.views) : null)),
      });
    }
  }

  /**
   * Trims every plain set to its length. Plain loops rather than a generator: trimming old days
   * runs every 100,000 views of a backfill, and a generator's iterators and results were a
   * twentieth of what the thread that stores views allocated.
   */
  private trimSets(): void {
    trimEach(this.categories);
    trimEach(this.purposes);
    for (const set of this.agents.values()) if (set instanceof VisitorSet) set.trim();
    for (const page of this.pages.values()) trimEach(page.sets);
    if (this.packed) for (const sets of this.packed.sets.values()) trimEach(sets);
    trimEach(this.hours);
  }
}

function trimEach(sets: ReadonlyArray<VisitorSet | CompactVisitorSet | null>): void {
  for (let i = 0; i < sets.length; i++) {
    const set = sets[i];
    if (set instanceof VisitorSet) set.trim();
  }
}

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
  readonly pages = new Map<number, PageEntry>();
  readonly categories: Array<VisitorSet | null> = new Array(CATEGORY_COUNT).fill(null);
  /** Keyed by agent * 8 + category: a generic agent name can appear in two categories. */
  readonly agents = new Map<number, VisitorSet>();
  /** Indexed by hour * COUNTED_CATEGORIES + category. */
  readonly hours: Array<VisitorSet | null> = new Array(24 * COUNTED_CATEGORIES).fill(null);
  /** Null for a partial day built for one query: its lists may repeat visitors. */
  private readonly owner: DayOwner | null;

  constructor(day: number, owner: DayOwner | null = null) {
    this.day = day;
    this.owner = owner;
  }

  addView(seq: number, ts: number, path: number, visitor: number, category: number, agent: number): void {
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
    this.addToSide(page, category === 0 ? SIDE_HUMAN : SIDE_AI, visitor, at);
    this.addToSide(page, SIDE_TOTAL, visitor, at);
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
      owner.outOfOrder(this.day);
      return;
    }
    list.push(visitor, last);
    owner.lastSeen.setDay(at, side, this.day);
  }

  /** Compacts every set and frees spare capacity: for days that are unlikely to change. */
  trim(): void {
    for (const set of this.allSets()) set.trim();
    for (const page of this.pages.values()) for (const list of page.lists) list?.trim();
  }

  *allSets(): Generator<VisitorSet> {
    for (const set of this.categories) if (set) yield set;
    for (const set of this.agents.values()) yield set;
    for (const page of this.pages.values()) if (page.crawlers) yield page.crawlers;
    for (const set of this.hours) if (set) yield set;
  }
}

import { VisitorSet } from './visitor-set.ts';

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
/** Category codes 0..2 (human, ai, ai_crawler) are counted per page and per hour. */
export const COUNTED_CATEGORIES = 3;
export const CATEGORY_COUNT = 5;

/** One stored view as the index needs it: every field a small integer. */
export interface IndexedEvent {
  seq: number;
  ts: number;
  path: number;
  visitor: number;
  category: number;
  agent: number;
}

/** Visitor sets of one page for the counted categories, indexed by category code. */
export type PageSets = Array<VisitorSet | null>;

/**
 * Everything the exports need about one UTC day (or, for a range edge, part of one): visitor
 * sets per (page, category), per category, per (agent, category) and per (hour, category).
 * `lastSeq` is the newest event in it, so a cached answer can tell whether it is stale.
 */
export class DayIndex {
  readonly day: number;
  lastSeq = 0;
  readonly pages = new Map<number, PageSets>();
  readonly categories: Array<VisitorSet | null> = new Array(CATEGORY_COUNT).fill(null);
  /** Keyed by agent * 8 + category: a generic agent name can appear in two categories. */
  readonly agents = new Map<number, VisitorSet>();
  /** Indexed by hour * COUNTED_CATEGORIES + category. */
  readonly hours: Array<VisitorSet | null> = new Array(24 * COUNTED_CATEGORIES).fill(null);

  constructor(day: number) {
    this.day = day;
  }

  add(event: IndexedEvent): void {
    if (event.seq > this.lastSeq) this.lastSeq = event.seq;
    const { category, visitor } = event;
    let set = this.categories[category];
    if (!set) {
      set = new VisitorSet();
      this.categories[category] = set;
    }
    set.add(visitor);

    const agentKey = event.agent * 8 + category;
    let agentSet = this.agents.get(agentKey);
    if (!agentSet) {
      agentSet = new VisitorSet();
      this.agents.set(agentKey, agentSet);
    }
    agentSet.add(visitor);

    if (category >= COUNTED_CATEGORIES) return;
    let page = this.pages.get(event.path);
    if (!page) {
      page = [null, null, null];
      this.pages.set(event.path, page);
    }
    let pageSet = page[category];
    if (!pageSet) {
      pageSet = new VisitorSet();
      page[category] = pageSet;
    }
    pageSet.add(visitor);

    const hour = Math.floor((event.ts - this.day * DAY_MS) / HOUR_MS);
    const slot = hour * COUNTED_CATEGORIES + category;
    let hourSet = this.hours[slot];
    if (!hourSet) {
      hourSet = new VisitorSet();
      this.hours[slot] = hourSet;
    }
    hourSet.add(visitor);
  }

  /** Compacts every set and frees spare capacity: for days that are unlikely to change. */
  trim(): void {
    for (const set of this.allSets()) set.trim();
  }

  *allSets(): Generator<VisitorSet> {
    for (const set of this.categories) if (set) yield set;
    for (const set of this.agents.values()) yield set;
    for (const page of this.pages.values()) for (const set of page) if (set) yield set;
    for (const set of this.hours) if (set) yield set;
  }
}

/**
 * The distinct visitors of one page on one day, each with the day of that visitor's previous
 * visit to the page (0: none). The number of distinct visitors of a page over days [a, b) is
 * then Σ over those days of the entries whose previous visit is before a: a sequential scan of
 * small integers instead of a union of sets.
 */
export class PrevList {
  /** Visitor numbers (named like VisitorSet's, so unions can read either). */
  values: Uint32Array;
  prev: Uint16Array;
  length = 0;
  views = 0;

  constructor(capacity = 2) {
    this.values = new Uint32Array(capacity);
    this.prev = new Uint16Array(capacity);
  }

  static from(values: Uint32Array, prev: Uint16Array, views: number): PrevList {
    const list = new PrevList(0);
    list.values = values;
    list.prev = prev;
    list.length = values.length;
    list.views = views;
    return list;
  }

  push(visitor: number, prevDay: number): void {
    if (this.length === this.values.length) {
      const capacity = Math.max(4, this.length * 2);
      const values = new Uint32Array(capacity);
      values.set(this.values);
      const prev = new Uint16Array(capacity);
      prev.set(this.prev);
      this.values = values;
      this.prev = prev;
    }
    this.values[this.length] = visitor;
    this.prev[this.length] = prevDay;
    this.length++;
  }

  /** Entries whose previous visit was before `day` (or never). */
  countFirstSince(day: number): number {
    const prev = this.prev;
    const n = this.length;
    let count = 0;
    for (let i = 0; i < n; i++) if ((prev[i] as number) < day) count++;
    return count;
  }

  /** Keeps one entry per visitor (the one with the earliest previous visit), in visitor order. */
  dedupe(): void {
    const n = this.length;
    if (n < 2) return;
    // Visitor-major keys (both parts fit a float64 exactly), sorted natively.
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = (this.values[i] as number) * 65_536 + (this.prev[i] as number);
    keys.sort();
    let kept = 0;
    let last = -1;
    for (let i = 0; i < n; i++) {
      const key = keys[i] as number;
      const visitor = Math.floor(key / 65_536);
      if (visitor === last) continue;
      last = visitor;
      this.values[kept] = visitor;
      this.prev[kept] = key - visitor * 65_536;
      kept++;
    }
    this.length = kept;
  }

  trim(): void {
    if (this.values.length === this.length) return;
    this.values = this.values.slice(0, this.length);
    this.prev = this.prev.slice(0, this.length);
  }
}

/** Above this share of slots in use the table grows (linear probes stay short below it). */
const MAX_LOAD = 0.8;
/** The share of slots in use a table is sized, or grown, to: room for the views to come. */
const TARGET_LOAD = 0.65;
const TWO_32 = 2 ** 32;

/**
 * The last day each (page, visitor) was seen, per side: one open-addressing table of u32 words
 * [page, visitor, then `days` u16 days two to a word], so a view arriving in time order finds
 * its previous visit in O(1) and a repeat on the same day is recognised without searching the
 * day's list. A project keeps two: human and ai (human ∪ ai is the later of the two; 12 bytes
 * an entry) for every (page, visitor), and the four purposes (16 bytes) only for the pairs with
 * an AI view, which are few. It is most of an index's memory, so its size is not a power of
 * two: sized from the exact number of pairs (see rebuildPrevs) it holds about 18 bytes a pair
 * rather than 16 to 32.
 */
export class LastSeen {
  private table: Uint32Array;
  private capacity: number;
  /** Grow when `size` reaches this. */
  private limit: number;
  /** Words per entry. */
  private readonly width: number;
  size = 0;

  constructor(expected = 1024, days = 2) {
    this.width = 2 + ((days + 1) >> 1);
    this.capacity = Math.max(1024, Math.ceil(expected / TARGET_LOAD));
    this.limit = Math.floor(this.capacity * MAX_LOAD);
    this.table = new Uint32Array(this.capacity * this.width);
  }

  /** Slot index (in words) of (page, visitor), inserted with zero days if absent. */
  slot(page: number, visitor: number): number {
    if (this.size >= this.limit) this.grow();
    const table = this.table;
    const width = this.width;
    const capacity = this.capacity;
    // Page 0 does not exist (dictionary numbers start at 1), so page 0 marks an empty slot.
    // The hash's high bits pick the slot (multiply-shift): any capacity works.
    const hash = Math.imul(visitor ^ Math.imul(page, 0x85ebca6b), 0x9e3779b1) >>> 0;
    let i = Math.floor((hash * capacity) / TWO_32);
    for (;;) {
      const at = i * width;
      const p = table[at] as number;
      if (p === 0) {
        table[at] = page;
        table[at + 1] = visitor;
        this.size++;
        return at;
      }
      if (p === page && table[at + 1] === visitor) return at;
      i = i + 1 === capacity ? 0 : i + 1;
    }
  }

  /** Day number `k` of the entry at `slot`. */
  day(slot: number, k: number): number {
    const word = this.table[slot + 2 + (k >> 1)] as number;
    return k & 1 ? word >>> 16 : word & 0xffff;
  }

  /** The later of days 0 and 1 (for the human and ai table: human ∪ ai). */
  latest(slot: number): number {
    const word = this.table[slot + 2] as number;
    const a = word & 0xffff;
    const b = word >>> 16;
    return a > b ? a : b;
  }

  setDay(slot: number, k: number, day: number): void {
    const at = slot + 2 + (k >> 1);
    const word = this.table[at] as number;
    this.table[at] = (k & 1 ? (word & 0xffff) | (day << 16) : (word & 0xffff0000) | day) >>> 0;
  }

  private grow(): void {
    const old = this.table;
    const width = this.width;
    this.capacity = Math.ceil(this.size / TARGET_LOAD);
    this.limit = Math.floor(this.capacity * MAX_LOAD);
    this.table = new Uint32Array(this.capacity * width);
    this.size = 0;
    for (let at = 0; at < old.length; at += width) {
      const page = old[at] as number;
      if (page === 0) continue;
      const slot = this.slot(page, old[at + 1] as number);
      for (let w = 2; w < width; w++) this.table[slot + w] = old[at + w] as number;
    }
  }
}

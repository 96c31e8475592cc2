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

/** The last-seen tables for the views still to come (see DayOwner). */
export interface Seen {
  lastSeen: LastSeen;
  purposeSeen: LastSeen;
}

/** Above this share of slots in use a table grows (linear probes stay short below it). */
const MAX_LOAD = 0.8;
/** The share of slots in use a table is sized, or grown, to: room for the views to come. */
const TARGET_LOAD = 0.65;
const TWO_32 = 2 ** 32;
const EMPTY: Uint32Array = new Uint32Array(0);

/**
 * The last day each (page, visitor) was seen, per side, so a view arriving in time order finds
 * its previous visit in O(1) and a repeat on the same day is recognised without searching the
 * day's list. A project keeps two: human and ai (human ∪ ai is the later of the two) for every
 * (page, visitor), and the four purposes only for the pairs with an AI view, which are few.
 *
 * It holds about one entry per view, so it is the largest part of an index: one open-addressing
 * table per page, of u32 words [visitor + 1, then `days` u16 days two to a word] (8 bytes an
 * entry for two days, 12 for four; the page is the table), any capacity (multiply-shift), sized
 * from the exact number of pairs when rebuilt (`reserve`) and grown by about a quarter.
 *
 * `slot` returns a word offset into the table of the page it was given; `day`, `latest` and
 * `setDay` read that same table, so call them before the next `slot`.
 */
export class LastSeen {
  private readonly tables: Array<Uint32Array | undefined> = [];
  private readonly used: number[] = [];
  /** The table of the last `slot` call. */
  private table: Uint32Array = EMPTY;
  /** Words per entry. */
  private readonly width: number;
  size = 0;

  constructor(days = 2) {
    this.width = 1 + ((days + 1) >> 1);
  }

  /** Makes room for `more` new pairs of `page` at once (a rebuild knows how many). */
  reserve(page: number, more: number): void {
    const table = this.tables[page];
    const used = this.used[page] ?? 0;
    const capacity = table ? table.length / this.width : 0;
    if (used + more > capacity * MAX_LOAD) this.resize(page, Math.ceil((used + more) / TARGET_LOAD));
  }

  /** Slot (word offset in the page's table) of (page, visitor), inserted with zero days if absent. */
  slot(page: number, visitor: number): number {
    const width = this.width;
    const used = this.used[page] ?? 0;
    let table = this.tables[page] ?? EMPTY;
    let capacity = table.length / width;
    if (used + 1 > capacity * MAX_LOAD) {
      capacity = Math.max(8, Math.ceil((used + 1) / TARGET_LOAD), Math.ceil(capacity * 1.25));
      table = this.resize(page, capacity);
    }
    this.table = table;
    // Visitor numbers start at 1, but +1 keeps 0 free to mark an empty slot whatever they are.
    const key = visitor + 1;
    // The hash's high bits pick the slot (multiply-shift): any capacity works.
    let i = Math.floor(((Math.imul(visitor, 0x9e3779b1) >>> 0) * capacity) / TWO_32);
    for (;;) {
      const at = i * width;
      const v = table[at] as number;
      if (v === 0) {
        table[at] = key;
        this.used[page] = used + 1;
        this.size++;
        return at;
      }
      if (v === key) return at;
      i = i + 1 === capacity ? 0 : i + 1;
    }
  }

  /** The tables' size in bytes. */
  get bytes(): number {
    let n = 0;
    for (const table of this.tables) if (table) n += table.byteLength;
    return n;
  }

  /** Day number `k` of the entry at `slot`. */
  day(slot: number, k: number): number {
    const word = this.table[slot + 1 + (k >> 1)] as number;
    return k & 1 ? word >>> 16 : word & 0xffff;
  }

  /** The later of days 0 and 1 (for the human and ai table: human ∪ ai). */
  latest(slot: number): number {
    const word = this.table[slot + 1] as number;
    const a = word & 0xffff;
    const b = word >>> 16;
    return a > b ? a : b;
  }

  setDay(slot: number, k: number, day: number): void {
    const at = slot + 1 + (k >> 1);
    const word = this.table[at] as number;
    this.table[at] = (k & 1 ? (word & 0xffff) | (day << 16) : (word & 0xffff0000) | day) >>> 0;
  }

  /** Moves the page's entries into a table of `capacity` entries; returns it. */
  private resize(page: number, capacity: number): Uint32Array {
    const width = this.width;
    const old = this.tables[page] ?? EMPTY;
    const table = new Uint32Array(capacity * width);
    for (let from = 0; from < old.length; from += width) {
      const key = old[from] as number;
      if (key === 0) continue;
      let i = Math.floor(((Math.imul(key - 1, 0x9e3779b1) >>> 0) * capacity) / TWO_32);
      while (table[i * width] !== 0) i = i + 1 === capacity ? 0 : i + 1;
      const at = i * width;
      for (let w = 0; w < width; w++) table[at + w] = old[from + w] as number;
    }
    this.tables[page] = table;
    return table;
  }
}

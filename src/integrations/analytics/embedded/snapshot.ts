import { CompactVisitorSet } from './compact-set.ts';
import { DayIndex, type DayOwner } from './day-index.ts';
import type { Quarters } from './edge-quarters.ts';
import { CATEGORY_SLOTS, LIST_SIDES, PURPOSE_SLOTS, SEGMENTS } from './index-layout.ts';
import { allocatePacked, type PackedPages, sortSegmentByPrev } from './packed-pages.ts';
import { VisitorSet } from './visitor-set.ts';

// "DWA1": bump FORMAT when the layout changes; a snapshot of another format is ignored and the
// day is rebuilt from the raw events (migration 6 drops format 2's, see 0006_verified_views.ts).
// Format 4 is format 3 plus the packed lists' quarters at the end, so format 3 is still read.
const MAGIC = 0x31415744;
const FORMAT = 4;
const FORMAT_WITHOUT_QUARTERS = 3;
const TWO_32 = 2 ** 32;

/**
 * A day's index as one little array of u32 words, so a restart loads closed days instead of
 * replaying their events. Layout: header, categories, purposes, agents, pages (path, a mask of
 * the segments present, then each), hours, then the quarters of a packed day's list entries
 * ([0] or [1, n, n first quarters and n last quarters as bytes]); each set is [views, n, ...n
 * sorted members].
 */
export function serializeDay(day: DayIndex, out = new Words()): Buffer {
  out.clear();
  out.push(MAGIC, FORMAT, day.day, day.lastSeq % TWO_32, Math.floor(day.lastSeq / TWO_32));
  for (const set of day.categories) out.optionalSet(set);
  for (const set of day.purposes) out.optionalSet(set);
  out.push(day.agents.size);
  for (const [key, set] of day.agents) {
    out.push(key);
    out.set(set);
  }
  // Straight from the day's arrays: a checkpoint writes every changed day in one pass, and an
  // entry object and two views per list of a packed day (a month of days after an import, 60
  // thousand lists each) were hundreds of megabytes of garbage, the server's memory peak.
  const packed = day.packed;
  if (packed) writePackedPages(packed, out);
  else {
    out.push(day.pages.size);
    for (const [path, page] of day.pages) {
      let mask = 0;
      page.lists.forEach((list, s) => {
        if (list) mask |= 1 << s;
      });
      page.sets.forEach((set, s) => {
        if (set) mask |= 1 << (s + LIST_SIDES);
      });
      out.push(path, mask);
      for (const list of page.lists) if (list) out.list(list.values, list.prev, 0, list.length, list.views);
      for (const set of page.sets) if (set) out.set(set);
    }
  }
  out.push(day.hours.length);
  for (const set of day.hours) out.optionalSet(set);
  const quarters = packed?.quarters;
  if (quarters) {
    out.push(1, quarters.first.length);
    out.bytes(quarters.first, quarters.last);
  } else out.push(0);
  return out.toBuffer();
}

/** A packed day's pages in the layout `serializeDay` writes (a list is there when it has members or views). */
function writePackedPages(packed: PackedPages, out: Words): void {
  const { paths, offsets, values, prev, views, sets } = packed;
  out.push(paths.length);
  for (let i = 0; i < paths.length; i++) {
    const base = i * LIST_SIDES;
    let mask = 0;
    for (let s = 0; s < LIST_SIDES; s++) {
      if (
        (offsets[base + s + 1] as number) > (offsets[base + s] as number) ||
        (views[base + s] as number) > 0
      )
        mask |= 1 << s;
    }
    const pageSets = sets.get(i);
    if (pageSets)
      pageSets.forEach((set, s) => {
        if (set) mask |= 1 << (s + LIST_SIDES);
      });
    out.push(paths[i] as number, mask);
    for (let s = 0; s < LIST_SIDES; s++) {
      if ((mask & (1 << s)) === 0) continue;
      out.list(
        values,
        prev,
        offsets[base + s] as number,
        offsets[base + s + 1] as number,
        views[base + s] as number,
      );
    }
    if (pageSets) for (const set of pageSets) if (set) out.set(set);
  }
}

/**
 * serializeDay with one buffer for every day: each Buffer returned is a view of it, valid until
 * the next call. A checkpoint writes each day's snapshot before taking the next, so it needs
 * room for its largest day only, not a new growing buffer per day (a month of them after a
 * large import was the server's memory peak after its first query).
 */
export function daySerializer(): (day: DayIndex) => Buffer {
  const out = new Words();
  return (day) => serializeDay(day, out);
}

/** Returns null for a snapshot of another format (the caller rebuilds that day). */
export function deserializeDay(buffer: Buffer, owner: DayOwner): DayIndex | null {
  const words = toWords(buffer);
  const read = new Reader(words);
  if (read.next() !== MAGIC) return null;
  const format = read.next();
  if (format !== FORMAT && format !== FORMAT_WITHOUT_QUARTERS) return null;
  const day = new DayIndex(read.next(), owner);
  day.lastSeq = read.next() + read.next() * TWO_32;
  for (let c = 0; c < CATEGORY_SLOTS; c++) day.categories[c] = read.optionalSet();
  for (let p = 0; p < PURPOSE_SLOTS; p++) day.purposes[p] = read.optionalSet();
  const agents = read.next();
  for (let i = 0; i < agents; i++) {
    const key = read.next();
    day.agents.set(key, read.set());
  }
  const moved = readPages(read, day);
  const hours = read.next();
  for (let h = 0; h < hours; h++) day.hours[h] = read.optionalSet();
  if (format === FORMAT && read.next() === 1) {
    const quarters = read.quarters();
    // Entries re-sorted on reading (a day saved open has none) would no longer match theirs.
    const packed = day.packed;
    if (packed && !moved && quarters.first.length === packed.values.length) packed.quarters = quarters;
  }
  if (day.packed) day.compactSets();
  return day;
}

/**
 * Reads a day's pages straight into the packed form (see PackedPages): one set of arrays for the
 * day rather than two small ones per list, which took several times the day's size while a
 * server loaded its snapshots. Lists of a day that was open when saved are sorted here; returns
 * whether any was.
 */
function readPages(read: Reader, day: DayIndex): boolean {
  const n = read.next();
  // First pass: how many list members in all.
  const start = read.offset;
  let total = 0;
  for (let i = 0; i < n; i++) {
    read.next();
    const mask = read.next();
    for (let s = 0; s < SEGMENTS; s++)
      if (mask & (1 << s)) total += read.skipMembers(s < LIST_SIDES, s < LIST_SIDES);
  }
  read.offset = start;
  const packed = allocatePacked(n, total);
  let scratch = new Float64Array(0);
  let at = 0;
  let moved = false;
  for (let i = 0; i < n; i++) {
    packed.paths[i] = read.next();
    const mask = read.next();
    for (let s = 0; s < LIST_SIDES; s++) {
      packed.offsets[i * LIST_SIDES + s] = at;
      if ((mask & (1 << s)) === 0) continue;
      const count = read.members(packed, i * LIST_SIDES + s, at, true);
      if (scratch.length < count) scratch = new Float64Array(count);
      if (sortSegmentByPrev(packed.values, packed.prev, at, at + count, scratch)) moved = true;
      at += count;
    }
    if (mask >>> LIST_SIDES === 0) continue;
    const sets: Array<VisitorSet | null> = new Array(SEGMENTS - LIST_SIDES).fill(null);
    for (let s = LIST_SIDES; s < SEGMENTS; s++) if (mask & (1 << s)) sets[s - LIST_SIDES] = read.set();
    packed.sets.set(i, sets);
  }
  packed.offsets[n * LIST_SIDES] = at;
  day.setPacked(packed);
  return moved;
}

class Words {
  private data = new Uint32Array(1024);
  /** `data`'s buffer as u16 halves. */
  private halves = new Uint16Array(this.data.buffer);
  private length = 0;

  clear(): void {
    this.length = 0;
  }

  push(...values: number[]): void {
    this.reserve(values.length);
    for (const value of values) this.data[this.length++] = value;
  }

  set(set: VisitorSet | CompactVisitorSet): void {
    if (set instanceof CompactVisitorSet) {
      // Written as the members they stand for: the format does not change with the form in memory.
      this.reserve(2 + set.length);
      this.data[this.length++] = set.views;
      this.data[this.length++] = set.length;
      set.decodeInto(this.data, this.length);
      this.length += set.length;
      return;
    }
    set.compact();
    this.reserve(2 + set.length);
    this.data[this.length++] = set.views;
    this.data[this.length++] = set.length;
    this.data.set(set.values.subarray(0, set.length), this.length);
    this.length += set.length;
  }

  optionalSet(set: VisitorSet | CompactVisitorSet | null): void {
    this.push(set ? 1 : 0);
    if (set) this.set(set);
  }

  /**
   * [views, n, ...n visitors, ...ceil(n / 2) words of u16 previous days]: members [start, end)
   * of `values` and `prev`, the previous days written through a u16 view of the same buffer
   * (the reader's layout) rather than a new array per list.
   */
  list(values: Uint32Array, prev: Uint16Array, start: number, end: number, views: number): void {
    const n = end - start;
    const prevWords = (n + 1) >> 1;
    this.reserve(2 + n + prevWords);
    this.data[this.length++] = views;
    this.data[this.length++] = n;
    if (n < COPY_BY_VIEW) {
      // Most lists are short: a loop copies them without the two views `set` needs (a
      // checkpoint of every day made two view objects per list: 150 MB of garbage at 12 M views).
      const data = this.data;
      const halves = this.halves;
      const at = this.length;
      for (let i = 0; i < n; i++) data[at + i] = values[start + i] as number;
      for (let i = 0; i < n; i++) halves[(at + n) * 2 + i] = prev[start + i] as number;
    } else {
      this.data.set(values.subarray(start, end), this.length);
      this.halves.set(prev.subarray(start, end), (this.length + n) * 2);
    }
    this.length += n;
    if ((n & 1) === 1) this.halves[this.length * 2 + n] = 0;
    this.length += prevWords;
  }

  /** Two byte arrays of one length, one after the other, padded to a whole word. */
  bytes(first: Uint8Array, last: Uint8Array): void {
    const n = first.length;
    const words = (2 * n + 3) >> 2;
    this.reserve(words);
    const at = this.length * 4;
    const bytes = new Uint8Array(this.data.buffer);
    bytes.set(first, at);
    bytes.set(last, at + n);
    bytes.fill(0, at + 2 * n, (this.length + words) * 4);
    this.length += words;
  }

  toBuffer(): Buffer {
    return Buffer.from(this.data.buffer, 0, this.length * 4);
  }

  reserve(extra: number): void {
    if (this.length + extra <= this.data.length) return;
    const grown = new Uint32Array(Math.max(this.data.length * 2, this.length + extra));
    grown.set(this.data.subarray(0, this.length));
    this.data = grown;
    this.halves = new Uint16Array(grown.buffer);
  }
}

/** Lists at least this long are copied through views (`set`), shorter ones by a loop. */
const COPY_BY_VIEW = 512;

class Reader {
  private readonly words: Uint32Array;
  private position = 0;
  constructor(words: Uint32Array) {
    this.words = words;
  }

  get offset(): number {
    return this.position;
  }

  set offset(position: number) {
    this.position = position;
  }

  /** Skips a set (or, `withPrev`, a list); returns its member count if `counted`, else 0. */
  skipMembers(withPrev: boolean, counted: boolean): number {
    this.next();
    const n = this.next();
    const words = n + (withPrev ? (n + 1) >> 1 : 0);
    if (this.position + words > this.words.length) throw new Error('Analytics snapshot is truncated');
    this.position += words;
    return counted ? n : 0;
  }

  /**
   * Copies a set (or, `withPrev`, a list with its previous visits) into `packed` at `at`, its
   * views into `views[slot]`; returns its member count.
   */
  members(packed: PackedPages, slot: number, at: number, withPrev: boolean): number {
    packed.views[slot] = this.next();
    const n = this.next();
    const prevWords = withPrev ? (n + 1) >> 1 : 0;
    if (this.position + n + prevWords > this.words.length) throw new Error('Analytics snapshot is truncated');
    packed.values.set(this.words.subarray(this.position, this.position + n), at);
    this.position += n;
    if (withPrev) {
      const words = this.words;
      packed.prev.set(new Uint16Array(words.buffer, words.byteOffset + this.position * 4, n), at);
      this.position += prevWords;
    }
    return n;
  }

  /** The quarters `Words.bytes` wrote, after their count. */
  quarters(): Quarters {
    const n = this.next();
    const words = (2 * n + 3) >> 2;
    if (this.position + words > this.words.length) throw new Error('Analytics snapshot is truncated');
    const at = this.words.byteOffset + this.position * 4;
    const bytes = new Uint8Array(this.words.buffer, at, 2 * n);
    this.position += words;
    return { first: bytes.slice(0, n), last: bytes.slice(n, 2 * n) };
  }

  next(): number {
    if (this.position >= this.words.length) throw new Error('Analytics snapshot is truncated');
    return this.words[this.position++] as number;
  }

  set(): VisitorSet {
    const views = this.next();
    const n = this.next();
    if (this.position + n > this.words.length) throw new Error('Analytics snapshot is truncated');
    const values = this.words.slice(this.position, this.position + n);
    this.position += n;
    return VisitorSet.fromSorted(values, views);
  }

  optionalSet(): VisitorSet | null {
    return this.next() === 1 ? this.set() : null;
  }
}

function toWords(buffer: Buffer): Uint32Array {
  if (buffer.byteOffset % 4 === 0)
    return new Uint32Array(buffer.buffer, buffer.byteOffset, buffer.length >> 2);
  const copy = new Uint8Array(buffer.length);
  copy.set(buffer);
  return new Uint32Array(copy.buffer, 0, buffer.length >> 2);
}

import type { Members } from './members.ts';
import { VisitorSet } from './visitor-set.ts';

/** Room for the encoding of the largest set compacted so far: one buffer, not one per set. */
let scratch = new Uint8Array(1024);
const NO_VALUES = new Uint32Array(0);

/**
 * A packed day's visitor set in the smaller of two forms: the LEB128-encoded gaps between its
 * sorted members (about 1–1.5 bytes a member where a VisitorSet takes 4), or, for a dense set
 * (a day's human readers), a bitmap over the span of visitor numbers it covers (under half a
 * byte a member). The per-hour and per-agent sets, which only the time series and the breakdown
 * read and which were a quarter of a loaded index's memory, take the smaller form; the day's
 * category and purpose sets, which every visitors export unions, take the bitmap form only
 * (`ofDense`), since expanding gaps would slow those exports.
 */
export class CompactVisitorSet {
  /** The gaps, or null in the bitmap form. */
  readonly bytes: Uint8Array | null;
  /** The bitmap form: bit v − 32·firstWord of word ⌊v / 32⌋ − firstWord for member v. */
  readonly bitmap: Int32Array | null;
  readonly firstWord: number;
  /** Distinct members. */
  readonly length: number;
  readonly views: number;

  private constructor(
    bytes: Uint8Array | null,
    bitmap: Int32Array | null,
    firstWord: number,
    length: number,
    views: number,
  ) {
    this.bytes = bytes;
    this.bitmap = bitmap;
    this.firstWord = firstWord;
    this.length = length;
    this.views = views;
  }

  /** The smaller form of the set. */
  static of(set: VisitorSet): CompactVisitorSet {
    // 4 bytes a word against at least one byte a member.
    return CompactVisitorSet.bitmapOf(set, 4) ?? CompactVisitorSet.gapsOf(set);
  }

  /**
   * The set as a bitmap if that takes at most 4 bytes a member (as a VisitorSet's own bitmap,
   * VisitorSet.bits), else the set itself: for the day sets every visitors export unions,
   * which a bitmap makes smaller and faster to union, and gaps would make slower.
   */
  static ofDense(set: VisitorSet): CompactVisitorSet | VisitorSet {
    return CompactVisitorSet.bitmapOf(set, 1) ?? set;
  }

  /** The bitmap form, if it has at most one word per `membersPerWord` members; else null. */
  private static bitmapOf(set: VisitorSet, membersPerWord: number): CompactVisitorSet | null {
    set.compact();
    const { values, length } = set;
    if (length === 0) return null;
    const firstWord = (values[0] as number) >>> 5;
    const words = ((values[length - 1] as number) >>> 5) - firstWord + 1;
    if (words * membersPerWord > length) return null;
    const bitmap = new Int32Array(words);
    for (let i = 0; i < length; i++) {
      const v = values[i] as number;
      const w = (v >>> 5) - firstWord;
      bitmap[w] = (bitmap[w] as number) | (1 << (v & 31));
    }
    return new CompactVisitorSet(null, bitmap, firstWord, length, set.views);
  }

  private static gapsOf(set: VisitorSet): CompactVisitorSet {
    set.compact();
    const { values, length } = set;
    if (scratch.length < length * 5) scratch = new Uint8Array(length * 5);
    const out = scratch;
    let at = 0;
    let previous = 0;
    for (let i = 0; i < length; i++) {
      const value = values[i] as number;
      let gap = value - previous;
      previous = value;
      while (gap > 0x7f) {
        out[at++] = (gap & 0x7f) | 0x80;
        gap >>>= 7;
      }
      out[at++] = gap;
    }
    return new CompactVisitorSet(out.slice(0, at), null, 0, length, set.views);
  }

  /** Bytes held. */
  get byteLength(): number {
    return (this.bytes ?? this.bitmap ?? NO_VALUES).byteLength;
  }

  /** The members, sorted, into `into` from `at` (which must have room for `length` more). */
  decodeInto(into: Uint32Array, at: number): void {
    const bitmap = this.bitmap;
    if (bitmap) {
      let k = at;
      for (let w = 0; w < bitmap.length; w++) {
        let word = bitmap[w] as number;
        const base = (this.firstWord + w) * 32;
        while (word !== 0) {
          const low = word & -word;
          into[k++] = base + 31 - Math.clz32(low);
          word ^= low;
        }
      }
      return;
    }
    const bytes = this.bytes as Uint8Array;
    let read = 0;
    let value = 0;
    for (let i = 0; i < this.length; i++) {
      let byte = bytes[read++] as number;
      let gap = byte & 0x7f;
      let scale = 128;
      while (byte > 0x7f) {
        byte = bytes[read++] as number;
        gap += (byte & 0x7f) * scale;
        scale *= 128;
      }
      value += gap;
      into[at + i] = value;
    }
  }

  /** A VisitorSet of the same members and views. */
  expand(): VisitorSet {
    const values = new Uint32Array(this.length);
    this.decodeInto(values, 0);
    return VisitorSet.fromSorted(values, this.views);
  }

  /**
   * The members for counting (counting.ts): the bitmap, unioned a word at a time, or the gaps,
   * read in place (markGaps).
   */
  members(): Members {
    const bitmap = this.bitmap;
    if (!bitmap)
      return { values: NO_VALUES, length: this.length, views: this.views, gaps: this.bytes as Uint8Array };
    return {
      values: NO_VALUES,
      length: 0,
      views: this.views,
      firstWord: this.firstWord,
      bits: () => bitmap,
    };
  }
}

/** What the last `markGaps` found: members new on its side, and of those, new on both sides. */
export const marked = { fresh: 0, freshToBoth: 0 };

/**
 * Sets the bits of `length` gap-encoded members in `seen` (a union's marks, see counting.ts),
 * counting into `marked` those not set before, and of those, those not set in `other` either.
 */
export function markGaps(gaps: Uint8Array, length: number, seen: Int32Array, other: Int32Array): void {
  let fresh = 0;
  let freshToBoth = 0;
  let read = 0;
  let value = 0;
  for (let i = 0; i < length; i++) {
    let byte = gaps[read++] as number;
    let gap = byte & 0x7f;
    let scale = 128;
    while (byte > 0x7f) {
      byte = gaps[read++] as number;
      gap += (byte & 0x7f) * scale;
      scale *= 128;
    }
    value += gap;
    const word = value >>> 5;
    const bit = 1 << (value & 31);
    const had = seen[word] as number;
    if ((had & bit) === 0) {
      seen[word] = had | bit;
      fresh++;
      if (((other[word] as number) & bit) === 0) freshToBoth++;
    }
  }
  marked.fresh = fresh;
  marked.freshToBoth = freshToBoth;
}

/** A set either way, for counting (see CompactVisitorSet.members). */
export function membersOf(set: VisitorSet | CompactVisitorSet): Members {
  return set instanceof CompactVisitorSet ? set.members() : set;
}

/** A set either way, as a VisitorSet (compact ones expanded: a new set). */
export function expanded(set: VisitorSet | CompactVisitorSet): VisitorSet {
  return set instanceof CompactVisitorSet ? set.expand() : set;
}

import { EVENT_FLAGS_MASK } from '../../../domain/analytics/store.ts';

/**
 * The stored view record: RECORD_WORDS u32 words, packed one after the other into a chunk's
 * blob (in the machine's byte order, little-endian on x86 and ARM). This file is the only place
 * that knows the offsets: views are written by `RecordWriter` and read by `ViewCursor`.
 *
 * | word | holds |
 * | --- | --- |
 * | 0 | ms of the UTC day |
 * | 1 | path number (Dictionary `paths`) |
 * | 2 | visitor number (VisitorDictionary) |
 * | 3 | agent number (Dictionary `agents`) |
 * | 4 | user agent number (Dictionary `user_agents`) |
 * | 5 | referrer number (Dictionary `referrers`; 0: none) |
 * | 6 | status (bits 0–15) \| category code << 16 \| flags byte << 24 (fetch flags, purpose, verified: see `flagsByte`) |
 * | 7 | classifier version |
 * | 8, 9 | the idempotency key's first 8 bytes, as two words ((0, 0): none) |
 */
export const RECORD_WORDS = 10;

const MS = 0;
const PATH = 1;
const VISITOR = 2;
const AGENT = 3;
const USER_AGENT = 4;
const REFERRER = 5;
const PACKED = 6;
const CLASSIFIER = 7;
const KEY_LO = 8;
const KEY_HI = 9;

/** Stored views of one (project, day): `words` holds `count` records of RECORD_WORDS each. */
export interface Chunk {
  seq: number;
  project: number;
  day: number;
  count: number;
  words: Uint32Array;
}

/** Bit 6 of the flags byte: the agent was verified by its operator's published IP ranges. */
const VERIFIED_BIT = 64;

/**
 * A view's flags byte: how it was fetched (EVENT_FLAGS, bits 0–2), its purpose code (bits 3–5;
 * 0 for none) and whether its agent was verified (bit 6). Views stored before purposes existed
 * have purpose 0 until reclassified; views stored before verification (schema < 6) have bit 6
 * clear, so they read as not verified, which is what the contract says they are.
 */
export function flagsByte(fetchFlags: number, purposeCode: number, verified: boolean): number {
  return (fetchFlags & EVENT_FLAGS_MASK) | ((purposeCode & 7) << 3) | (verified ? VERIFIED_BIT : 0);
}

/** The purpose code (PURPOSE_CODES, 0: none) of a flags byte. */
export function purposeCodeOf(flags: number): number {
  return (flags >>> 3) & 7;
}

/** Whether a flags byte says the agent was verified. */
export function verifiedOf(flags: number): boolean {
  return (flags & VERIFIED_BIT) !== 0;
}

/**
 * Reads a chunk's views one at a time, without allocating per view:
 * `for (const v = new ViewCursor(chunk); v.next(); ) use(v.visitor, v.category)`.
 */
export class ViewCursor {
  private readonly words: Uint32Array;
  private readonly end: number;
  private at = -RECORD_WORDS;

  constructor(chunk: { words: Uint32Array; count: number }) {
    this.words = chunk.words;
    this.end = chunk.count * RECORD_WORDS;
  }

  /** Moves to the next view; false after the last. */
  next(): boolean {
    this.at += RECORD_WORDS;
    return this.at < this.end;
  }

  get msOfDay(): number {
    return this.words[this.at + MS] as number;
  }

  get path(): number {
    return this.words[this.at + PATH] as number;
  }

  get visitor(): number {
    return this.words[this.at + VISITOR] as number;
  }

  get agent(): number {
    return this.words[this.at + AGENT] as number;
  }

  get userAgent(): number {
    return this.words[this.at + USER_AGENT] as number;
  }

  get referrer(): number {
    return this.words[this.at + REFERRER] as number;
  }

  get status(): number {
    return (this.words[this.at + PACKED] as number) & 0xffff;
  }

  /** The category code (CATEGORY_CODES). */
  get category(): number {
    return ((this.words[this.at + PACKED] as number) >>> 16) & 0xff;
  }

  /** The flags byte (see `flagsByte`). */
  get flags(): number {
    return (this.words[this.at + PACKED] as number) >>> 24;
  }

  /** EVENT_FLAGS: how the page was fetched. */
  get fetchFlags(): number {
    return this.flags & EVENT_FLAGS_MASK;
  }

  /** The purpose code (PURPOSE_CODES), 0 for none. */
  get purposeCode(): number {
    return purposeCodeOf(this.flags);
  }

  /** True when the agent was verified at ingest (see PreparedEvent.verified). */
  get verified(): boolean {
    return verifiedOf(this.flags);
  }

  get classifierVersion(): number {
    return this.words[this.at + CLASSIFIER] as number;
  }

  get keyLo(): number {
    return this.words[this.at + KEY_LO] as number;
  }

  get keyHi(): number {
    return this.words[this.at + KEY_HI] as number;
  }

  /** True when the view was stored with an idempotency key. */
  get hasKey(): boolean {
    return this.keyLo !== 0 || this.keyHi !== 0;
  }

  /** Rewrites the view's classification in place (the chunk's words; store them to keep it). */
  reclassify(agent: number, category: number, flags: number, classifierVersion: number): void {
    const w = this.words;
    const packed = w[this.at + PACKED] as number;
    w[this.at + AGENT] = agent;
    w[this.at + PACKED] = ((packed & 0xffff) | ((category & 0xff) << 16) | ((flags & 0xff) << 24)) >>> 0;
    w[this.at + CLASSIFIER] = classifierVersion;
  }
}

/** Builds one chunk: RECORD_WORDS u32 per view. */
export class RecordWriter {
  readonly project: number;
  readonly day: number;
  words = new Uint32Array(RECORD_WORDS * 64);
  count = 0;
  /** The earliest and latest ms of day of the views in the chunk. */
  firstMs = Number.POSITIVE_INFINITY;
  lastMs = Number.NEGATIVE_INFINITY;

  constructor(project: number, day: number) {
    this.project = project;
    this.day = day;
  }

  push(
    msOfDay: number,
    path: number,
    visitor: number,
    agent: number,
    userAgent: number,
    referrer: number,
    status: number,
    category: number,
    flags: number,
    classifier: number,
    keyLo: number,
    keyHi: number,
  ): void {
    if ((this.count + 1) * RECORD_WORDS > this.words.length) {
      const grown = new Uint32Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
    }
    const w = this.words;
    const r = this.count * RECORD_WORDS;
    if (msOfDay < this.firstMs) this.firstMs = msOfDay;
    if (msOfDay > this.lastMs) this.lastMs = msOfDay;
    w[r + MS] = msOfDay;
    w[r + PATH] = path;
    w[r + VISITOR] = visitor;
    w[r + AGENT] = agent;
    w[r + USER_AGENT] = userAgent;
    w[r + REFERRER] = referrer;
    w[r + PACKED] = ((status & 0xffff) | ((category & 0xff) << 16) | ((flags & 0xff) << 24)) >>> 0;
    w[r + CLASSIFIER] = classifier;
    w[r + KEY_LO] = keyLo;
    w[r + KEY_HI] = keyHi;
    this.count++;
  }
}

/** A blob's u32 words (copied when SQLite hands it out at an offset not a multiple of 4). */
export function wordsOf(data: Buffer): Uint32Array {
  return data.byteOffset % 4 === 0
    ? new Uint32Array(data.buffer, data.byteOffset, data.length >> 2)
    : new Uint32Array(new Uint8Array(data).buffer);
}

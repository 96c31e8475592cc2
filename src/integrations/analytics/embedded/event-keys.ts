import type { AnalyticsDatabase } from './analytics-database.ts';
import { KeySet } from './key-set.ts';
import { type Chunk, ViewCursor } from './record.ts';

/** Most idempotency keys kept in memory across days by default (10–12 bytes each, see KeySet). */
export const DEFAULT_KEY_CACHE = 4_000_000;

/** One number per (project, day), for maps keyed by both. */
export function dayId(project: number, day: number): number {
  return project * 1_000_000 + day;
}

/**
 * An event key (a latin1 digest, see PreparedEvent.eventKey) as the two words a record keeps:
 * the little-endian words of its first 8 bytes; (0, 0) means "no key", so it becomes (1, 0).
 */
export function eventKeyWords(key: string): [lo: number, hi: number] {
  const lo = keyWordAt(key, 0, key.length, 0);
  const hi = keyWordAt(key, 0, key.length, 4);
  return lo === 0 && hi === 0 ? [1, 0] : [lo, hi];
}

/**
 * One word of `eventKeyWords` (`from` 0: lo, 4: hi) of the `length` characters at `at` of
 * `keys` (a batch's keys, concatenated), before (0, 0) becomes (1, 0): the thread that stores
 * views reads a batch's keys a word at a time: an array per key was about 6 % of what that
 * thread allocated in the benchmark.
 */
export function keyWordAt(keys: string, at: number, length: number, from: number): number {
  // A key shorter than 8 bytes reads as zeros past its end, not as the next key's bytes.
  const left = length - from;
  const p = at + from;
  const b0 = left > 0 ? keys.charCodeAt(p) : 0;
  const b1 = left > 1 ? keys.charCodeAt(p + 1) : 0;
  const b2 = left > 2 ? keys.charCodeAt(p + 2) : 0;
  const b3 = left > 3 ? keys.charCodeAt(p + 3) : 0;
  return (b0 | (b1 << 8) | (b2 << 16) | (b3 << 24)) >>> 0;
}

/**
 * The idempotency cache: the stored event keys of recent (project, day)s, each day's read from
 * its chunks the first time a batch brings a keyed event for it, least recently used evicted
 * past `limit` keys. A retried batch finds its keys here and adds no duplicate.
 */
export class EventKeyCache {
  private readonly sets = new Map<number, KeySet>();
  private cached = 0;
  private readonly db: AnalyticsDatabase;
  private readonly limit: number;

  constructor(db: AnalyticsDatabase, limit = DEFAULT_KEY_CACHE) {
    this.db = db;
    this.limit = limit;
  }

  get size(): number {
    return this.sets.size;
  }

  /** The stored keys of a (project, day), read from its chunks the first time. */
  keysOf(project: number, day: number): KeySet {
    const id = dayId(project, day);
    const cached = this.sets.get(id);
    if (cached) {
      // Most recently used last: eviction takes the oldest first.
      this.sets.delete(id);
      this.sets.set(id, cached);
      return cached;
    }
    const chunks = [...this.db.chunks.day(project, day, Number.MAX_SAFE_INTEGER)];
    // Sized once for the stored keys and the day's views to come, not grown key by key.
    const keys = new KeySet(chunks.reduce((n, chunk) => n + keyCount(chunk), 0));
    for (const chunk of chunks) addKeys(keys, chunk);
    this.sets.set(id, keys);
    this.cached += keys.size;
    for (const [oldId, old] of this.sets) {
      if (this.cached <= this.limit || oldId === id) break;
      this.sets.delete(oldId);
      this.cached -= old.size;
    }
    return keys;
  }

  /** A key was added to a set `keysOf` returned. */
  added(): void {
    this.cached++;
  }

  /** Takes a stored chunk's keys into its day's set, if cached and not `hasKeys` (filled already). */
  apply(chunk: Chunk, hasKeys?: KeySet): void {
    const keys = this.sets.get(dayId(chunk.project, chunk.day));
    if (!keys || keys === hasKeys) return;
    const before = keys.size;
    addKeys(keys, chunk);
    this.cached += keys.size - before;
  }

  clear(): void {
    this.sets.clear();
    this.cached = 0;
  }
}

function keyCount(chunk: Chunk): number {
  let n = 0;
  for (const v = new ViewCursor(chunk); v.next(); ) if (v.hasKey) n++;
  return n;
}

function addKeys(keys: KeySet, chunk: Chunk): void {
  for (const v = new ViewCursor(chunk); v.next(); ) if (v.hasKey) keys.add(v.keyLo, v.keyHi);
}

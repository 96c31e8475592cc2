// A write transaction's views as records: one chunk per (project, day), duplicates by event key
// left out (see encodeBatch).
import {
  CATEGORIES,
  CATEGORY_CODES,
  type Category,
  PURPOSE_CODES,
  PURPOSES,
  type Purpose,
} from '../../../domain/analytics/categories.ts';
import { VISITOR_KEY_BYTES } from '../../../domain/analytics/identity.ts';
import { STRING_FIELDS } from '../../../domain/analytics/prepared-batch.ts';
import type { AppendResult, PreparedColumns, PreparedEvent } from '../../../domain/analytics/store.ts';
import type { AnalyticsDatabase } from './analytics-database.ts';
import { DAY_MS } from './day-index.ts';
import type { Dictionary } from './dictionary.ts';
import { dayId, type EventKeyCache, eventKeyWords, keyWordAt } from './event-keys.ts';
import type { KeySet } from './key-set.ts';
import { type Chunk, flagsByte, RecordWriter } from './record.ts';
import type { PendingAppend } from './write-queue.ts';

export interface EncodedBatch {
  /** The chunks stored, one per (project, day) of the batch. */
  written: Chunk[];
  /** Per append of the batch, in order. */
  results: AppendResult[];
  /** The key sets of the days the batch's keyed events went to, already holding their keys. */
  touched: Map<number, KeySet>;
}

/**
 * Packs a batch's views into one chunk per (project, day) and stores them; call inside a write
 * transaction. A view whose event key is already stored (or earlier in the batch) is counted as
 * a duplicate and left out. New keys go straight into the day's cached key set (held in
 * `touched` even if the cache evicts it, so the batch is checked against itself): if the
 * transaction fails, the caller must clear the cache.
 */
export function encodeBatch(
  db: AnalyticsDatabase,
  keyCache: EventKeyCache,
  batch: readonly PendingAppend[],
  projectNos: readonly number[],
): EncodedBatch {
  const chunks = new ChunkTargets(keyCache);
  const results = batch.map((pending, i): AppendResult => {
    const project = projectNos[i] as number;
    const { events } = pending;
    return 'strings' in events
      ? encodeColumns(db, chunks, project, events)
      : encodeEvents(db, chunks, project, events);
  });
  const written: Chunk[] = [];
  for (const c of chunks.all()) {
    const seq = db.chunks.insert(c.project, c.day, c.count, c.words, c);
    written.push({ seq, project: c.project, day: c.day, count: c.count, words: c.words });
  }
  return { written, results, touched: chunks.touched };
}

function encodeEvents(
  db: AnalyticsDatabase,
  chunks: ChunkTargets,
  project: number,
  events: readonly PreparedEvent[],
): AppendResult {
  let accepted = 0;
  let duplicates = 0;
  for (const event of events) {
    const keyed = Boolean(event.eventKey);
    const [lo, hi] = keyed ? eventKeyWords(event.eventKey as string) : NO_KEY;
    const chunk = chunks.target(project, event.timestamp, keyed, lo, hi);
    if (!chunk) {
      duplicates++;
      continue;
    }
    chunk.push(
      event.timestamp - chunk.day * DAY_MS,
      db.paths.idFor(event.path),
      db.visitors.idFor(event.visitorKey),
      db.agents.idFor(event.agent),
      db.userAgents.idFor(event.userAgent),
      event.referrer === null ? 0 : db.referrers.idFor(event.referrer),
      event.status ?? 0,
      CATEGORY_CODES[event.category],
      flagsByte(event.flags, event.purpose === null ? 0 : PURPOSE_CODES[event.purpose], event.verified),
      event.classifierVersion,
      lo,
      hi,
    );
    accepted++;
  }
  return { accepted, duplicates };
}

/**
 * `encodeEvents` of the same events in columns: the same records, dictionary numbers handed
 * out in the same order, but each distinct string of the batch looked up once, and no object
 * per event (on the thread that stores views, those objects and their collection cost more
 * than the lookups).
 */
function encodeColumns(
  db: AnalyticsDatabase,
  chunks: ChunkTargets,
  project: number,
  columns: PreparedColumns,
): AppendResult {
  const { count, strings, stringRefs, eventKeys, eventKeyLengths } = columns;
  const keys = Buffer.from(
    columns.visitorKeys.buffer,
    columns.visitorKeys.byteOffset,
    columns.visitorKeys.length,
  );
  // Per distinct string and dictionary, its number once looked up (0: not yet).
  const paths = new Float64Array(strings.length);
  const agents = new Float64Array(strings.length);
  const userAgents = new Float64Array(strings.length);
  const referrers = new Float64Array(strings.length);
  const numberOf = (numbers: Float64Array, dictionary: Dictionary, ref: number): number => {
    let no = numbers[ref] as number;
    if (no === 0) {
      no = dictionary.idFor(strings[ref] as string);
      numbers[ref] = no;
    }
    return no;
  };
  let accepted = 0;
  let duplicates = 0;
  let keyAt = 0;
  for (let i = 0; i < count; i++) {
    const keyLength = eventKeyLengths[i] as number;
    const keyed = keyLength > 0;
    let lo = 0;
    let hi = 0;
    if (keyed) {
      lo = keyWordAt(eventKeys, keyAt, keyLength, 0);
      hi = keyWordAt(eventKeys, keyAt, keyLength, 4);
      if (lo === 0 && hi === 0) lo = 1;
      keyAt += keyLength;
    }
    const timestamp = columns.timestamps[i] as number;
    const chunk = chunks.target(project, timestamp, keyed, lo, hi);
    if (!chunk) {
      duplicates++;
      continue;
    }
    const at = i * STRING_FIELDS;
    const code = columns.codes[i] as number;
    const purpose = (code >> 3) & 7;
    const status = columns.statuses[i] as number;
    const referrer = stringRefs[at + 3] as number;
    // The same order of lookups as encodeEvents, so new strings get the same numbers.
    const path = numberOf(paths, db.paths, stringRefs[at] as number);
    const visitor = db.visitors.idForAt(keys, i * VISITOR_KEY_BYTES);
    const agent = numberOf(agents, db.agents, stringRefs[at + 2] as number);
    const userAgent = numberOf(userAgents, db.userAgents, stringRefs[at + 1] as number);
    chunk.push(
      timestamp - chunk.day * DAY_MS,
      path,
      visitor,
      agent,
      userAgent,
      referrer === -1 ? 0 : numberOf(referrers, db.referrers, referrer),
      status === -1 ? 0 : status,
      CATEGORY_CODES[CATEGORIES[code & 7] as Category],
      flagsByte(
        columns.flags[i] as number,
        purpose === 0 ? 0 : PURPOSE_CODES[PURPOSES[purpose - 1] as Purpose],
        (code & 64) !== 0,
      ),
      columns.classifierVersions[i] as number,
      lo,
      hi,
    );
    accepted++;
  }
  return { accepted, duplicates };
}

const NO_KEY: [number, number] = [0, 0];

/**
 * The batch's chunks, one per (project, day), and the key sets of the days its keyed views
 * went to. Views come in time order: the (project, day) rarely changes from one to the next.
 */
class ChunkTargets {
  readonly touched = new Map<number, KeySet>();
  private readonly chunks = new Map<number, RecordWriter>();
  private chunk: RecordWriter | null = null;
  private keys: KeySet | null = null;
  private readonly keyCache: EventKeyCache;

  constructor(keyCache: EventKeyCache) {
    this.keyCache = keyCache;
  }

  /**
   * The chunk a view at `timestamp` goes to; null when it is keyed and its key (lo, hi) is
   * stored already, or was earlier in the batch (a duplicate).
   */
  target(project: number, timestamp: number, keyed: boolean, lo: number, hi: number): RecordWriter | null {
    const day = Math.floor(timestamp / DAY_MS);
    let chunk = this.chunk;
    if (chunk === null || chunk.day !== day || chunk.project !== project) {
      const id = dayId(project, day);
      chunk = this.chunks.get(id) ?? null;
      if (!chunk) {
        chunk = new RecordWriter(project, day);
        this.chunks.set(id, chunk);
      }
      this.chunk = chunk;
      this.keys = null;
    }
    if (!keyed) return chunk;
    let keys = this.keys;
    if (keys === null) {
      const id = dayId(project, day);
      keys = this.touched.get(id) ?? this.keyCache.keysOf(project, day);
      this.touched.set(id, keys);
      this.keys = keys;
    }
    if (!keys.add(lo, hi)) return null;
    this.keyCache.added();
    return chunk;
  }

  all(): Iterable<RecordWriter> {
    return this.chunks.values();
  }
}

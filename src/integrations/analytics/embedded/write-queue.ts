import { CATEGORY_CODES, PURPOSE_CODES } from '../../../domain/analytics/categories.ts';
import type { AppendResult, PreparedEvent } from '../../../domain/analytics/store.ts';
import type { AnalyticsDatabase } from './analytics-database.ts';
import { DAY_MS } from './day-index.ts';
import { dayId, type EventKeyCache, eventKeyWords } from './event-keys.ts';
import type { KeySet } from './key-set.ts';
import { type Chunk, flagsByte, RecordWriter } from './record.ts';

export interface PendingAppend {
  projectId: string;
  events: readonly PreparedEvent[];
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: appends made in the same turn of the event loop are handed to `commit`
 * together, so concurrent requests share one transaction and one sync.
 */
export class WriteQueue {
  private queue: PendingAppend[] = [];
  private scheduled = false;
  private readonly commit: (batch: PendingAppend[]) => void;

  constructor(commit: (batch: PendingAppend[]) => void) {
    this.commit = commit;
  }

  push(projectId: string, events: readonly PreparedEvent[]): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ projectId, events, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits what is queued now (also on close); `commit` settles each append's promise. */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length > 0) this.commit(batch);
  }
}

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
  const chunks = new Map<number, RecordWriter>();
  const touched = new Map<number, KeySet>();
  let chunk: RecordWriter | null = null;
  let keys: KeySet | null = null;
  const results = batch.map((pending, i): AppendResult => {
    const project = projectNos[i] as number;
    let accepted = 0;
    let duplicates = 0;
    for (const event of pending.events) {
      const day = Math.floor(event.timestamp / DAY_MS);
      // Views come in time order: the (project, day) rarely changes from one view to the next.
      if (chunk === null || chunk.day !== day || chunk.project !== project) {
        const id = dayId(project, day);
        chunk = chunks.get(id) ?? null;
        if (!chunk) {
          chunk = new RecordWriter(project, day);
          chunks.set(id, chunk);
        }
        keys = null;
      }
      let lo = 0;
      let hi = 0;
      if (event.eventKey) {
        [lo, hi] = eventKeyWords(event.eventKey);
        if (keys === null) {
          const id = dayId(project, day);
          keys = touched.get(id) ?? keyCache.keysOf(project, day);
          touched.set(id, keys);
        }
        if (!keys.add(lo, hi)) {
          duplicates++;
          continue;
        }
        keyCache.added();
      }
      chunk.push(
        event.timestamp - day * DAY_MS,
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
  });
  const written: Chunk[] = [];
  for (const c of chunks.values()) {
    const seq = db.chunks.insert(c.project, c.day, c.count, c.words, c);
    written.push({ seq, project: c.project, day: c.day, count: c.count, words: c.words });
  }
  return { written, results, touched };
}

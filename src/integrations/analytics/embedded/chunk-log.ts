import type SqliteDatabase from 'better-sqlite3';
import { type Chunk, RECORD_WORDS, wordsOf } from './record.ts';

interface ChunkRow {
  seq: number;
  project: number;
  day: number;
  count: number;
  data: Buffer;
}

/**
 * The views, the source of truth: one row of `chunks` per (project, day) per commit, in commit
 * order by `seq`, holding that commit's views of the day as packed records (see record.ts).
 * Packing views 40 bytes apiece into one blob per commit keeps ingestion at well over 100,000
 * views a second; a row per view with a unique index on the idempotency key managed ~40,000.
 */
export class ChunkLog {
  private readonly statements;

  constructor(sqlite: SqliteDatabase.Database) {
    this.statements = {
      insert: sqlite.prepare(
        'insert into chunks (project, day, count, data, first_ms, last_ms) values (?, ?, ?, ?, ?, ?)',
      ),
      maxSeq: sqlite.prepare('select coalesce(max(seq), 0) from chunks').pluck(),
      // `count > 0`: a deleted project's chunks are kept empty (see `empty`) and add nothing.
      after: sqlite.prepare(
        'select seq, project, day, count, data from chunks where seq > ? and seq <= ? and count > 0 order by seq',
      ),
      projectAfter: sqlite.prepare(
        'select seq, project, day, count, data from chunks where project = ? and seq > ? and seq <= ? and count > 0 order by seq',
      ),
      // No ORDER BY: from this index it would sort the blobs; the caller sorts the few rows.
      projectDaySpan: sqlite.prepare(
        `select seq, project, day, count, data from chunks indexed by chunks_project_day_span
         where project = ? and day = ? and seq <= ? and count > 0
           and (first_ms is null or (last_ms >= ? and first_ms < ?))`,
      ),
      projectDay: sqlite.prepare(
        'select seq, project, day, count, data from chunks where project = ? and day = ? and seq <= ? and count > 0 order by seq',
      ),
      projectPage: sqlite.prepare(
        'select seq, project, day, count, data from chunks where project = ? and seq > ? order by seq limit ?',
      ),
      daysFrom: sqlite
        .prepare('select distinct day from chunks where project = ? and day >= ? and count > 0 order by day')
        .pluck(),
      rewrite: sqlite.prepare('update chunks set data = ? where seq = ?'),
      // Emptied, not deleted: sequence numbers never go back, or other processes following
      // the log by sequence would skip the next chunks written.
      empty: sqlite.prepare(
        `update chunks set count = 0, data = x'', first_ms = null, last_ms = null
         where project = ? and count > 0`,
      ),
    };
  }

  /** Stores a chunk (inside a write transaction); returns its seq. */
  insert(
    project: number,
    day: number,
    count: number,
    words: Uint32Array,
    span: { firstMs: number; lastMs: number },
  ): number {
    const data = Buffer.from(words.buffer, words.byteOffset, count * RECORD_WORDS * 4);
    return Number(
      this.statements.insert.run(project, day, count, data, span.firstMs, span.lastMs).lastInsertRowid,
    );
  }

  maxSeq(): number {
    return this.statements.maxSeq.get() as number;
  }

  /** Chunks with seq in (after, upTo], in seq order. */
  *after(after: number, upTo: number): Generator<Chunk> {
    for (const row of this.statements.after.iterate(after, upTo) as Iterable<ChunkRow>) yield toChunk(row);
  }

  *projectAfter(project: number, after: number, upTo: number): Generator<Chunk> {
    for (const row of this.statements.projectAfter.iterate(project, after, upTo) as Iterable<ChunkRow>) {
      yield toChunk(row);
    }
  }

  /** A day's chunks holding views with ms of day in [from, to) (and maybe others), in seq order. */
  dayInSpan(project: number, day: number, upTo: number, from: number, to: number): Chunk[] {
    const rows = this.statements.projectDaySpan.all(project, day, upTo, from, to) as ChunkRow[];
    return rows.sort((a, b) => a.seq - b.seq).map(toChunk);
  }

  *day(project: number, day: number, upTo: number): Generator<Chunk> {
    for (const row of this.statements.projectDay.iterate(project, day, upTo) as Iterable<ChunkRow>) {
      yield toChunk(row);
    }
  }

  /** The days from `day` on on which the project has views, in order. */
  daysFrom(project: number, day: number): Iterable<number> {
    return this.statements.daysFrom.iterate(project, day) as Iterable<number>;
  }

  /** Up to `limit` chunks of a project with seq above `after`, in seq order. */
  projectPage(project: number, after: number, limit: number): Chunk[] {
    return (this.statements.projectPage.all(project, after, limit) as ChunkRow[]).map(toChunk);
  }

  /** Replaces a chunk's views (inside a write); their count and order must not change. */
  rewrite(seq: number, words: Uint32Array): void {
    this.statements.rewrite.run(Buffer.from(words.buffer, words.byteOffset, words.byteLength), seq);
  }

  /** Empties every chunk of the project (inside a write). */
  emptyProject(project: number): void {
    this.statements.empty.run(project);
  }
}

function toChunk(row: ChunkRow): Chunk {
  // Typed arrays need 4-byte alignment; SQLite hands out blobs at any offset.
  return { seq: row.seq, project: row.project, day: row.day, count: row.count, words: wordsOf(row.data) };
}

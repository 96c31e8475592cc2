import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';

/**
 * The embedded analytics file: a SQLite database in WAL mode in the data dir. It holds the raw
 * views (the source of truth) as packed chunks, one row per (project, day) per commit, in
 * commit order by `seq`; the dictionaries that turn paths, visitor keys, agents, user agents
 * and referrers into dense integers; per-day snapshots of the in-memory index; the identity
 * salts; and the per-project analytics settings. Several processes may share it (the server
 * and `docwright analytics import`): SQLite serialises the writers.
 *
 * Packing views 40 bytes apiece into one blob per commit keeps ingestion at well over 100,000
 * views a second; a row per view with a unique index on the idempotency key managed ~40,000.
 */
const SCHEMA_VERSION = 5;

const SCHEMA = `
create table if not exists projects (no integer primary key, value text not null unique);
create table if not exists paths (no integer primary key, value text not null unique);
create table if not exists agents (no integer primary key, value text not null unique);
create table if not exists user_agents (no integer primary key, value text not null unique);
create table if not exists referrers (no integer primary key, value text not null unique);
create table if not exists visitor_blocks (block integer primary key, data blob not null);
create table if not exists visitor_block_periods (
  block integer primary key,
  first_period integer not null,
  last_period integer not null,
  fixed integer not null
);
create table if not exists chunks (
  seq integer primary key,
  project integer not null,
  day integer not null,
  count integer not null,
  data blob not null,
  first_ms integer,
  last_ms integer
);
create index if not exists chunks_project_day on chunks (project, day);
create table if not exists day_snapshots (
  project integer not null,
  day integer not null,
  data blob not null,
  primary key (project, day)
);
create table if not exists snapshot_marks (project integer primary key, covered_seq integer not null);
create table if not exists salts (period text primary key, salt blob not null, created_at text not null);
create table if not exists settings (project_id text primary key, value text not null);
create table if not exists index_generations (project integer primary key, generation integer not null);
`;

/** u32 words per stored view; see `ChunkWriter.push` for the layout. */
export const RECORD_WORDS = 10;

export interface AnalyticsDatabaseOptions {
  file: string;
  /**
   * `full` (default) syncs the WAL on every commit, so an acknowledged view survives power
   * loss; `normal` survives a process crash only.
   */
  synchronous?: 'full' | 'normal';
  /**
   * A lock shared with the other threads of this process that write to the same file (import
   * workers; see `ThreadLock`), taken around each write transaction.
   */
  threadLock?: SharedArrayBuffer;
  /**
   * `recent` (default): load the visitor keys of recent salt periods first, older ones when one
   * comes up (see VisitorDictionary); `all`: every key before the first write (log imports,
   * which mostly bring older periods).
   */
  visitorKeys?: 'recent' | 'all';
}

/** A stored chunk: `words` holds `count` records of RECORD_WORDS u32 each. */
export interface Chunk {
  seq: number;
  project: number;
  day: number;
  count: number;
  words: Uint32Array;
}

interface ChunkRow {
  seq: number;
  project: number;
  day: number;
  count: number;
  data: Buffer;
}

export class AnalyticsDatabase {
  readonly sqlite: SqliteDatabase.Database;
  readonly projects: Dictionary;
  readonly paths: Dictionary;
  readonly agents: Dictionary;
  readonly userAgents: Dictionary;
  readonly referrers: Dictionary;
  readonly visitors: VisitorDictionary;
  private readonly salts = new Map<string, Buffer>();
  private readonly statements;
  private readonly threadLock: ThreadLock | null;

  constructor(options: AnalyticsDatabaseOptions) {
    mkdirSync(path.dirname(options.file), { recursive: true });
    const sqlite = new SqliteDatabase(options.file, { timeout: 15_000 });
    this.sqlite = sqlite;
    this.threadLock = options.threadLock ? new ThreadLock(options.threadLock) : null;
    // Two processes (or import workers) opening a new file at once: switching it to WAL can
    // fail with SQLITE_BUSY without waiting on the busy timeout.
    retryWhileBusy(() => sqlite.pragma('journal_mode = WAL'));
    sqlite.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    sqlite.pragma('cache_size = -65536'); // 64 MiB: the visitor dictionary's hot pages
    const version = sqlite.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new Error(
        `The analytics file ${options.file} was written by a newer Docwright (schema ${version}); upgrade Docwright`,
      );
    }
    if (version < SCHEMA_VERSION) {
      retryWhileBusy(() =>
        sqlite
          .transaction(() => {
            sqlite.exec(SCHEMA);
            // Schema 3 added index_generations (created above). Schema 4 adds each chunk's
            // time span (null for older chunks: read them whatever the span asked for).
            const columns = sqlite.prepare('select name from pragma_table_info(?)').pluck().all('chunks');
            if (!columns.includes('first_ms')) {
              sqlite.exec(
                'alter table chunks add column first_ms integer; alter table chunks add column last_ms integer',
              );
            }
            // The span is filtered in an index of its own: columns after a blob are slow to reach.
            sqlite.exec(
              'create index if not exists chunks_project_day_span on chunks (project, day, first_ms, last_ms)',
            );
            // Schema 1 kept one row per visitor key: move them into blocks (see VisitorDictionary).
            const old = sqlite.prepare("select 1 from sqlite_master where name = 'visitor_keys'").get();
            if (old) {
              moveVisitorKeysToBlocks(sqlite);
              sqlite.exec('drop table visitor_keys');
            }
            // Schema 5 records the periods of each block of visitor keys.
            describeVisitorBlocks(sqlite);
            sqlite.pragma(`user_version = ${SCHEMA_VERSION}`);
          })
          .immediate(),
      );
    }

    this.projects = new Dictionary(sqlite, 'projects', false);
    this.paths = new Dictionary(sqlite, 'paths', true);
    this.agents = new Dictionary(sqlite, 'agents', true);
    this.userAgents = new Dictionary(sqlite, 'user_agents', false, 100_000);
    this.referrers = new Dictionary(sqlite, 'referrers', false, 100_000);
    this.visitors = new VisitorDictionary(sqlite, options.visitorKeys ?? 'recent');

    this.statements = {
      insertChunk: sqlite.prepare(
        'insert into chunks (project, day, count, data, first_ms, last_ms) values (?, ?, ?, ?, ?, ?)',
      ),
      maxSeq: sqlite.prepare('select coalesce(max(seq), 0) from chunks').pluck(),
      // `count > 0`: a deleted project's chunks are kept empty (see deleteProject) and add nothing.
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
      snapshots: sqlite.prepare('select day, data from day_snapshots where project = ?'),
      projectPage: sqlite.prepare(
        'select seq, project, day, count, data from chunks where project = ? and seq > ? order by seq limit ?',
      ),
      rewriteChunk: sqlite.prepare('update chunks set data = ? where seq = ?'),
      generation: sqlite.prepare('select generation from index_generations where project = ?').pluck(),
      bumpGeneration: sqlite.prepare(
        `insert into index_generations (project, generation) values (?, 1)
         on conflict (project) do update set generation = generation + 1`,
      ),
      deleteSnapshots: sqlite.prepare('delete from day_snapshots where project = ?'),
      deleteCovered: sqlite.prepare('delete from snapshot_marks where project = ?'),
      covered: sqlite.prepare('select covered_seq from snapshot_marks where project = ?').pluck(),
      upsertSnapshot: sqlite.prepare(
        `insert into day_snapshots (project, day, data) values (?, ?, ?)
         on conflict (project, day) do update set data = excluded.data`,
      ),
      upsertCovered: sqlite.prepare(
        `insert into snapshot_marks (project, covered_seq) values (?, ?)
         on conflict (project) do update set covered_seq = excluded.covered_seq`,
      ),
      selectSalt: sqlite.prepare('select salt from salts where period = ?').pluck(),
      saltPeriods: sqlite.prepare('select period from salts').pluck(),
      deleteSalt: sqlite.prepare('delete from salts where period = ?'),
      insertSalt: sqlite.prepare(
        'insert into salts (period, salt, created_at) values (?, ?, ?) on conflict (period) do nothing',
      ),
      selectSettings: sqlite.prepare('select value from settings where project_id = ?').pluck(),
      deleteSettings: sqlite.prepare('delete from settings where project_id = ?'),
      // Emptied, not deleted: sequence numbers never go back, or other processes following
      // the log by sequence would skip the next chunks written.
      emptyChunks: sqlite.prepare(
        `update chunks set count = 0, data = x'', first_ms = null, last_ms = null
         where project = ? and count > 0`,
      ),
      upsertSettings: sqlite.prepare(
        `insert into settings (project_id, value) values (?, ?)
         on conflict (project_id) do update set value = excluded.value`,
      ),
    };
  }

  /**
   * Runs `fn` holding the write lock (BEGIN IMMEDIATE). Dictionary entries added inside are
   * forgotten again if it throws.
   */
  write<T>(fn: () => T): T {
    const run = this.sqlite.transaction(() => {
      this.visitors.sync();
      const result = fn();
      this.visitors.store();
      return result;
    });
    // The first write needs every visitor key in memory (a second or so for millions): read
    // them before taking the lock, so other writers are not held up; the write tops them up.
    if (!this.visitors.isLoaded()) this.sqlite.transaction(() => this.visitors.sync()).deferred();
    this.threadLock?.acquire();
    try {
      // BEGIN IMMEDIATE can answer SQLITE_BUSY at once in WAL mode when another process is
      // mid-checkpoint or mid-recovery; nothing has run then, so trying again is safe.
      const result = retryWhileBusy(() => run.immediate());
      this.forEachDictionary((d) => d.commit());
      return result;
    } catch (error) {
      this.forEachDictionary((d) => d.rollback());
      throw error;
    } finally {
      this.threadLock?.release();
    }
  }

  /** Stores a chunk (inside `write`); returns its seq. */
  insertChunk(
    project: number,
    day: number,
    count: number,
    words: Uint32Array,
    span: { firstMs: number; lastMs: number },
  ): number {
    const data = Buffer.from(words.buffer, words.byteOffset, count * RECORD_WORDS * 4);
    return Number(
      this.statements.insertChunk.run(project, day, count, data, span.firstMs, span.lastMs).lastInsertRowid,
    );
  }

  /** The dense number of a project, created on first use. */
  projectNo(projectId: string): number {
    const known = this.projects.find(projectId);
    if (known !== undefined) return known;
    return this.write(() => this.projects.idFor(projectId));
  }

  maxSeq(): number {
    return this.statements.maxSeq.get() as number;
  }

  /** Chunks with seq in (after, upTo], in seq order. */
  *chunksAfter(after: number, upTo: number): Generator<Chunk> {
    for (const row of this.statements.after.iterate(after, upTo) as Iterable<ChunkRow>) yield toChunk(row);
  }

  *projectChunksAfter(project: number, after: number, upTo: number): Generator<Chunk> {
    for (const row of this.statements.projectAfter.iterate(project, after, upTo) as Iterable<ChunkRow>) {
      yield toChunk(row);
    }
  }

  /** A day's chunks holding views with ms of day in [from, to) (and maybe others), in seq order. */
  dayChunksInSpan(project: number, day: number, upTo: number, from: number, to: number): Chunk[] {
    const rows = this.statements.projectDaySpan.all(project, day, upTo, from, to) as ChunkRow[];
    return rows.sort((a, b) => a.seq - b.seq).map(toChunk);
  }

  *dayChunks(project: number, day: number, upTo: number): Generator<Chunk> {
    for (const row of this.statements.projectDay.iterate(project, day, upTo) as Iterable<ChunkRow>) {
      yield toChunk(row);
    }
  }

  /** Up to `limit` chunks of a project with seq above `after`, in seq order. */
  projectChunkPage(project: number, after: number, limit: number): Chunk[] {
    return (this.statements.projectPage.all(project, after, limit) as ChunkRow[]).map(toChunk);
  }

  /** Replaces a chunk's views (inside `write`); their count and order must not change. */
  rewriteChunk(seq: number, words: Uint32Array): void {
    this.statements.rewriteChunk.run(Buffer.from(words.buffer, words.byteOffset, words.byteLength), seq);
  }

  /**
   * Bumped when a project's stored views are rewritten in place (reclassification): processes
   * holding an index of the project built from the old views see the change and rebuild it.
   */
  generation(project: number): number {
    return (this.statements.generation.get(project) as number | undefined) ?? 0;
  }

  /** After rewriting a project's views (inside `write`): drop its snapshots, bump its generation. */
  invalidateIndex(project: number): void {
    this.statements.deleteSnapshots.run(project);
    this.statements.deleteCovered.run(project);
    this.statements.bumpGeneration.run(project);
  }

  /** One more than the highest visitor number: the size of a visitor bitmap. */
  visitorUniverse(): number {
    return this.visitors.universe();
  }

  loadSnapshots(projectNo: number): { covered: number; days: Buffer[] } {
    const read = this.sqlite.transaction(() => ({
      covered: (this.statements.covered.get(projectNo) as number | undefined) ?? 0,
      days: (this.statements.snapshots.all(projectNo) as Array<{ data: Buffer }>).map((r) => r.data),
    }));
    return read.deferred();
  }

  /**
   * Writes a checkpoint of a project's index at `covered`, built at index `generation`.
   * `changedSince(stored)` yields the days changed after the stored checkpoint, one at a time (a
   * day's snapshot can be tens of megabytes: never all at once); nothing is written when another
   * process has already checkpointed as far, or when the project's views were rewritten since.
   */
  saveSnapshots(
    projectNo: number,
    covered: number,
    generation: number,
    changedSince: (storedCovered: number) => Iterable<{ day: number; data: Buffer }>,
  ): number {
    const write = this.sqlite.transaction(() => {
      // An index built before the views were rewritten must not be saved over the new ones.
      if (this.generation(projectNo) !== generation) return 0;
      const stored = (this.statements.covered.get(projectNo) as number | undefined) ?? 0;
      if (stored >= covered) return 0;
      let written = 0;
      for (const { day, data } of changedSince(stored)) {
        this.statements.upsertSnapshot.run(projectNo, day, data);
        written++;
      }
      this.statements.upsertCovered.run(projectNo, covered);
      return written;
    });
    return write.immediate();
  }

  salt(period: string): Buffer {
    const cached = this.salts.get(period);
    if (cached) return cached;
    let salt = this.statements.selectSalt.get(period) as Buffer | undefined;
    if (!salt) {
      // Two processes may race here: the first insert wins and both read it back.
      this.statements.insertSalt.run(period, randomBytes(32), new Date().toISOString());
      salt = this.statements.selectSalt.get(period) as Buffer;
    }
    this.salts.set(period, salt);
    return salt;
  }

  /** Deletes the salts of the periods `expired` picks; returns them. */
  forgetSalts(expired: (period: string) => boolean): string[] {
    const forget = this.sqlite.transaction(() => {
      const periods = (this.statements.saltPeriods.all() as string[]).filter(expired);
      for (const period of periods) this.statements.deleteSalt.run(period);
      return periods;
    });
    const periods = forget.immediate();
    for (const period of periods) this.salts.delete(period);
    return periods;
  }

  settings(projectId: string): string | null {
    return (this.statements.selectSettings.get(projectId) as string | undefined) ?? null;
  }

  saveSettings(projectId: string, value: string): void {
    this.statements.upsertSettings.run(projectId, value);
  }

  deleteSettings(projectId: string): void {
    this.statements.deleteSettings.run(projectId);
  }

  /** Empties the project's chunks, drops its snapshots and settings (inside `write`). */
  deleteProject(project: number, projectId: string): void {
    this.statements.emptyChunks.run(project);
    this.statements.deleteSettings.run(projectId);
    this.invalidateIndex(project);
  }

  close(): void {
    this.sqlite.close();
  }

  private forEachDictionary(fn: (d: { commit(): void; rollback(): void }) => void): void {
    for (const d of [this.projects, this.paths, this.agents, this.userAgents, this.referrers, this.visitors])
      fn(d);
  }
}

/**
 * Flushes the analytics file and its write-ahead log to disk. Writers with `synchronous:
 * 'normal'` commit without syncing the log (their commits survive a process crash, not a power
 * cut); after this, every commit made so far survives a power cut too. In WAL mode, a commit is
 * either still in the log or was checkpointed into the file, which SQLite syncs after syncing
 * the log, so syncing both files (and the folder, for a log created since) covers every commit.
 */
export function syncToDisk(file: string): void {
  for (const name of [`${file}-wal`, file]) if (existsSync(name)) fsyncPath(name);
  try {
    fsyncPath(path.dirname(file));
  } catch {
    // Some platforms (Windows) cannot open a folder to sync it; the files are synced.
  }
}

function fsyncPath(name: string): void {
  const fd = openSync(name, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Runs `fn` again, 10 ms apart and for at most 15 s, while SQLite answers SQLITE_BUSY. */
function retryWhileBusy<T>(fn: () => T): T {
  const deadline = Date.now() + 15_000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      return fn();
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
}

function toChunk(row: ChunkRow): Chunk {
  const { data } = row;
  // Typed arrays need 4-byte alignment; SQLite hands out blobs at any offset.
  const words =
    data.byteOffset % 4 === 0
      ? new Uint32Array(data.buffer, data.byteOffset, data.length >> 2)
      : new Uint32Array(new Uint8Array(data).buffer);
  return { seq: row.seq, project: row.project, day: row.day, count: row.count, words };
}

/**
 * Value ↔ dense integer, stored in a table of its own and cached in memory. Numbers never
 * change once assigned, so a cache entry is never stale; entries added inside a transaction
 * are dropped again if it rolls back.
 */
export class Dictionary {
  private readonly byValue = new Map<string, number>();
  private readonly names: Array<string | undefined> = [];
  private staged: Array<[string, number]> = [];
  private readonly keepNames: boolean;
  private readonly cacheLimit: number;
  private readonly select;
  private readonly insert;
  private readonly selectName;

  constructor(
    sqlite: SqliteDatabase.Database,
    table: string,
    keepNames: boolean,
    cacheLimit = Number.POSITIVE_INFINITY,
  ) {
    this.keepNames = keepNames;
    this.cacheLimit = cacheLimit;
    this.select = sqlite.prepare(`select no from ${table} where value = ?`).pluck();
    this.insert = sqlite.prepare(`insert into ${table} (value) values (?)`);
    this.selectName = sqlite.prepare(`select value from ${table} where no = ?`).pluck();
  }

  /** The number for `value`, assigned if new. Call inside a write transaction. */
  idFor(value: string): number {
    const cached = this.byValue.get(value);
    if (cached !== undefined) return cached;
    let no = this.select.get(value) as number | undefined;
    if (no === undefined) no = Number(this.insert.run(value).lastInsertRowid);
    if (this.byValue.size >= this.cacheLimit) this.byValue.clear();
    this.byValue.set(value, no);
    this.staged.push([value, no]);
    if (this.keepNames) this.names[no] = value;
    return no;
  }

  /** The number for `value` if it has one; never writes. */
  find(value: string): number | undefined {
    return this.byValue.get(value) ?? (this.select.get(value) as number | undefined);
  }

  nameOf(no: number): string {
    let name = this.names[no];
    if (name === undefined) {
      name = (this.selectName.get(no) as string | undefined) ?? `#${no}`;
      this.names[no] = name;
    }
    return name;
  }

  commit(): void {
    this.staged = [];
  }

  rollback(): void {
    // The numbers were never committed and may be handed to other values later.
    for (const [key, no] of this.staged) {
      this.byValue.delete(key);
      this.names[no] = undefined;
    }
    this.staged = [];
  }
}

/**
 * Visitor keys per row of `visitor_blocks`: 4 KiB blobs. A transaction that numbers a new
 * visitor rewrites the last block, so a block is kept to about one database page.
 */
const BLOCK_KEYS = 256;
const KEY_BYTES = 16;

/**
 * Periods (their first day, which starts every key: see VisitorIdentity) more than this many
 * days older than the newest stored one are loaded only when a key of such a period comes up.
 */
const RECENT_PERIOD_DAYS = 8;

/**
 * 16-byte visitor keys ↔ dense visitor numbers. Keys are stored in number order, 256 to a
 * row of `visitor_blocks` (visitor n is at block ⌊(n − 1) / 256⌋), so loading a million keys
 * is 3,907 blob reads rather than a million rows, and a new visitor is an append to the last
 * block. The key → number lookup is an in-memory open-addressing table (about 27 bytes per
 * key), filled on the first write and topped up from the blocks other processes appended to at
 * the start of each write transaction.
 *
 * Under salt rotation every period brings new keys, so the table starts with only the keys of
 * recent periods and of period 0 (rotation `never`, caller-given ids): `visitor_block_periods`
 * records which periods each block holds. Live traffic stays in recent periods; the first key
 * of an older one loads every remaining block before it is looked up, so numbering stays exact.
 */
export class VisitorDictionary {
  private table = new Uint32Array(0);
  private mask = -1;
  private size = 0;
  /** The highest number handed out, by any process, as of the last `sync`. */
  private known = 0;
  /** Keys of periods from this first day on (and of period 0) are all in `table`; 0: every key. */
  private recentFrom = 0;
  /** The last block when `loadRecent` ran: the older blocks it skipped are all before it. */
  private recentBlock = 0;
  /** The last block's keys, as stored plus this transaction's appends. */
  private tail = Buffer.alloc(BLOCK_KEYS * KEY_BYTES);
  private tailBlock = 0;
  private tailDirty = false;
  private dirty = false;
  private readonly blocksFrom;
  private readonly upsertBlock;
  private readonly upsertPeriods;
  private readonly lastBlock;
  private readonly newestPeriod;
  private readonly recentBlocks;
  private readonly olderBlocks;
  private readonly recentBlockCount;
  private readonly olderBlockCount;
  private readonly loadAll: boolean;

  constructor(sqlite: SqliteDatabase.Database, load: 'recent' | 'all') {
    this.loadAll = load === 'all';
    this.blocksFrom = sqlite
      .prepare('select block, data from visitor_blocks where block >= ? order by block')
      .raw();
    this.upsertBlock = sqlite.prepare(
      'insert into visitor_blocks (block, data) values (?, ?) on conflict (block) do update set data = excluded.data',
    );
    this.upsertPeriods = sqlite.prepare(
      `insert into visitor_block_periods (block, first_period, last_period, fixed) values (?, ?, ?, ?)
       on conflict (block) do update set first_period = excluded.first_period,
         last_period = excluded.last_period, fixed = excluded.fixed`,
    );
    this.lastBlock = sqlite
      .prepare('select block, length(data) from visitor_blocks order by block desc limit 1')
      .raw();
    this.newestPeriod = sqlite.prepare('select max(last_period) from visitor_block_periods').pluck();
    // Each condition serves a select and the count that sizes the table for it, so they agree.
    // Recent: the last block on, blocks with a recent period or period-0 keys, undescribed blocks.
    const recent = `block >= ?
      or block in (select block from visitor_block_periods where last_period >= ? or fixed > 0)
      or block not in (select block from visitor_block_periods)`;
    // Older: exactly the blocks before that last block which `recent` leaves out.
    const older =
      'block in (select block from visitor_block_periods where last_period < ? and fixed = 0) and block < ?';
    this.recentBlocks = sqlite
      .prepare(`select block, data from visitor_blocks where ${recent} order by block`)
      .raw();
    this.olderBlocks = sqlite
      .prepare(`select block, data from visitor_blocks where ${older} order by block`)
      .raw();
    this.recentBlockCount = sqlite.prepare(`select count(*) from visitor_blocks where ${recent}`).pluck();
    this.olderBlockCount = sqlite.prepare(`select count(*) from visitor_blocks where ${older}`).pluck();
  }

  isLoaded(): boolean {
    return this.mask !== -1;
  }

  /** How many keys are in memory. */
  loadedKeys(): number {
    return this.size;
  }

  /** Start of a write transaction: take in the visitors other processes numbered since. */
  sync(): void {
    if (this.mask === -1) {
      this.loadRecent();
      return;
    }
    this.loadBlocks(
      this.blocksFrom.iterate(Math.floor(this.known / BLOCK_KEYS)) as Iterable<[number, Buffer]>,
    );
  }

  /** The number for `key`, assigned if new. Call inside a write transaction, after `sync`. */
  idFor(key: Buffer): number {
    const period = key.readUInt32BE(0);
    if (period !== 0 && period < this.recentFrom) this.loadOlder();
    let no = this.get(key);
    if (no === 0) {
      no = this.known + 1;
      const block = Math.floor((no - 1) / BLOCK_KEYS);
      if (block !== this.tailBlock) {
        this.store();
        this.tailBlock = block;
        this.tail.fill(0);
      }
      key.copy(this.tail, ((no - 1) % BLOCK_KEYS) * KEY_BYTES, 0, KEY_BYTES);
      this.tailDirty = true;
      this.put(key, no);
      this.known = no;
      this.dirty = true;
    }
    return no;
  }

  /** End of a write transaction: store the appended keys, and which periods their block holds. */
  store(): void {
    if (!this.tailDirty) return;
    const count = this.known - this.tailBlock * BLOCK_KEYS;
    const keys = Math.min(BLOCK_KEYS, Math.max(0, count));
    this.upsertBlock.run(this.tailBlock, this.tail.subarray(0, keys * KEY_BYTES));
    const { first, last, fixed } = blockPeriods(this.tail, keys);
    this.upsertPeriods.run(this.tailBlock, first, last, fixed);
    this.tailDirty = false;
  }

  /** First load: the blocks holding recent periods or period 0, and the last block. */
  private loadRecent(): void {
    const [block, bytes] = (this.lastBlock.get() as [number, number] | undefined) ?? [0, 0];
    const newest = (this.newestPeriod.get() as number | null) ?? 0;
    // recentFrom 0: every period counts as recent, so the query below reads every block.
    this.recentFrom = this.loadAll ? 0 : Math.max(1, newest - RECENT_PERIOD_DAYS);
    this.recentBlock = block;
    this.resize(tableCapacity((this.recentBlockCount.get(block, this.recentFrom) as number) * BLOCK_KEYS));
    this.loadBlocks(this.recentBlocks.iterate(block, this.recentFrom) as Iterable<[number, Buffer]>);
    // Blocks skipped above hold only older periods: `loadOlder` reads them when needed.
    this.known = Math.max(this.known, block * BLOCK_KEYS + bytes / KEY_BYTES);
  }

  /**
   * A key of an older period came up (a late event, a backfill): loads every block `loadRecent`
   * skipped, at once and into a table sized for them, then every key is in memory. Live traffic
   * rarely gets here; a backfill then costs what loading everything always did.
   */
  private loadOlder(): void {
    const blocks = this.olderBlockCount.get(this.recentFrom, this.recentBlock) as number;
    if ((this.size + blocks * BLOCK_KEYS) * 4 > (this.mask + 1) * 3) {
      this.resize(tableCapacity(this.size + blocks * BLOCK_KEYS));
    }
    const rows = this.olderBlocks.iterate(this.recentFrom, this.recentBlock) as Iterable<[number, Buffer]>;
    for (const [block, data] of rows) this.placeBlock(block, data, 0);
    this.recentFrom = 0;
  }

  /** Places a stored block's keys from its `start`th on (the table must have room). */
  private placeBlock(block: number, data: Buffer, start: number): void {
    const words = wordsOf(data);
    const first = block * BLOCK_KEYS;
    for (let i = start; i < data.length / KEY_BYTES; i++) {
      const at = i * 4;
      this.place(
        words[at] as number,
        words[at + 1] as number,
        words[at + 2] as number,
        words[at + 3] as number,
        first + i + 1,
      );
    }
  }

  /** Places the keys of blocks in number order, from `known` on for the block it falls in. */
  private loadBlocks(rows: Iterable<[number, Buffer]>): void {
    let last: Buffer | null = null;
    let lastNo = -1;
    for (const [block, data] of rows) {
      const first = block * BLOCK_KEYS;
      const count = data.length / KEY_BYTES;
      const start = Math.max(0, this.known - first);
      if ((this.size + count - start) * 4 > (this.mask + 1) * 3) {
        this.resize(tableCapacity(this.size + count - start));
      }
      this.placeBlock(block, data, start);
      if (first + count > this.known) this.known = first + count;
      last = data;
      lastNo = block;
    }
    // The block the next number goes into, with the keys it already has.
    this.tailBlock = Math.floor(this.known / BLOCK_KEYS);
    this.tail.fill(0);
    if (last && lastNo === this.tailBlock) last.copy(this.tail, 0);
  }

  /** One more than the highest number handed out, by any process. */
  universe(): number {
    const [block, bytes] = (this.lastBlock.get() as [number, number] | undefined) ?? [0, 0];
    return Math.max(this.known, block * BLOCK_KEYS + bytes / KEY_BYTES) + 1;
  }

  commit(): void {
    this.dirty = false;
  }

  rollback(): void {
    // Numbers handed out in the failed transaction were never stored: start again from the table.
    if (!this.dirty) return;
    this.table = new Uint32Array(0);
    this.mask = -1;
    this.size = 0;
    this.known = 0;
    this.recentFrom = 0;
    this.recentBlock = 0;
    this.tailBlock = 0;
    this.tailDirty = false;
    this.tail.fill(0);
    this.dirty = false;
  }
  private slotOf(k1: number, k2: number): number {
    return (Math.imul(k1 ^ Math.imul(k2, 0x85ebca6b), 0x9e3779b1) >>> 0) & this.mask;
  }

  /** The key's number, or 0. Slots are 5 words: the key's four, then its number. */
  private get(key: Buffer): number {
    return this.find(key.readUInt32LE(0), key.readUInt32LE(4), key.readUInt32LE(8), key.readUInt32LE(12));
  }

  private find(k0: number, k1: number, k2: number, k3: number): number {
    const t = this.table;
    let slot = this.slotOf(k1, k2);
    for (;;) {
      const at = slot * 5;
      const no = t[at + 4] as number;
      if (no === 0) return 0;
      if (t[at] === k0 && t[at + 1] === k1 && t[at + 2] === k2 && t[at + 3] === k3) return no;
      slot = (slot + 1) & this.mask;
    }
  }

  private put(key: Buffer, no: number): void {
    if ((this.size + 1) * 4 > (this.mask + 1) * 3) this.resize((this.mask + 1) * 2);
    this.place(key.readUInt32LE(0), key.readUInt32LE(4), key.readUInt32LE(8), key.readUInt32LE(12), no);
  }

  private place(k0: number, k1: number, k2: number, k3: number, no: number): void {
    const t = this.table;
    let slot = this.slotOf(k1, k2);
    for (;;) {
      const at = slot * 5;
      if (t[at + 4] === 0) {
        t[at] = k0;
        t[at + 1] = k1;
        t[at + 2] = k2;
        t[at + 3] = k3;
        t[at + 4] = no;
        this.size++;
        return;
      }
      slot = (slot + 1) & this.mask;
    }
  }

  private resize(capacity: number): void {
    const old = this.table;
    this.table = new Uint32Array(capacity * 5);
    this.mask = capacity - 1;
    this.size = 0;
    for (let at = 0; at < old.length; at += 5) {
      const no = old[at + 4] as number;
      if (no !== 0)
        this.place(
          old[at] as number,
          old[at + 1] as number,
          old[at + 2] as number,
          old[at + 3] as number,
          no,
        );
    }
  }
}

/** A blob's u32 words (copied when SQLite hands it out at an offset not a multiple of 4). */
function wordsOf(data: Buffer): Uint32Array {
  // Keys are read in the machine's byte order, little-endian on x86 and ARM, as chunk words are.
  return data.byteOffset % 4 === 0
    ? new Uint32Array(data.buffer, data.byteOffset, data.length >> 2)
    : new Uint32Array(new Uint8Array(data).buffer);
}

/**
 * The periods a block of keys holds: the first and last non-zero period (a key's first four
 * bytes, big-endian), -1 when there is none, and how many keys are of period 0.
 */
function blockPeriods(data: Buffer, keys: number): { first: number; last: number; fixed: number } {
  let first = -1;
  let last = -1;
  let fixed = 0;
  for (let i = 0; i < keys; i++) {
    const period = data.readUInt32BE(i * KEY_BYTES);
    if (period === 0) fixed++;
    else {
      if (first === -1 || period < first) first = period;
      if (period > last) last = period;
    }
  }
  return { first, last, fixed };
}

/** A power of two with room for `keys` at a load factor of at most ¾. */
function tableCapacity(keys: number): number {
  let capacity = 1 << 16;
  while (capacity * 3 < keys * 4 + 4) capacity *= 2;
  return capacity;
}

/** Schema 5: `visitor_block_periods` rows for the blocks that have none. */
function describeVisitorBlocks(sqlite: SqliteDatabase.Database): void {
  const insert = sqlite.prepare(
    'insert into visitor_block_periods (block, first_period, last_period, fixed) values (?, ?, ?, ?)',
  );
  // A page at a time: the connection cannot insert while it iterates.
  const page = sqlite
    .prepare(
      `select block, data from visitor_blocks
       where block > ? and block not in (select block from visitor_block_periods)
       order by block limit 1024`,
    )
    .raw();
  let after = -1;
  for (;;) {
    const rows = page.all(after) as Array<[number, Buffer]>;
    if (rows.length === 0) return;
    for (const [block, data] of rows) {
      const { first, last, fixed } = blockPeriods(data, data.length / KEY_BYTES);
      insert.run(block, first, last, fixed);
      after = block;
    }
  }
}

/** Schema 1 → 2: the per-visitor rows of `visitor_keys`, in number order, into blocks. */
function moveVisitorKeysToBlocks(sqlite: SqliteDatabase.Database): void {
  const insert = sqlite.prepare('insert into visitor_blocks (block, data) values (?, ?)');
  const range = sqlite
    .prepare('select no, value from visitor_keys where no > ? and no <= ? order by no')
    .raw();
  const max = sqlite.prepare('select coalesce(max(no), 0) from visitor_keys').pluck().get() as number;
  const block = Buffer.alloc(BLOCK_KEYS * KEY_BYTES);
  for (let b = 0; b * BLOCK_KEYS < max; b++) {
    block.fill(0);
    const rows = range.all(b * BLOCK_KEYS, (b + 1) * BLOCK_KEYS) as Array<[number, Buffer]>;
    for (const [no, value] of rows) value.copy(block, ((no - 1) % BLOCK_KEYS) * KEY_BYTES, 0, KEY_BYTES);
    insert.run(b, block.subarray(0, (Math.min(max, (b + 1) * BLOCK_KEYS) - b * BLOCK_KEYS) * KEY_BYTES));
  }
}

/**
 * A mutex for the threads of one process, over one shared word. Threads writing the same file
 * take it before BEGIN IMMEDIATE: a waiting thread wakes the moment the lock is released,
 * where SQLite's busy handler sleeps up to 100 ms between tries and leaves the file idle.
 */
export class ThreadLock {
  private readonly cell: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    this.cell = new Int32Array(buffer, 0, 1);
  }

  static buffer(): SharedArrayBuffer {
    return new SharedArrayBuffer(4);
  }

  acquire(): void {
    while (Atomics.compareExchange(this.cell, 0, 0, 1) !== 0) Atomics.wait(this.cell, 0, 1, 50);
  }

  release(): void {
    Atomics.store(this.cell, 0, 0);
    Atomics.notify(this.cell, 0, 1);
  }
}

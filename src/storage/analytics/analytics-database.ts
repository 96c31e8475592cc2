import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CATEGORY_CODES } from '../../domain/analytics/categories.ts';
import type { PreparedEvent } from '../../domain/analytics/store.ts';
import type { IndexedEvent } from './day-index.ts';

/**
 * The embedded analytics file: a SQLite database in WAL mode beside the main one, holding the
 * raw views (the source of truth, in commit order by `seq`), the dictionaries that turn paths,
 * visitor keys and agents into dense integers, the per-day snapshots of the in-memory index,
 * the identity salts and the per-project analytics settings. Several processes may share it
 * (the server and `docwright analytics import`): SQLite serialises the writers.
 */
const SCHEMA_VERSION = 1;

const SCHEMA = `
create table if not exists projects (no integer primary key, value text not null unique);
create table if not exists paths (no integer primary key, value text not null unique);
create table if not exists visitors (no integer primary key, value blob not null unique);
create table if not exists agents (no integer primary key, value text not null unique);
create table if not exists user_agents (no integer primary key, value text not null unique);
create table if not exists events (
  seq integer primary key,
  project integer not null,
  ts integer not null,
  path integer not null,
  visitor integer not null,
  category integer not null,
  agent integer not null,
  user_agent integer not null,
  classifier integer not null,
  flags integer not null,
  status integer,
  referrer text,
  event_key blob
);
create unique index if not exists events_event_key on events (event_key) where event_key is not null;
create index if not exists events_project_ts on events (project, ts);
create table if not exists day_snapshots (
  project integer not null,
  day integer not null,
  data blob not null,
  primary key (project, day)
);
create table if not exists snapshot_marks (project integer primary key, covered_seq integer not null);
create table if not exists salts (period text primary key, salt blob not null, created_at text not null);
create table if not exists settings (project_id text primary key, value text not null);
`;

export interface AnalyticsDatabaseOptions {
  file: string;
  /**
   * `full` (default) syncs the WAL on every commit, so an acknowledged view survives power
   * loss; `normal` survives a process crash only.
   */
  synchronous?: 'full' | 'normal';
  /** Most visitor keys cached in memory; beyond that lookups go to the database. */
  visitorCacheLimit?: number;
}

export interface StagedAppend {
  projectNo: number;
  events: readonly PreparedEvent[];
}

export interface AppendOutcome {
  accepted: number;
  duplicates: number;
  /** The stored rows, in seq order. */
  rows: IndexedEvent[];
}

type Row = [number, number, number, number, number, number, number];

export class AnalyticsDatabase {
  readonly sqlite: SqliteDatabase.Database;
  readonly projects: Dictionary;
  readonly paths: Dictionary;
  readonly visitors: Dictionary;
  readonly agents: Dictionary;
  readonly userAgents: Dictionary;
  private readonly salts = new Map<string, Buffer>();
  private readonly statements;

  constructor(options: AnalyticsDatabaseOptions) {
    mkdirSync(path.dirname(options.file), { recursive: true });
    const sqlite = new SqliteDatabase(options.file, { timeout: 15_000 });
    this.sqlite = sqlite;
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    sqlite.pragma('cache_size = -131072'); // 128 MiB: keeps the dedup index hot during imports
    sqlite.pragma('temp_store = MEMORY');
    const version = sqlite.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new Error(
        `The analytics file ${options.file} was written by a newer Docwright (schema ${version}); upgrade Docwright`,
      );
    }
    sqlite.exec(SCHEMA);
    sqlite.pragma(`user_version = ${SCHEMA_VERSION}`);

    this.projects = new Dictionary(sqlite, 'projects', { keepNames: false });
    this.paths = new Dictionary(sqlite, 'paths', { keepNames: true });
    this.visitors = new Dictionary(sqlite, 'visitors', {
      keepNames: false,
      cacheLimit: options.visitorCacheLimit ?? 2_000_000,
    });
    this.agents = new Dictionary(sqlite, 'agents', { keepNames: true });
    this.userAgents = new Dictionary(sqlite, 'user_agents', { keepNames: false, cacheLimit: 100_000 });

    this.statements = {
      insertEvent: sqlite.prepare(
        `insert or ignore into events
           (project, ts, path, visitor, category, agent, user_agent, classifier, flags, status, referrer, event_key)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      maxSeq: sqlite.prepare('select coalesce(max(seq), 0) from events').pluck(),
      maxVisitor: sqlite.prepare('select coalesce(max(no), 0) from visitors').pluck(),
      after: sqlite
        .prepare(
          'select seq, project, ts, path, visitor, category, agent from events where seq > ? and seq <= ? order by seq',
        )
        .raw(),
      projectAfter: sqlite
        .prepare(
          `select seq, project, ts, path, visitor, category, agent from events
           where project = ? and seq > ? and seq <= ? order by seq`,
        )
        .raw(),
      projectRange: sqlite
        .prepare(
          `select seq, project, ts, path, visitor, category, agent from events
           where project = ? and ts >= ? and ts < ? and seq <= ?`,
        )
        .raw(),
      snapshots: sqlite.prepare('select day, data from day_snapshots where project = ?'),
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
      insertSalt: sqlite.prepare(
        'insert into salts (period, salt, created_at) values (?, ?, ?) on conflict (period) do nothing',
      ),
      selectSettings: sqlite.prepare('select value from settings where project_id = ?').pluck(),
      upsertSettings: sqlite.prepare(
        `insert into settings (project_id, value) values (?, ?)
         on conflict (project_id) do update set value = excluded.value`,
      ),
    };
  }

  /**
   * Stores every staged batch in one transaction (one WAL sync for all of them). Events whose
   * key is already stored are skipped and counted as duplicates.
   */
  appendAll(batches: readonly StagedAppend[]): AppendOutcome[] {
    const insert = this.statements.insertEvent;
    const run = this.sqlite.transaction(() =>
      batches.map(({ projectNo, events }): AppendOutcome => {
        const rows: IndexedEvent[] = [];
        let duplicates = 0;
        for (const event of events) {
          const path = this.paths.idFor(event.path);
          const visitor = this.visitors.idFor(event.visitorKey);
          const category = CATEGORY_CODES[event.category];
          const agent = this.agents.idFor(event.agent);
          const userAgent = this.userAgents.idFor(event.userAgent);
          const info = insert.run(
            projectNo,
            event.timestamp,
            path,
            visitor,
            category,
            agent,
            userAgent,
            event.classifierVersion,
            event.flags,
            event.status,
            event.referrer,
            event.eventKey,
          );
          if (info.changes === 0) {
            duplicates++;
            continue;
          }
          rows.push({
            seq: Number(info.lastInsertRowid),
            ts: event.timestamp,
            path,
            visitor,
            category,
            agent,
          });
        }
        return { accepted: rows.length, duplicates, rows };
      }),
    );
    try {
      const outcomes = run.immediate();
      this.forEachDictionary((d) => d.commit());
      return outcomes;
    } catch (error) {
      this.forEachDictionary((d) => d.rollback());
      throw error;
    }
  }

  /** The dense number of a project, created on first use. */
  projectNo(projectId: string): number {
    const run = this.sqlite.transaction(() => this.projects.idFor(projectId));
    try {
      const no = run.immediate();
      this.projects.commit();
      return no;
    } catch (error) {
      this.projects.rollback();
      throw error;
    }
  }

  maxSeq(): number {
    return this.statements.maxSeq.get() as number;
  }

  /** One more than the highest visitor number: the size of a mark array. */
  visitorUniverse(): number {
    return (this.statements.maxVisitor.get() as number) + 1;
  }

  /** Events with seq in (after, upTo], in seq order. */
  forEachAfter(after: number, upTo: number, fn: (event: IndexedEvent, projectNo: number) => void): void {
    for (const row of this.statements.after.iterate(after, upTo) as Iterable<Row>) fn(toEvent(row), row[1]);
  }

  forEachOfProjectAfter(
    projectNo: number,
    after: number,
    upTo: number,
    fn: (event: IndexedEvent) => void,
  ): void {
    for (const row of this.statements.projectAfter.iterate(projectNo, after, upTo) as Iterable<Row>)
      fn(toEvent(row));
  }

  /** A project's events with from ≤ ts < to and seq ≤ upTo, in no particular order. */
  forEachInRange(
    projectNo: number,
    from: number,
    to: number,
    upTo: number,
    fn: (event: IndexedEvent) => void,
  ): void {
    for (const row of this.statements.projectRange.iterate(projectNo, from, to, upTo) as Iterable<Row>)
      fn(toEvent(row));
  }

  loadSnapshots(projectNo: number): { covered: number; days: Buffer[] } {
    const read = this.sqlite.transaction(() => ({
      covered: (this.statements.covered.get(projectNo) as number | undefined) ?? 0,
      days: (this.statements.snapshots.all(projectNo) as Array<{ data: Buffer }>).map((r) => r.data),
    }));
    return read.deferred();
  }

  /**
   * Writes a checkpoint of a project's index at `covered`. `changedSince(stored)` names the
   * days changed after the stored checkpoint; nothing is written when another process has
   * already checkpointed as far.
   */
  saveSnapshots(
    projectNo: number,
    covered: number,
    changedSince: (storedCovered: number) => Array<{ day: number; data: Buffer }>,
  ): number {
    const write = this.sqlite.transaction(() => {
      const stored = (this.statements.covered.get(projectNo) as number | undefined) ?? 0;
      if (stored >= covered) return 0;
      const days = changedSince(stored);
      for (const { day, data } of days) this.statements.upsertSnapshot.run(projectNo, day, data);
      this.statements.upsertCovered.run(projectNo, covered);
      return days.length;
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

  settings(projectId: string): string | null {
    return (this.statements.selectSettings.get(projectId) as string | undefined) ?? null;
  }

  saveSettings(projectId: string, value: string): void {
    this.statements.upsertSettings.run(projectId, value);
  }

  close(): void {
    this.sqlite.close();
  }

  private forEachDictionary(fn: (d: Dictionary) => void): void {
    for (const d of [this.paths, this.visitors, this.agents, this.userAgents]) fn(d);
  }
}

function toEvent(row: Row): IndexedEvent {
  return { seq: row[0], ts: row[2], path: row[3], visitor: row[4], category: row[5], agent: row[6] };
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
    options: { keepNames: boolean; cacheLimit?: number },
  ) {
    this.keepNames = options.keepNames;
    this.cacheLimit = options.cacheLimit ?? Number.POSITIVE_INFINITY;
    this.select = sqlite.prepare(`select no from ${table} where value = ?`).pluck();
    this.insert = sqlite.prepare(`insert into ${table} (value) values (?)`);
    this.selectName = sqlite.prepare(`select value from ${table} where no = ?`).pluck();
  }

  /** The number for `value`, assigned if new. Call inside a write transaction. */
  idFor(value: string | Buffer): number {
    const key = typeof value === 'string' ? value : value.toString('latin1');
    const cached = this.byValue.get(key);
    if (cached !== undefined) return cached;
    let no = this.select.get(value) as number | undefined;
    if (no === undefined) no = Number(this.insert.run(value).lastInsertRowid);
    if (this.byValue.size >= this.cacheLimit) this.byValue.clear();
    this.byValue.set(key, no);
    this.staged.push([key, no]);
    if (this.keepNames && typeof value === 'string') this.names[no] = value;
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

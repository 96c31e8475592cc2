import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CheckpointStore } from './checkpoints.ts';
import { ChunkLog } from './chunk-log.ts';
import { Dictionary } from './dictionary.ts';
import { LegacyMetadata } from './legacy-metadata.ts';
import { migrate } from './migrations/migrate.ts';
import { retryWhileBusy } from './sqlite-file.ts';
import { ThreadLock } from './thread-lock.ts';
import { VisitorDictionary } from './visitor-dictionary.ts';

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

/**
 * The embedded analytics file: a SQLite database in WAL mode in the data dir, brought to the
 * current schema by numbered migrations (migrations/). It holds the views (ChunkLog), the
 * dictionaries that turn projects, paths, visitor keys, agents, user agents and referrers into
 * dense integers, the checkpoints of the in-memory index (CheckpointStore), and the legacy salts
 * and settings (LegacyMetadata). Several processes may share it (the server and `docwright
 * analytics import`): SQLite serialises the writers.
 */
export class AnalyticsDatabase {
  readonly sqlite: SqliteDatabase.Database;
  readonly projects: Dictionary;
  readonly paths: Dictionary;
  readonly agents: Dictionary;
  readonly userAgents: Dictionary;
  readonly referrers: Dictionary;
  readonly visitors: VisitorDictionary;
  readonly chunks: ChunkLog;
  readonly checkpoints: CheckpointStore;
  readonly legacy: LegacyMetadata;
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
    // 16 MiB: writes touch the ends of the log and of the visitor blocks, and reads of raw views
    // (edge days, scans) are mostly cold anyway. 64 MiB bought no measurable speed (bench/analytics
    // at 10 M, alternated: clipped-edge exports and HTTP ingestion) for up to 48 MiB more memory.
    sqlite.pragma('cache_size = -16384');
    migrate(sqlite, options.file);

    this.projects = new Dictionary(sqlite, 'projects', false);
    this.paths = new Dictionary(sqlite, 'paths', true);
    this.agents = new Dictionary(sqlite, 'agents', true);
    this.userAgents = new Dictionary(sqlite, 'user_agents', false, 100_000);
    this.referrers = new Dictionary(sqlite, 'referrers', false, 100_000);
    this.visitors = new VisitorDictionary(sqlite, options.visitorKeys ?? 'recent');
    this.chunks = new ChunkLog(sqlite);
    this.checkpoints = new CheckpointStore(sqlite);
    this.legacy = new LegacyMetadata(sqlite);
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

  /** The dense number of a project, created on first use. */
  projectNo(projectId: string): number {
    const known = this.projects.find(projectId);
    if (known !== undefined) return known;
    return this.write(() => this.projects.idFor(projectId));
  }

  /** One more than the highest visitor number: the size of a visitor bitmap. */
  visitorUniverse(): number {
    return this.visitors.universe();
  }

  /** Empties the project's chunks, drops its snapshots and settings (inside `write`). */
  deleteProject(project: number, projectId: string): void {
    this.chunks.emptyProject(project);
    this.legacy.deleteSettings(projectId);
    this.checkpoints.invalidate(project);
  }

  close(): void {
    this.sqlite.close();
  }

  private forEachDictionary(fn: (d: { commit(): void; rollback(): void }) => void): void {
    for (const d of [this.projects, this.paths, this.agents, this.userAgents, this.referrers, this.visitors])
      fn(d);
  }
}

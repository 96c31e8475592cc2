import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  SqliteDialect,
  type SqliteDialectConfig,
  type SqliteDatabase as SqliteDialectDatabase,
  SqliteDriver,
} from 'kysely';
import pg from 'pg';
import { type Locks, postgresLocks, sqliteLocks } from './locks.ts';
import { OwnSchemaPostgresDialect } from './own-schema-introspector.ts';
import { surviveConnectionLoss } from './pg-connection-loss.ts';
import { type ListenHandlers, type Listening, listenPostgres } from './pg-listener.ts';
import type { Database } from './schema.ts';

export type { ListenHandlers, Listening, Locks };

export type Dialect = 'sqlite' | 'postgres';

/** Which database holds the jobs, keys and projects (read from the configuration). */
export type DatabaseConfig =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string; schema: string | null };

/** The storage seam: one Kysely instance and the name of the engine behind it. */
export interface Storage {
  db: Kysely<Database>;
  dialect: Dialect;
  /**
   * PostgreSQL only: a connection of its own that LISTENs on `channel` and reconnects by
   * itself; closed with the storage. Absent on SQLite, which has no notifications.
   */
  listen?(channel: string, handlers: ListenHandlers): Listening;
  /** Named locks across every process on this database (see locks.ts). */
  locks: Locks;
  close(): Promise<void>;
}

export function openStorage(config: DatabaseConfig): Storage {
  if (config.kind === 'sqlite') return openSqlite(config.file);
  return openPostgres(config.url, config.schema);
}

function openSqlite(file: string): Storage {
  mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file, { timeout: 10_000 });
  // WAL lets readers run beside the single writer and lets several processes share the file.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // SQLite's own lower() folds ASCII only; searches compare lower-cased text on both engines.
  sqlite.function('lower', { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }),
  });
  const locks = sqliteLocks(file);
  return {
    db,
    dialect: 'sqlite',
    locks,
    close: async () => {
      locks.close();
      await db.destroy();
    },
  };
}

/**
 * Transactions take SQLite's write lock when they begin (`BEGIN IMMEDIATE`), waiting on the
 * busy timeout for it. Kysely's plain `BEGIN` starts as a reader, and a reader that later
 * writes after another process (a worker, a second server) has committed fails at once with
 * "database is locked" (SQLITE_BUSY_SNAPSHOT): no busy timeout applies to that upgrade.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

const STATEMENT_CACHE_SIZE = 256;

/**
 * How long the main database's pool waits for a connection: to open one, and also (pg-pool has
 * one timeout for both) for a free one when all ten are busy. Its queries are short, so a wait
 * this long means the server is out of reach or overloaded.
 */
export const POSTGRES_CONNECT_TIMEOUT_MS = 10_000;

/**
 * Kysely prepares every query anew; preparing costs several times more than running a
 * small query, so keep the most recently used statements (Kysely's SQL text is stable
 * for a given query shape, with values as parameters).
 */
function withStatementCache(sqlite: SqliteDatabase.Database): SqliteDialectDatabase {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql); // re-insert below: Map order doubles as recency
      } else {
        statement = sqlite.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sql, statement);
      return statement;
    },
  };
}

function openPostgres(url: string, schema: string | null): Storage {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // A server that does not answer (a host gone, a network partition) fails the request after
    // this long, as unavailable (503, storage/unavailable.ts), rather than holding it for the
    // operating system's TCP timeout.
    connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
    // A schema of our own is selected for every connection, so queries stay unqualified.
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  surviveConnectionLoss(pool);
  const db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
  const listeners = new Set<Listening>();
  return {
    db,
    dialect: 'postgres',
    locks: postgresLocks(pool),
    listen(channel, handlers) {
      const listening = listenPostgres(url, channel, handlers);
      listeners.add(listening);
      return {
        close: async () => {
          listeners.delete(listening);
          await listening.close();
        },
      };
    },
    close: async () => {
      await Promise.all([...listeners].map((l) => l.close()));
      listeners.clear();
      await db.destroy();
      // Kysely ends the pool only if it ran a query; the locks may have used it alone.
      if (!pool.ended) await pool.end();
    },
  };
}

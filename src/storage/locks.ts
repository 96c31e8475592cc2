import { setTimeout as sleep } from 'node:timers/promises';
import SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';

/**
 * Named locks shared by every process on the main database: what an engine without
 * transactions (ClickHouse) needs so that two API nodes, or two import workers, do not
 * read-then-write the same project's rows at once. A process that dies releases its locks.
 */
export interface Locks {
  /**
   * Runs `work` while this caller holds every named lock; no other holder of any of them runs
   * meanwhile, in this process or another. The names are taken in sorted order, so two callers
   * wanting overlapping sets cannot deadlock. Not reentrant: `work` must not ask again.
   *
   * `lost` aborts when the locks may have gone while `work` runs (PostgreSQL: the session that
   * holds them ended), so another holder may now run too: `work` checks it before each write
   * that must not overlap another holder's (`lost.throwIfAborted()`).
   */
  holding<T>(names: readonly string[], work: (lost: AbortSignal) => Promise<T>): Promise<T>;
  /** Lets go of what the locks keep open (a file); the storage closes them with itself. */
  close(): void;
}

/**
 * PostgreSQL: session advisory locks on a connection of the pool kept for the duration of
 * `work`, then `pg_advisory_unlock_all()`. Session locks rather than a transaction's: a long
 * holder (a reclassification) sits idle, not idle in a transaction, which servers are often
 * set to cut off. Keys are the schema's hash and the name's, so installations in other schemas
 * of one database never wait for each other; two names with one hash only wait for each other,
 * which costs time, never correctness.
 */
export function postgresLocks(pool: pg.Pool): Locks {
  const inProcess = processLocks();
  return {
    holding: (names, work) => inProcess.holding(names, () => holdingOnServer(pool, names, work)),
    close() {},
  };
}

/** Why `lost` aborted: the session holding the locks ended, so the server released them. */
export class LockLostError extends Error {
  constructor(names: readonly string[], cause: unknown) {
    super(
      `lost the lock on ${names.join(', ')}: the PostgreSQL connection holding it ended; nothing more is written under it (retry)`,
      { cause },
    );
    this.name = 'LockLostError';
  }
}

async function holdingOnServer<T>(
  pool: pg.Pool,
  names: readonly string[],
  work: (lost: AbortSignal) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  // The server releases a session's locks when its connection ends: from then on another
  // process may hold them too. (The listener also keeps an idle client's connection error
  // from being unhandled.)
  const lost = new AbortController();
  const onLost = (error?: unknown) => {
    if (!lost.signal.aborted) lost.abort(new LockLostError(names, error));
  };
  client.on('error', onLost);
  client.on('end', onLost);
  let unlocked = false;
  try {
    for (const name of [...new Set(names)].sort())
      await client.query(
        `select pg_advisory_lock(hashtext('docwright locks ' || coalesce(current_schema(), '')), hashtext($1))`,
        [name],
      );
    return await work(lost.signal);
  } finally {
    await client.query('select pg_advisory_unlock_all()').then(
      () => {
        unlocked = true;
      },
      () => {},
    );
    client.off('error', onLost);
    client.off('end', onLost);
    // A connection that could not unlock may still hold the locks: close it rather than reuse it.
    client.release(unlocked ? undefined : true);
  }
}

/** For locks that cannot go while their holder lives (a file's, a process's own). */
const NEVER_LOST = new AbortController().signal;

const FIRST_WAIT_MS = 1;
const LONGEST_WAIT_MS = 25;

/**
 * SQLite (one machine): the write lock of a small file of its own beside the main database,
 * taken with `BEGIN IMMEDIATE` and released with `ROLLBACK`. The operating system drops it when
 * a process dies. Every name shares this one lock: on one machine the holders share the same
 * cores anyway. Waiting is a poll (better-sqlite3's busy wait would block the event loop),
 * backing off from 1 to 25 ms. The main file itself is not used: holding its write lock would
 * stop the jobs' writes for as long as `work` runs.
 */
export function sqliteLocks(mainFile: string): Locks {
  if (mainFile === ':memory:' || mainFile === '') return processLocks();
  const inProcess = processLocks();
  let file: SqliteDatabase.Database | null = null;
  return {
    holding(_names, work) {
      // One holder at a time per process: the file's connection has one transaction.
      return inProcess.holding([mainFile], async () => {
        file ??= new SqliteDatabase(`${mainFile}.locks`, { timeout: 0 });
        const lockFile = file;
        for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
          try {
            lockFile.exec('BEGIN IMMEDIATE');
            break;
          } catch (error) {
            if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
            await sleep(wait * (0.5 + Math.random()));
          }
        }
        try {
          // The lock is the file's, held by this process until it ROLLBACKs or dies.
          return await work(NEVER_LOST);
        } finally {
          lockFile.exec('ROLLBACK');
        }
      });
    },
    close() {
      file?.close();
      file = null;
    },
  };
}

/**
 * Within this process only, per name, holders in arrival order: in front of the locks above
 * (so one process waits in its own queue rather than with many connections), and alone for a
 * store opened without a main database (tests, tools that are the only writer).
 */
export function processLocks(): Locks {
  const tails = new Map<string, Promise<void>>();
  const acquire = async (name: string): Promise<() => void> => {
    const previous = tails.get(name) ?? Promise.resolve();
    let release = () => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    tails.set(name, tail);
    await previous;
    return () => {
      release();
      if (tails.get(name) === tail) tails.delete(name);
    };
  };
  return {
    async holding(names, work) {
      const releases: Array<() => void> = [];
      try {
        for (const name of [...new Set(names)].sort()) releases.push(await acquire(name));
        return await work(NEVER_LOST);
      } finally {
        for (const release of releases.reverse()) release();
      }
    },
    close() {},
  };
}

import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/database.ts';
import { surviveConnectionLoss } from '../../src/storage/pg-connection-loss.ts';
import { type ChildHandle, startChild } from '../helpers/processes.ts';
import { createTestDatabase, type TestDatabase, testBackend, testPostgresUrl } from '../helpers/storage.ts';

const HOLDER = fileURLToPath(new URL('../fixtures/hold-lock.ts', import.meta.url));

describe('named locks of the main database', () => {
  let database: TestDatabase;
  const storages: Storage[] = [];
  const children: ChildHandle[] = [];

  afterEach(async () => {
    for (const c of children.splice(0)) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    for (const s of storages.splice(0)) await s.close();
    await database?.drop();
  });

  function open(): Storage {
    const storage = database.open();
    storages.push(storage);
    return storage;
  }

  function holder(env: Record<string, string>): Promise<ChildHandle> {
    return startChild(
      [HOLDER],
      { DOCWRIGHT_DATABASE_CONFIG: JSON.stringify(database.config), LOCK_NAME: 'project a', ...env },
      /^held$/m,
    ).then((child) => {
      children.push(child);
      return child;
    });
  }

  it('makes a holder in another process wait until the first lets go', async () => {
    database = createTestDatabase();
    const child = await holder({ HOLD_MS: '600' });
    const started = Date.now();
    const ranAt = await open().locks.holding(['project a'], async () => Date.now());
    await child.exited;
    const released = Number(/^released (\d+)$/m.exec(child.stdout())?.[1]);
    expect(ranAt).toBeGreaterThanOrEqual(released);
    expect(ranAt - started).toBeGreaterThan(300);
  }, 60_000);

  it('is free again when its holder is killed', async () => {
    database = createTestDatabase();
    const child = await holder({});
    const waiting = open().locks.holding(['project a'], async () => 'ran');
    const state = await Promise.race([
      waiting,
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 300)),
    ]);
    expect(state).toBe('still waiting');
    child.child.kill('SIGKILL');
    await child.exited;
    expect(await waiting).toBe('ran');
  }, 60_000);

  it('runs holders of one process one at a time, and goes on after a holder fails', async () => {
    database = createTestDatabase();
    const locks = open().locks;
    const events: string[] = [];
    const hold = (name: string, fail: boolean) =>
      locks.holding([name, 'shared'], async () => {
        events.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        events.push(`end ${name}`);
        if (fail) throw new Error(`${name} failed`);
        return name;
      });
    const results = await Promise.allSettled([hold('a', false), hold('b', true), hold('c', false)]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'a',
      'b failed',
      'c',
    ]);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  // The server releases a session's advisory locks when its connection ends (a restart, a
  // failover, a proxy cutting it): the holder must hear of it, and the process must live on.
  it.runIf(testBackend === 'postgres')(
    'tells a holder whose PostgreSQL connection ended that its lock is lost, and serves the next holder',
    async () => {
      database = createTestDatabase();
      const storage = open();
      const schema = database.config.kind === 'postgres' ? database.config.schema : null;
      const admin = new pg.Client({ connectionString: testPostgresUrl });
      await admin.connect();
      // The lock's key names the schema: made first, as a migrated installation has it.
      await admin.query(`create schema ${schema}`);
      try {
        const outcome = storage.locks.holding(['project a'], async (lost) => {
          const { rows } = await admin.query<{ pid: number }>(
            `select pid from pg_locks
              where locktype = 'advisory' and granted
                and classid = hashtext('docwright locks ' || $1)::oid and objid = hashtext('project a')::oid`,
            [schema],
          );
          expect(rows).toHaveLength(1);
          expect(lost.aborted).toBe(false);
          await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
          for (const deadline = Date.now() + 10_000; !lost.aborted && Date.now() < deadline; )
            await new Promise((resolve) => setTimeout(resolve, 10));
          lost.throwIfAborted();
          return 'wrote after the lock was gone';
        });
        await expect(outcome).rejects.toThrow(
          /^lost the lock on project a: the PostgreSQL connection holding it ended/,
        );
        // The pool replaced the connection: this process and another take the lock again.
        expect(await storage.locks.holding(['project a'], async () => 'next')).toBe('next');
        const child = await holder({ HOLD_MS: '0' });
        await child.exited;
        expect(child.stdout()).toMatch(/^released \d+$/m);
      } finally {
        await admin.end();
      }
    },
    60_000,
  );

  it.runIf(testBackend === 'postgres')(
    'a pool client checked out between two queries that loses its connection fails its next query, not the process',
    async () => {
      const pool = surviveConnectionLoss(new pg.Pool({ connectionString: testPostgresUrl, max: 1 }));
      try {
        const client = await pool.connect();
        const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
        const admin = new pg.Client({ connectionString: testPostgresUrl });
        await admin.connect();
        await admin.query('select pg_terminate_backend($1)', [pid]);
        await admin.end();
        await new Promise((resolve) => setTimeout(resolve, 200));
        const failed = await client.query('select 1').then(
          () => null,
          (error: Error) => error,
        );
        expect(failed).toBeInstanceOf(Error);
        client.release(failed ?? undefined);
        const { rows } = await pool.query<{ one: number }>('select 1 as one');
        expect(rows).toEqual([{ one: 1 }]);
      } finally {
        await pool.end();
      }
    },
    30_000,
  );
});

import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { connect } from '../../../src/integrations/analytics/clickhouse/connection.ts';
import { LockLostError } from '../../../src/storage/locks.ts';
import { isStorageUnavailable, StorageUnavailableError } from '../../../src/storage/unavailable.ts';
import { testPostgresUrl } from '../../helpers/storage.ts';
import { closedPort } from '../../helpers/tcp-relay.ts';

const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
});

/** A server that accepts connections and never answers, as a host behind a partition looks. */
async function silentPort(): Promise<number> {
  const server = createServer(() => {}).listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return (server.address() as { port: number }).port;
}

async function failure(work: () => Promise<unknown>): Promise<unknown> {
  const outcome = await work().then(
    () => null,
    (error: unknown) => error,
  );
  expect(outcome).not.toBeNull();
  return outcome;
}

function postgresAt(port: number): string {
  const url = new URL(testPostgresUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return url.toString();
}

describe('isStorageUnavailable, on the failures the drivers really give', () => {
  it('PostgreSQL: a refused connection, a connect timeout and a terminated session are unavailable', async () => {
    const refused = new pg.Client({ connectionString: postgresAt(await closedPort()) });
    expect(isStorageUnavailable(await failure(() => refused.connect()))).toBe(true);

    const pool = new pg.Pool({
      connectionString: postgresAt(await silentPort()),
      connectionTimeoutMillis: 200,
    });
    const timedOut = await failure(() => pool.query('select 1'));
    expect(isStorageUnavailable(timedOut)).toBe(true);
    await pool.end();

    const victim = new pg.Client({ connectionString: testPostgresUrl });
    victim.on('error', () => {});
    await victim.connect();
    const admin = new pg.Client({ connectionString: testPostgresUrl });
    await admin.connect();
    try {
      const { rows } = await victim.query<{ pid: number }>('select pg_backend_pid() as pid');
      const ended = failure(() => victim.query('select pg_sleep(10)'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
      expect(isStorageUnavailable(await ended)).toBe(true);
    } finally {
      await admin.end();
      await victim.end().catch(() => {});
    }
  });

  it("PostgreSQL: the request's own faults (syntax, a constraint, a missing table) are not", async () => {
    const client = new pg.Client({ connectionString: testPostgresUrl });
    await client.connect();
    try {
      const syntax = await failure(() => client.query('selec 1'));
      expect((syntax as { code?: string }).code).toBe('42601');
      expect(isStorageUnavailable(syntax)).toBe(false);
      await client.query('create temporary table t (id int primary key)');
      await client.query('insert into t values (1)');
      const unique = await failure(() => client.query('insert into t values (1)'));
      expect((unique as { code?: string }).code).toBe('23505');
      expect(isStorageUnavailable(unique)).toBe(false);
      expect(isStorageUnavailable(await failure(() => client.query('select * from no_such_table')))).toBe(
        false,
      );
    } finally {
      await client.end();
    }
  });

  it('SQLite: a file another connection keeps locked is unavailable; a constraint is not', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'docwright-unavailable-'));
    const file = path.join(dir, 'db.sqlite');
    const holder = new SqliteDatabase(file);
    const other = new SqliteDatabase(file, { timeout: 0 });
    try {
      holder.exec('create table t (id integer primary key)');
      holder.exec('begin exclusive');
      let busy: unknown = null;
      try {
        other.prepare('insert into t values (1)').run();
      } catch (error) {
        busy = error;
      }
      expect((busy as { code?: string }).code).toBe('SQLITE_BUSY');
      expect(isStorageUnavailable(busy)).toBe(true);
      holder.exec('commit');
      other.prepare('insert into t values (1)').run();
      let constraint: unknown = null;
      try {
        other.prepare('insert into t values (1)').run();
      } catch (error) {
        constraint = error;
      }
      expect((constraint as { code?: string }).code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
      expect(isStorageUnavailable(constraint)).toBe(false);
    } finally {
      holder.close();
      other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ClickHouse: a refused connection (client and own-request paths) and a timed-out query are unavailable; a bad query is not', async () => {
    const down = connect({ url: `http://127.0.0.1:${await closedPort()}`, database: 'system' });
    expect(isStorageUnavailable(await failure(() => down.query('SELECT 1')))).toBe(true);
    const external = { name: 'n', structure: 'n UInt64', rows: ['1'] };
    expect(isStorageUnavailable(await failure(() => down.queryBinary('SELECT n FROM n', external)))).toBe(
      true,
    );
    await down.close();

    const up = connect({ url: inject('clickhouseUrl'), database: 'system' });
    try {
      // Code 159, TIMEOUT_EXCEEDED: the server gave up on a query past its time limit.
      const slow = await failure(() =>
        up.query(
          "SELECT count() FROM system.numbers SETTINGS max_execution_time = 1, timeout_overflow_mode = 'throw'",
        ),
      );
      expect(slow).toBeInstanceOf(StorageUnavailableError);
      expect(isStorageUnavailable(slow)).toBe(true);
      const viaOwnRequest = await failure(() =>
        up.queryBinary(
          "SELECT count() FROM system.numbers WHERE number >= (SELECT min(n) FROM n) SETTINGS max_execution_time = 1, timeout_overflow_mode = 'throw'",
          external,
        ),
      );
      expect(viaOwnRequest).toBeInstanceOf(StorageUnavailableError);
      const syntax = await failure(() => up.query('SELEC 1'));
      expect(isStorageUnavailable(syntax)).toBe(false);
      const missing = await failure(() => up.queryBinary('SELECT * FROM no_such_table', external));
      expect(isStorageUnavailable(missing)).toBe(false);
    } finally {
      await up.close();
    }
  }, 20_000);

  it('a lost lock is unavailable; errors of the code are not, wrapped or not', () => {
    expect(
      isStorageUnavailable(new LockLostError(['x'], new Error('Connection terminated unexpectedly'))),
    ).toBe(true);
    expect(isStorageUnavailable(new Error('outer', { cause: new StorageUnavailableError('inner') }))).toBe(
      true,
    );
    expect(isStorageUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(
      false,
    );
    expect(isStorageUnavailable(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toBe(false);
    expect(isStorageUnavailable(null)).toBe(false);
    expect(isStorageUnavailable('ECONNREFUSED')).toBe(false);
  });
});

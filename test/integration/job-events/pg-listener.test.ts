import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { randomBase32 } from '../../../src/domain/ids.ts';
import type { Listening } from '../../../src/storage/database.ts';
import { listenPostgres } from '../../../src/storage/pg-listener.ts';
import { testBackend, testPostgresUrl } from '../../helpers/storage.ts';

// PostgreSQL only: SQLite has no notifications (its streams poll).
describe.runIf(testBackend === 'postgres')('the PostgreSQL listening connection', () => {
  let listening: Listening | null = null;
  let admin: pg.Client;

  afterEach(async () => {
    await listening?.close();
    listening = null;
    await admin?.end().catch(() => {});
  });

  it('hears notifications, and after its connection is killed reconnects, says so, and hears them again', async () => {
    admin = new pg.Client({ connectionString: testPostgresUrl });
    await admin.connect();
    const channel = `dw_test_${randomBase32(10).toLowerCase()}`;
    const heard: string[] = [];
    let connects = 0;
    const errors: Error[] = [];
    listening = listenPostgres(testPostgresUrl, channel, {
      notification: (payload) => heard.push(payload),
      listening: () => {
        connects += 1;
      },
      error: (error) => errors.push(error),
    });
    await expect.poll(() => connects).toBe(1);
    await admin.query('select pg_notify($1, $2)', [channel, 'first']);
    await expect.poll(() => heard).toEqual(['first']);

    const backends = await admin.query<{ pid: number }>('select pid from pg_stat_activity where query = $1', [
      `LISTEN "${channel}"`,
    ]);
    expect(backends.rows).toHaveLength(1);
    await admin.query('select pg_terminate_backend($1)', [backends.rows[0]?.pid]);
    await expect.poll(() => connects, { timeout: 5000 }).toBe(2);
    expect(errors.length).toBeGreaterThan(0);
    await admin.query('select pg_notify($1, $2)', [channel, 'second']);
    await expect.poll(() => heard).toEqual(['first', 'second']);

    // Closed: no connection is left behind.
    await listening.close();
    listening = null;
    await expect
      .poll(
        async () =>
          (await admin.query('select pid from pg_stat_activity where query = $1', [`LISTEN "${channel}"`]))
            .rowCount,
      )
      .toBe(0);
  });
});

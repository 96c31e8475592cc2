import { once } from 'node:events';
import { createConnection, createServer, type Socket } from 'node:net';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { connect } from '../../../src/integrations/analytics/clickhouse/connection.ts';

const url = new URL(inject('clickhouseUrl'));
const closers: Array<() => Promise<void>> = [];

afterAll(async () => {
  for (const close of closers) await close();
});

/**
 * A TCP relay to the real server that resets the first `drop` connections as soon as they send
 * anything, as a server does to a kept-alive socket it already closed.
 */
async function flakyRelay(drop: number): Promise<{ url: string; connections: () => number }> {
  let seen = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    seen++;
    if (seen <= drop) {
      client.once('data', () => client.resetAndDestroy());
      return;
    }
    const upstream = createConnection({ host: url.hostname, port: Number(url.port) });
    sockets.add(upstream);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return { url: `http://127.0.0.1:${port}`, connections: () => seen };
}

describe('ClickHouse connection, queries with external data', () => {
  it('sends a query once more when its socket is reset before an answer, and not a third time', async () => {
    const once1 = await flakyRelay(1);
    const connection = connect({ url: once1.url, database: 'system' });
    closers.push(() => connection.client.close());
    const rows = await connection.queryWith<{ n: string }>('SELECT sum(n) AS n FROM numbers_in', {
      name: 'numbers_in',
      structure: 'n UInt64',
      rows: ['1', '2', '39'],
    });
    expect(rows).toEqual([{ n: '42' }]);
    expect(once1.connections()).toBe(2);

    const twice = await flakyRelay(2);
    const failing = connect({ url: twice.url, database: 'system' });
    closers.push(() => failing.client.close());
    await expect(
      failing.queryWith('SELECT count() FROM t', { name: 't', structure: 'n UInt64', rows: ['1'] }),
    ).rejects.toThrow('fetch failed');
    expect(twice.connections()).toBe(2);
  });
});

import { once } from 'node:events';
import { createConnection, createServer, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, inject, it, vi } from 'vitest';
import { connect } from '../../../src/integrations/analytics/clickhouse/connection.ts';
import { createLogger } from '../../../src/logging/logger.ts';

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
    closers.push(() => connection.close());
    const rows = await connection.queryWith<{ n: string }>('SELECT sum(n) AS n FROM numbers_in', {
      name: 'numbers_in',
      structure: 'n UInt64',
      rows: ['1', '2', '39'],
    });
    expect(rows).toEqual([{ n: '42' }]);
    expect(once1.connections()).toBe(2);

    const twice = await flakyRelay(2);
    const failing = connect({ url: twice.url, database: 'system' });
    closers.push(() => failing.close());
    await expect(
      failing.queryWith('SELECT count() FROM t', { name: 't', structure: 'n UInt64', rows: ['1'] }),
    ).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(twice.connections()).toBe(2);
  });
});

describe("ClickHouse connection, the client's own log", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('goes to the service log as structured lines, not to the console; a failed request only at debug', async () => {
    const consoleLines: unknown[] = [];
    for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const)
      vi.spyOn(console, method).mockImplementation((...args) => consoleLines.push(args));
    const logAt = (level: 'debug' | 'info') => {
      const lines: Array<Record<string, unknown>> = [];
      const logger = createLogger(
        level,
        new Writable({
          write(chunk, _encoding, done) {
            lines.push(JSON.parse(String(chunk)));
            done();
          },
        }),
      );
      return { lines, logger };
    };
    // Every connection reset: the request fails, and the client reports it.
    const resetting = await flakyRelay(1_000);
    const verbose = logAt('debug');
    const connection = connect({ url: resetting.url, database: 'system', logger: verbose.logger });
    closers.push(() => connection.close());
    await expect(connection.client.query({ query: 'SELECT 1', format: 'JSONEachRow' })).rejects.toThrow();

    expect(consoleLines).toEqual([]);
    const reported = verbose.lines.filter((line) => line.component === '@clickhouse/client');
    expect(reported.length).toBeGreaterThan(0);
    // The caller gets the failure and reports it once; the client's own line is a debug one.
    expect(reported[0]).toMatchObject({
      level: 20,
      module: expect.any(String),
      msg: 'Query: HTTP request error.',
    });
    expect(reported[0]?.err).toMatchObject({ type: expect.any(String), message: expect.any(String) });
    expect(JSON.stringify(reported)).not.toContain('"stack"');

    // At the service's default level, the failed request adds no line.
    const normal = logAt('info');
    const usual = connect({ url: resetting.url, database: 'system', logger: normal.logger });
    closers.push(() => usual.close());
    await expect(usual.client.query({ query: 'SELECT 1', format: 'JSONEachRow' })).rejects.toThrow();
    expect(normal.lines).toEqual([]);

    // Without a logger (tools, tests): nothing, and still not on the console.
    const quiet = connect({ url: resetting.url, database: 'system' });
    closers.push(() => quiet.close());
    await expect(quiet.client.query({ query: 'SELECT 1', format: 'JSONEachRow' })).rejects.toThrow();
    expect(consoleLines).toEqual([]);
  });
});

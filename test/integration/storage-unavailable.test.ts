import { createClient } from '@clickhouse/client';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { randomBase32 } from '../../src/domain/ids.ts';
import { openStorage } from '../../src/storage/database.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { testBackend, testPostgresUrl } from '../helpers/storage.ts';
import { startTcpRelay, type TcpRelay } from '../helpers/tcp-relay.ts';

const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

interface LogLine {
  level: number;
  msg: string;
  err?: { type?: string; message?: string };
}

/** A 503 from storage: Retry-After, the one error shape, nothing of the failure's internals. */
async function expectUnavailable(res: Response): Promise<void> {
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('5');
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['error', 'requestId']);
  expect(body.error).toBe(
    'Storage is unavailable for a moment (a database connection failed or timed out); retry after 5 seconds.',
  );
}

describe(`storage that cannot answer, on ${testBackend}`, () => {
  let t: TestApp | null = null;
  let relay: TcpRelay | null = null;
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await relay?.up();
    await t?.close();
    await relay?.close();
    for (const cleanup of cleanups.splice(0)) await cleanup();
    t = null;
    relay = null;
  });

  it('answers analytics requests 503 with Retry-After while ClickHouse is unreachable; the retried batch is stored once', async () => {
    const url = new URL(inject('clickhouseUrl'));
    relay = await startTcpRelay({ host: url.hostname, port: Number(url.port) });
    const name = `dw_down_${randomBase32(12).toLowerCase()}`;
    cleanups.push(async () => {
      const admin = createClient({ url: url.toString() });
      await admin.command({ query: `DROP DATABASE IF EXISTS ${name}` });
      await admin.close();
    });
    const lines: LogLine[] = [];
    t = await startTestApp({
      env: { DOCWRIGHT_ANALYTICS_URL: `http://127.0.0.1:${relay.port}/${name}` },
      log: (line) => lines.push(JSON.parse(line) as LogLine),
    });
    const app = t;
    const events = (ids: string[]) =>
      ids.map((id, i) => ({
        id,
        timestamp: `2025-03-01T09:0${i}:00Z`,
        path: '/guide',
        userAgent: CHROME,
        ip: `203.0.113.${i + 1}`,
      }));
    const ingest = (ids: string[]) =>
      app.request('POST', `/v1/analytics/${app.project.id}/events`, { body: { events: events(ids) } });
    const visitors = () => app.request('GET', `/v1/analytics/${app.project.id}/visitors`);

    expect((await ingest(['a1'])).status).toBe(202);
    await relay.down();
    await expectUnavailable(await ingest(['a1', 'a2', 'a3']));
    await expectUnavailable(await visitors());
    const warnings = lines.filter((l) => l.msg === 'storage unavailable');
    expect(warnings.length).toBe(2);
    expect(warnings.every((l) => l.level === 40)).toBe(true);
    expect(warnings[0]?.err).toMatchObject({ type: expect.any(String), message: expect.any(String) });
    expect(lines.filter((l) => l.msg === 'unhandled error')).toEqual([]);
    // Each failure is logged once, by the handler: the ClickHouse client's own line about the
    // failed request is at debug level, and no line carries a stack.
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain('"stack"');

    await relay.up();
    const retried = await ingest(['a1', 'a2', 'a3']);
    expect(retried.status).toBe(202);
    expect(await retried.json()).toEqual({ accepted: 2, duplicates: 1, rejected: [] });
    const report = (await (await visitors()).json()) as { totals: { human: number } };
    expect(report.totals.human).toBe(3);
  });

  it.runIf(testBackend === 'postgres')(
    'answers the jobs API 503 with Retry-After while PostgreSQL is unreachable, and serves again when it is back',
    async () => {
      const target = new URL(testPostgresUrl);
      relay = await startTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
      const through = new URL(testPostgresUrl);
      through.hostname = '127.0.0.1';
      through.port = String(relay.port);
      const lines: LogLine[] = [];
      t = await startTestApp({
        log: (line) => lines.push(JSON.parse(line) as LogLine),
        openStorage: (database) =>
          openStorage({ ...database.config, ...{ url: through.toString() } } as typeof database.config),
      });
      const jobs = `/v2/agent/${t.project.id}/jobs`;
      expect((await t.request('GET', jobs)).status).toBe(200);

      await relay.down();
      await expectUnavailable(await t.request('GET', jobs));
      await expectUnavailable(
        await t.request('POST', `/v2/agent/${t.project.id}/job`, { body: { prompt: 'x' } }),
      );
      expect(lines.filter((l) => l.msg === 'storage unavailable').length).toBe(2);
      expect(lines.filter((l) => l.msg === 'unhandled error')).toEqual([]);

      await relay.up();
      expect((await t.request('GET', jobs)).status).toBe(200);
    },
  );
});

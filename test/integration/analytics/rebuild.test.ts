import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from '@clickhouse/client';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { openServices, type Services } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { randomBase32 } from '../../../src/domain/ids.ts';
import { createLogger } from '../../../src/logging/logger.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../../helpers/storage.ts';
import { ReferenceAnalytics, type TestEvent } from '../../unit/analytics/reference.ts';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../../bin/docwright.js', import.meta.url));
const DAY = 86_400_000;
const USER_AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Claude-User (claude-code/2.1.158; +https://support.anthropic.com/)',
];

/** Visitors coming back over three recent days (their salts are within retention). */
function events(start: number): TestEvent[] {
  return Array.from({ length: 3_000 }, (_, i) => ({
    id: `e${i}`,
    timestamp: new Date(start + Math.floor((i * 3 * DAY) / 3_000)).toISOString(),
    path: `/guide/page-${i % 7}`,
    userAgent: USER_AGENTS[i % 2] as string,
    ip: `10.2.${i % 5}.${(i * 11) % 89}`,
  }));
}

describe(`docwright analytics rebuild (main database on ${testBackend})`, () => {
  let database: TestDatabase;
  let services: Services | null = null;
  let dropClickHouse = async () => {};
  afterEach(async () => {
    await services?.close();
    services = null;
    await dropClickHouse();
    dropClickHouse = async () => {};
    await database.drop();
  });

  const cliWith = (env: Record<string, string>) => async (args: string[]) => {
    const { stdout } = await run(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env, DOCWRIGHT_LOG_LEVEL: 'silent' },
    });
    return stdout;
  };

  it('ClickHouse: builds the first-visit tables again from the views, after they lost rows', async () => {
    database = createTestDatabase();
    const url = inject('clickhouseUrl');
    const name = `dw_rebuild_${randomBase32(12).toLowerCase()}`;
    const admin = createClient({ url });
    dropClickHouse = async () => {
      await admin.command({ query: `DROP DATABASE IF EXISTS ${name}` });
      await admin.close();
    };
    const env = { ...database.env, DOCWRIGHT_ANALYTICS_URL: `${url}/${name}` };
    const cli = cliWith(env);
    const project = JSON.parse(
      await cli(['projects', 'create', '--name', 'docs', '--repo', 'https://example.com/d.git', '--json']),
    ).id as string;

    services = await openServices(loadConfig(env), createLogger('silent'), { storage: database.open() });
    const start = Math.floor(Date.now() / DAY) * DAY - 4 * DAY;
    const log = events(start);
    const ingested = await services.analytics.ingestMany(project, log);
    expect(ingested.accepted).toBe(log.length);
    const reference = new ReferenceAnalytics();
    reference.add(log);
    const ranges = [
      { from: null, to: null },
      { from: start + DAY, to: start + 2 * DAY },
      { from: start + DAY / 2 - 2 * 3_600_000, to: start + 2 * DAY + 3_600_000 },
    ];
    const exports = async () =>
      Promise.all(
        ranges.map(async (range) => {
          const report = await (services as Services).analytics.pages(project, 'visitors', {
            range,
            limit: 100,
            offset: 0,
          });
          return { totals: report.totals, rows: report.rows };
        }),
      );
    const expected = ranges.map((range) => {
      const { totals, rows } = reference.pages(range, 'visitors', false);
      return { totals, rows };
    });
    expect(await exports()).toEqual(expected);

    // What a ClickHouse failure in the middle of an insert can leave: the views stored, some of
    // their first-visit rows not.
    const where = `project = '${project}' AND day >= ${Math.floor(start / DAY) + 1}`;
    for (const table of ['pair_days', 'day_counts']) {
      await admin.command({ query: `ALTER TABLE ${name}.${table} DELETE WHERE ${where}` });
    }
    for (let wait = 0; wait < 200; wait++) {
      const pending = await admin.query({
        query: `SELECT count() AS n FROM system.mutations WHERE database = '${name}' AND is_done = 0`,
        format: 'JSONEachRow',
      });
      const [row] = await pending.json<{ n: string }>();
      if (Number(row?.n) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await exports()).not.toEqual(expected);

    const rebuilt = JSON.parse(await cli(['analytics', 'rebuild', '--project', project, '--json']));
    expect(rebuilt).toEqual({ rebuilt: true, views: log.length });
    expect(await exports()).toEqual(expected);
    // Again: harmless.
    expect(await cli(['analytics', 'rebuild', '--project', project])).toBe(
      "Rebuilt the first-visit tables from the project's 3,000 views.\n",
    );
    expect(await exports()).toEqual(expected);
  }, 120_000);

  it('the embedded engine: nothing to rebuild; an unknown project is refused', async () => {
    database = createTestDatabase();
    const cli = cliWith({ ...database.env, DOCWRIGHT_ANALYTICS_URL: 'embedded' });
    const project = JSON.parse(
      await cli(['projects', 'create', '--name', 'docs', '--repo', 'https://example.com/d.git', '--json']),
    ).id as string;
    expect(JSON.parse(await cli(['analytics', 'rebuild', '--project', project, '--json']))).toEqual({
      rebuilt: false,
      views: 0,
    });
    expect(await cli(['analytics', 'rebuild', '--project', project])).toMatch(/^Nothing to rebuild: /);
    const missing = await cli(['analytics', 'rebuild', '--project', 'prj_nosuchproject']).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/not found/i) });
  }, 60_000);
});

import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from '@clickhouse/client';
import { pino } from 'pino';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { openServices, type Services } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { randomBase32 } from '../../../src/domain/ids.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../../helpers/storage.ts';
import { ReferenceAnalytics, type TestEvent } from '../../unit/analytics/reference.ts';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../../bin/docwright.js', import.meta.url));
const DAY = 86_400_000;
const LINES = 60_000;
// Padded, so the file passes the 16 MiB from which an import is split across worker threads.
const USER_AGENTS = [
  `Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0 ${'x'.repeat(120)}`,
  `Claude-User (claude-code/2.1.158; +https://support.anthropic.com/) ${'x'.repeat(120)}`,
];

/**
 * A log whose visitors come back all through it: every worker's slice holds views of the same
 * (page, visitor) pairs, on the days where the slices meet too. Recent days, so their salts
 * are within retention for the whole test.
 */
function events(start: number): TestEvent[] {
  return Array.from({ length: LINES }, (_, i) => ({
    timestamp: new Date(start + Math.floor((i * 3 * DAY) / LINES)).toISOString(),
    path: `/guide/page-${i % 11}`,
    userAgent: USER_AGENTS[i % 2] as string,
    ip: `10.1.${i % 3}.${(i * 7) % 97}`,
  }));
}

describe(`docwright analytics import --workers into ClickHouse (main database on ${testBackend})`, () => {
  let database: TestDatabase;
  let services: Services | null = null;
  let dropClickHouse = async () => {};
  afterEach(async () => {
    await services?.close();
    services = null;
    await dropClickHouse();
    await database.drop();
  });

  it('counts what a reference counts when worker threads import one project at once', async () => {
    database = createTestDatabase();
    const url = inject('clickhouseUrl');
    const name = `dw_import_${randomBase32(12).toLowerCase()}`;
    dropClickHouse = async () => {
      const admin = createClient({ url });
      await admin.command({ query: `DROP DATABASE IF EXISTS ${name}` });
      await admin.close();
    };
    const env = { ...database.env, DOCWRIGHT_ANALYTICS_URL: `${url}/${name}`, DOCWRIGHT_LOG_LEVEL: 'silent' };
    const cli = async (args: string[]) => {
      const { stdout } = await run(process.execPath, [BIN, ...args, '--json'], {
        env: { ...process.env, ...env },
        maxBuffer: 1 << 24,
      });
      return JSON.parse(stdout) as Record<string, unknown>;
    };
    const start = Math.floor(Date.now() / DAY) * DAY - 4 * DAY;
    const log = events(start);
    const file = path.join(database.dir, 'big.jsonl');
    writeFileSync(
      file,
      `${log.map((e) => JSON.stringify({ timestamp: e.timestamp, client_ip: e.ip, path: e.path, user_agent: e.userAgent, status: 200 })).join('\n')}\n`,
    );
    const project = (
      await cli(['projects', 'create', '--name', 'big', '--repo', 'https://example.com/b.git'])
    ).id as string;

    const imported = await cli(['analytics', 'import', '--project', project, '--workers', '3', file]);
    expect(imported).toMatchObject({ lines: LINES, imported: LINES, duplicates: 0, skipped: 0 });
    expect(await cli(['analytics', 'import', '--project', project, '--workers', '2', file])).toMatchObject({
      imported: 0,
      duplicates: LINES,
    });

    const reference = new ReferenceAnalytics();
    reference.add(log);
    services = await openServices(loadConfig(env), pino({ level: 'silent' }), { storage: database.open() });
    const ranges = [
      { from: null, to: null },
      { from: start + DAY, to: start + 2 * DAY },
      { from: start + DAY / 2 - 2 * 3_600_000, to: start + 2 * DAY + 3_600_000 },
    ];
    for (const range of ranges) {
      for (const measure of ['visitors', 'views'] as const) {
        const report = await services.analytics.pages(project, measure, { range, limit: 100, offset: 0 });
        const expected = reference.pages(range, measure, false);
        expect({ range, measure, totals: report.totals, rows: report.rows }).toEqual({
          range,
          measure,
          totals: expected.totals,
          rows: expected.rows,
        });
      }
    }
  }, 120_000);
});

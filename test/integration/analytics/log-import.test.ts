import { execFile } from 'node:child_process';
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openServices, type Services } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { runCliInProcess } from '../../helpers/cli.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../../helpers/storage.ts';

const run = promisify(execFile);
const purposes = (aiAssistant: number) => ({ aiAssistant, aiSearch: 0, aiTraining: 0, aiOther: 0 });
const BIN = fileURLToPath(new URL('../../../bin/docwright.js', import.meta.url));
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot';
const CLAUDE_CODE = 'Claude-User (claude-code/2.1.158; +https://support.anthropic.com/)';

// A real nginx combined log: page views, a Markdown fetch, assets, errors, a POST, a TLS probe,
// a truncated line and a blank line.
const LOG = [
  `203.0.113.7 - - [01/Mar/2025:10:00:00 +0000] "GET /quickstart HTTP/1.1" 200 2326 "https://www.google.com/" "${FIREFOX}"`,
  `203.0.113.7 - - [01/Mar/2025:10:00:00 +0000] "GET /assets/app.css HTTP/1.1" 200 512 "https://docs.example.com/quickstart" "${FIREFOX}"`,
  `203.0.113.8 - - [01/Mar/2025:10:00:05 +0000] "GET /quickstart.md HTTP/1.1" 200 1800 "-" "${CLAUDE_CODE}"`,
  `203.0.113.7 - - [01/Mar/2025:10:01:00 +0000] "GET /api/keys/ HTTP/2.0" 304 0 "-" "${FIREFOX}"`,
  `198.51.100.4 - - [01/Mar/2025:10:02:00 +0000] "GET /wp-login.php HTTP/1.1" 404 153 "-" "Mozilla/5.0 zgrab/0.x"`,
  `198.51.100.4 - - [01/Mar/2025:10:02:01 +0000] "POST /api/search HTTP/1.1" 200 88 "-" "curl/8.5.0"`,
  '198.51.100.9 - - [01/Mar/2025:10:03:00 +0000] "\\x16\\x03\\x01\\x00" 400 157 "-" "-"',
  '203.0.113.7 - - [01/Mar/2025:10:04:00 +0000] "GET /truncated HTTP/1.1" 200',
  '',
  `203.0.113.7 - - [01/Mar/2025:10:05:00 +0200] "GET /quickstart HTTP/1.1" 200 2326 "-" "${FIREFOX}"`,
].join('\n');

describe(`docwright analytics import on ${testBackend}`, () => {
  let database: TestDatabase;
  let services: Services | null = null;
  afterEach(async () => {
    await services?.close();
    services = null;
    await database.drop();
  });

  const cli = async (args: string[]) => {
    const { stdout } = await run(process.execPath, [BIN, ...args, '--json'], {
      env: { ...process.env, ...database.env, DOCWRIGHT_LOG_LEVEL: 'silent' },
      maxBuffer: 1 << 24,
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  };
  /** The same command in this process (test/helpers/cli.ts); the worker-thread import runs the binary. */
  const cliInProcess = async (args: string[]) => {
    const result = await runCliInProcess([...args, '--json'], {
      ...database.env,
      DOCWRIGHT_LOG_LEVEL: 'silent',
    });
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  const open = async () => {
    const config = loadConfig({ ...database.env, DOCWRIGHT_LOG_LEVEL: 'silent' });
    services = await openServices(config, pino({ level: 'silent' }), { storage: database.open() });
    return services;
  };

  it('imports a real-format log with bad lines, says what it skipped, and adds nothing on re-import', async () => {
    database = createTestDatabase();
    const file = path.join(database.dir, 'access.log');
    writeFileSync(file, `${LOG}\n`);
    const project = (
      await cliInProcess(['projects', 'create', '--name', 'docs', '--repo', 'https://example.com/d.git'])
    ).id as string;

    const first = await cliInProcess(['analytics', 'import', '--project', project, file]);
    expect(first).toMatchObject({ lines: 10, imported: 4, duplicates: 0, skipped: 6, format: 'combined' });
    expect(first.reasons).toEqual(
      expect.arrayContaining([
        { reason: 'not a page: asset', lines: 1 },
        { reason: 'status 404', lines: 1 },
        { reason: 'method POST', lines: 1 },
        { reason: 'malformed request line', lines: 1 },
        { reason: 'not a combined log line', lines: 1 },
        { reason: 'empty line', lines: 1 },
      ]),
    );
    const again = await cliInProcess(['analytics', 'import', '--project', project, file]);
    expect(again).toMatchObject({ imported: 0, duplicates: 4 });
    // Views stored by this version need no reclassifying.
    expect(await cliInProcess(['analytics', 'reclassify', '--project', project])).toEqual({
      examined: 0,
      changed: 0,
    });

    const s = await open();
    const all = { range: { from: null, to: null }, limit: 50, offset: 0 };
    expect(await s.analytics.pages(project, 'visitors', all)).toEqual({
      // Claude Code is an assistant: the purpose split's aiAssistant.
      totals: { human: 1, ai: 1, total: 2, ...purposes(1) },
      rows: [
        { path: '/quickstart', human: 1, ai: 1, total: 2, ...purposes(1) },
        { path: '/api/keys', human: 1, ai: 0, total: 1, ...purposes(0) },
      ],
      hasMore: false,
    });
    expect((await s.analytics.pages(project, 'views', all)).totals).toEqual({
      human: 3,
      ai: 1,
      total: 4,
      ...purposes(1),
    });
  });

  /** Writes `lines`, then `bytes` of one line (1 MiB at a time, never held whole), then `after`. */
  const writeWithLongLine = (file: string, before: string[], bytes: number, after: string[]) => {
    const fd = openSync(file, 'w');
    try {
      if (before.length > 0) writeSync(fd, `${before.join('\n')}\n`);
      const piece = Buffer.alloc(1 << 20, 'x');
      for (let written = 0; written < bytes; written += piece.length) {
        writeSync(fd, piece, 0, Math.min(piece.length, bytes - written));
      }
      if (after.length > 0) writeSync(fd, `\n${after.join('\n')}\n`);
    } finally {
      closeSync(fd);
    }
  };
  const TOO_LONG = { reason: 'line longer than 64 KiB', lines: 1 };

  it('skips a file of one 64 MB line without a newline, unread, in one thread and in several', async () => {
    database = createTestDatabase();
    const file = path.join(database.dir, 'no-newline.log');
    writeWithLongLine(file, [], 64 << 20, []);
    const project = (
      await cli(['projects', 'create', '--name', 'long', '--repo', 'https://example.com/l.git'])
    ).id as string;
    for (const workers of ['2', '1']) {
      const summary = await cli(['analytics', 'import', '--project', project, '--workers', workers, file]);
      expect(summary, `--workers ${workers}`).toMatchObject({
        lines: 1,
        imported: 0,
        skipped: 1,
        reasons: [TOO_LONG],
      });
    }
  }, 120_000);

  it('imports the lines around a 40 MB line, which counts as one skipped line, in one thread and in several', async () => {
    database = createTestDatabase();
    const file = path.join(database.dir, 'mixed.jsonl');
    const views = (from: number) =>
      Array.from({ length: 2000 }, (_, i) =>
        JSON.stringify({
          timestamp: new Date(Date.UTC(2025, 2, 1) + (from + i) * 1000).toISOString(),
          client_ip: `10.0.${(from + i) >> 8}.${(from + i) & 255}`,
          path: `/page-${i % 50}`,
          user_agent: FIREFOX,
          status: 200,
        }),
      );
    // The slice boundary of two workers falls inside the long line.
    writeWithLongLine(file, views(0), 40 << 20, views(2000));
    const project = (
      await cli(['projects', 'create', '--name', 'mixed', '--repo', 'https://example.com/m.git'])
    ).id as string;
    const parallel = await cli(['analytics', 'import', '--project', project, '--workers', '2', file]);
    expect(parallel).toMatchObject({
      lines: 4001,
      imported: 4000,
      skipped: 1,
      reasons: [TOO_LONG],
      format: 'json',
    });
    const single = await cli(['analytics', 'import', '--project', project, '--workers', '1', file]);
    expect(single).toMatchObject({
      lines: 4001,
      imported: 0,
      duplicates: 4000,
      skipped: 1,
      reasons: [TOO_LONG],
    });
  }, 120_000);

  it('gives a large file split across workers the same ids as a single-threaded import', async () => {
    database = createTestDatabase();
    const file = path.join(database.dir, 'big.jsonl');
    const lines: string[] = [];
    // ~17 MiB of JSON lines, with runs of identical lines within one second; here and there a
    // GPTBot, from OpenAI's published addresses (verified) or from elsewhere (claimed), in
    // every worker's slice.
    for (let i = 0; i < 60_000; i++) {
      const second = Math.floor(i / 3);
      const gptbot = i % 1000 === 0 ? 'verified' : i % 1000 === 501 ? 'claimed' : null;
      lines.push(
        JSON.stringify({
          timestamp: new Date(Date.UTC(2025, 2, 1) + second * 1000).toISOString(),
          client_ip:
            gptbot === 'verified' ? `20.171.206.${i / 1000}` : `10.0.${(second >> 8) & 255}.${second & 255}`,
          path: `/page-${second % 50}`,
          user_agent: gptbot ? GPTBOT : `${FIREFOX} ${'x'.repeat(120)}`,
          status: 200,
        }),
      );
    }
    writeFileSync(file, `${lines.join('\n')}\n`);
    const project = (
      await cli(['projects', 'create', '--name', 'big', '--repo', 'https://example.com/b.git'])
    ).id as string;

    const parallel = await cli(['analytics', 'import', '--project', project, '--workers', '2', file]);
    expect(parallel).toMatchObject({ lines: 60_000, imported: 60_000, skipped: 0 });
    // Each worker verified its GPTBots against the shipped ranges.
    const { agents } = await (await open()).analytics.breakdown(project, {
      range: { from: null, to: null },
      verifiedOnly: true,
    });
    expect(agents).toContainEqual({ agent: 'GPTBot', category: 'ai_crawler', visitors: 60, views: 60 });
    expect(agents).toContainEqual({ agent: 'GPTBot', category: 'bot', visitors: 60, views: 60 });
    const single = await cli(['analytics', 'import', '--project', project, '--workers', '1', file]);
    expect(single).toMatchObject({ imported: 0, duplicates: 60_000 });
  }, 120_000);
});

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCrawlerRanges, storedRangeLists } from '../../../src/app/crawler-ranges.ts';
import { openServices } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import {
  CRAWLER_RANGE_SOURCES,
  SHIPPED_CRAWLER_RANGES,
} from '../../../src/domain/analytics/crawler-range-files.ts';
import { runCliInProcess } from '../../helpers/cli.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../../helpers/storage.ts';

const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot';
const BIN = fileURLToPath(new URL('../../../bin/docwright.js', import.meta.url));

interface Result {
  code: number;
  output: { storedIn: string; lists: Array<Record<string, unknown>> };
}

/** A local server answering for the operators, in their published shapes; each test sets the answers. */
function publisher() {
  const answers = new Map<string, { status: number; body: string }>();
  const server = createServer((request, response) => {
    const answer = answers.get(request.url ?? '') ?? { status: 404, body: 'not found' };
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(answer.body);
  });
  return { server, answers };
}

function shipped(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(fileURLToPath(new URL(file, SHIPPED_CRAWLER_RANGES)), 'utf8'));
}

describe(`docwright analytics update-lists on ${testBackend}`, () => {
  const { server, answers } = publisher();
  let base: string;
  let database: TestDatabase;
  /** Another machine of the deployment: a data directory of its own, the same main database. */
  let otherDataDir: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    database = createTestDatabase();
    otherDataDir = mkdtempSync(path.join(tmpdir(), 'dw-update-lists-'));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await database.drop();
    rmSync(otherDataDir, { recursive: true, force: true });
  });
  const env = () => ({ ...database.env, DOCWRIGHT_LOG_LEVEL: 'silent' });

  const run = (args: string[]) =>
    new Promise<Result>((resolve, reject) => {
      execFile(
        process.execPath,
        [BIN, 'analytics', 'update-lists', ...args],
        { env: { ...process.env, ...env() } },
        (error, stdout, stderr) => {
          try {
            resolve({ code: error ? Number(error.code) : 0, output: JSON.parse(stdout) });
          } catch {
            reject(new Error(`no JSON on stdout: ${stdout} ${stderr}`));
          }
        },
      );
    });
  /** The same command in this process (test/helpers/cli.ts); the first test runs the binary. */
  const runInProcess = async (args: string[]): Promise<Result> => {
    const result = await runCliInProcess(['analytics', 'update-lists', ...args], env());
    return { code: result.code ?? -1, output: JSON.parse(result.stdout) };
  };
  const list = (result: Result, file: string) => result.output.lists.find((l) => l.file === file);
  /** The lists stored in the main database, as a node reads them when it starts. */
  const stored = async () => {
    const storage = database.open();
    try {
      return await storedRangeLists(storage);
    } finally {
      await storage.close();
    }
  };

  it('fetches each list, writes the good ones, keeps the old copy of a bad one and names it', async () => {
    for (const source of CRAWLER_RANGE_SOURCES) {
      const body = source.copy
        ? shipped(source.file)
        : { creationTime: '2026-11-01T00:00:00Z', prefixes: [] };
      answers.set(`/${source.file}`, { status: 200, body: JSON.stringify(body) });
    }
    const gptbot = shipped('gptbot.json') as { creationTime: string; prefixes: object[] };
    answers.set('/gptbot.json', {
      status: 200,
      body: JSON.stringify({
        creationTime: '2026-11-24T11:00:00Z',
        prefixes: [...gptbot.prefixes, { ipv4Prefix: '198.51.100.0/24' }],
      }),
    });
    answers.set('/bingbot.json', { status: 200, body: '<html>Service unavailable</html>' });
    answers.set('/perplexitybot.json', {
      status: 200,
      body: '{"prefixes":[{"ipv4Prefix":"18.97.1.228/33"}]}',
    });
    answers.set('/duckassistbot.json', { status: 503, body: '' });

    const first = await run(['--json', '--source-url-override', base]);
    expect(first.code).toBe(1);
    expect(list(first, 'gptbot.json')).toMatchObject({
      status: 'updated',
      before: 21,
      after: 22,
      added: 1,
      removed: 0,
      creationTime: '2026-11-24T11:00:00Z',
    });
    expect(list(first, 'bingbot.json')).toMatchObject({ status: 'failed', before: 28, after: 28 });
    expect(list(first, 'bingbot.json')?.error).toMatch(/^bingbot\.json: not JSON/);
    expect(list(first, 'perplexitybot.json')?.error).toMatch(
      /^perplexitybot\.json: prefixes\[0\]: ipv4Prefix/,
    );
    expect(list(first, 'duckassistbot.json')?.error).toMatch(/duckassistbot\.json: HTTP 503$/);
    expect(list(first, 'googlebot.json')).toMatchObject({ status: 'updated', added: 0, removed: 0 });
    expect(first.output.storedIn).toBe('main database');
    const lists = await stored();
    expect(lists.has('bingbot.json')).toBe(false);
    expect(lists.has('gptbot.json')).toBe(true);
    // What a server started now uses, on any machine of the deployment: the new GPTBot range,
    // Bing's shipped copy.
    const ranges = loadCrawlerRanges(otherDataDir, undefined, lists);
    expect(ranges.verifies('GPTBot', 'OpenAI', '198.51.100.200')).toBe(true);
    expect(ranges.verifies('Bingbot', 'Microsoft', '157.55.39.1')).toBe(true);
    expect(loadCrawlerRanges(otherDataDir).verifies('GPTBot', 'OpenAI', '198.51.100.200')).toBe(false);

    // A server started now verifies a GPTBot from the new range.
    const services = await openServices(loadConfig(env()), pino({ level: 'silent' }));
    try {
      const project = await services.projects.create({ name: 'd', repository: 'https://example.com/d.git' });
      const result = await services.analytics.ingest(project.id, [
        { timestamp: '2026-11-30T10:00:00Z', path: '/guide', userAgent: GPTBOT, ip: '198.51.100.200' },
      ]);
      expect(result.accepted).toBe(1);
      const { agents } = await services.analytics.breakdown(project.id, {
        range: { from: null, to: null },
        verifiedOnly: true,
      });
      expect(agents).toEqual([{ agent: 'GPTBot', category: 'ai_crawler', visitors: 1, views: 1 }]);
    } finally {
      await services.close();
    }
  });

  it('keeps a refreshed copy when its next download fails, and reports unchanged lists', async () => {
    const before = (await stored()).get('gptbot.json');
    answers.set('/gptbot.json', { status: 200, body: '{"creationTime": "2026-11-25", "prefixes": [' });
    answers.set('/bingbot.json', { status: 200, body: JSON.stringify(shipped('bingbot.json')) });
    answers.set('/perplexitybot.json', { status: 200, body: JSON.stringify(shipped('perplexitybot.json')) });
    answers.set('/duckassistbot.json', { status: 200, body: '{"prefixes":[{"ipv4Prefix":"192.0.2.0/28"}]}' });
    const second = await runInProcess(['--json', '--source-url-override', `${base}/`]);
    expect(second.code).toBe(1);
    expect(list(second, 'gptbot.json')).toMatchObject({ status: 'failed', before: 22, after: 22 });
    expect((await stored()).get('gptbot.json')).toBe(before);
    expect(list(second, 'googlebot.json')).toMatchObject({ status: 'unchanged' });
    expect(list(second, 'bingbot.json')).toMatchObject({ status: 'updated', before: 28, after: 28 });
    expect(list(second, 'duckassistbot.json')).toMatchObject({
      status: 'updated',
      before: 0,
      after: 1,
      added: 1,
    });
  });

  it('a running server verifies with the stored lists from its next check on, in its preparation threads too', async () => {
    const gptbot = JSON.parse((await stored()).get('gptbot.json') ?? '') as { prefixes: object[] };
    const services = await openServices(loadConfig(env()), pino({ level: 'silent' }), {
      analytics: { preparationThreads: 1 },
    });
    try {
      const project = await services.projects.create({ name: 'r', repository: 'https://example.com/r.git' });
      const at = new Date(Date.now() - 60_000).toISOString();
      const view = (ip: string) => ({ timestamp: at, path: '/guide', userAgent: GPTBOT, ip });
      const body = (ip: string) => new TextEncoder().encode(JSON.stringify({ events: [view(ip)] }));
      // Under verifiedOnly a claimed GPTBot counts as a bot.
      const verifiedVisitors = async () =>
        (
          await services.analytics.breakdown(project.id, {
            range: { from: null, to: null },
            verifiedOnly: true,
          })
        ).agents
          .filter((agent) => agent.category === 'ai_crawler')
          .reduce((sum, agent) => sum + agent.visitors, 0);
      // Before the update: 203.0.113.0/24 is no published GPTBot range; the thread is running.
      expect((await services.analytics.ingest(project.id, [view('203.0.113.5')])).accepted).toBe(1);
      expect((await services.analytics.ingestBody(project.id, body('203.0.113.6')))?.accepted).toBe(1);
      expect(services.analytics.batchesPreparedInThreads).toBe(1);
      expect(await services.crawlerRangeReload.check()).toBe(false);
      expect(await verifiedVisitors()).toBe(0);

      answers.set('/gptbot.json', {
        status: 200,
        body: JSON.stringify({
          creationTime: '2026-12-01T11:00:00Z',
          prefixes: [...gptbot.prefixes, { ipv4Prefix: '203.0.113.0/24' }],
        }),
      });
      expect(
        list(await runInProcess(['--json', '--source-url-override', base]), 'gptbot.json'),
      ).toMatchObject({
        status: 'updated',
        added: 1,
      });
      // Not until the check: a node reads the main database hourly, not per request.
      expect((await services.analytics.ingest(project.id, [view('203.0.113.7')])).accepted).toBe(1);
      expect(await verifiedVisitors()).toBe(0);

      expect(await services.crawlerRangeReload.check()).toBe(true);
      expect(await services.crawlerRangeReload.check()).toBe(false);
      expect((await services.analytics.ingest(project.id, [view('203.0.113.8')])).accepted).toBe(1);
      expect((await services.analytics.ingestBody(project.id, body('203.0.113.9')))?.accepted).toBe(1);
      expect(services.analytics.batchesPreparedInThreads).toBe(2);
      // The views from .8 (this thread) and .9 (the preparation thread); the earlier ones keep their mark.
      expect(await verifiedVisitors()).toBe(2);
    } finally {
      await services.close();
    }
  });

  it('refuses an override that is not an HTTP URL', async () => {
    const bad = await runCliInProcess(
      ['analytics', 'update-lists', '--source-url-override', 'file:///etc'],
      env(),
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--source-url-override must be an http/);
  });
});

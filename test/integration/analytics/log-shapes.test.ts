import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openServices, type Services } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../../helpers/storage.ts';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../../bin/docwright.js', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/logs/${name}`, import.meta.url));
const REALTIME_FIELDS =
  'timestamp c-ip sc-status cs-method cs-uri-stem cs-user-agent cs-referer cs-accept sc-content-type';

interface Case {
  file: string;
  args?: string[];
  summary: Record<string, unknown>;
  /** Views per page: [path, human, ai]. */
  pages: Array<[string, number, number]>;
  agents: string[];
  warnings?: string[];
}

// One file per documented log shape (test/fixtures/logs; each cites its source), imported through
// `docwright analytics import` as a person would, into a project of its own.
const CASES: Case[] = [
  {
    file: 'cloudfront-standard.log',
    summary: { format: 'w3c', imported: 5, skipped: 9 },
    pages: [
      ['/', 1, 0],
      ['/café', 1, 0],
      ['/guide', 0, 1],
      ['/quickstart', 1, 0],
    ],
    agents: ['Browser:human', 'ChatGPT:ai', 'ClaudeBot:ai_crawler'],
  },
  {
    file: 'cloudfront-v2.jsonl',
    summary: { format: 'json', imported: 3 },
    pages: [
      ['/guide', 1, 1],
      ['/quickstart', 1, 0],
    ],
    agents: ['Browser:human', 'ChatGPT:ai'],
  },
  {
    file: 'cloudfront-realtime.tsv',
    args: ['--fields', REALTIME_FIELDS],
    summary: { format: 'w3c', imported: 3 },
    pages: [
      ['/quickstart', 1, 1],
      ['/guide', 0, 1],
    ],
    agents: ['Browser:human', 'Perplexity:ai', 'Unrecognised client:ai'],
  },
  {
    file: 'vercel.ndjson',
    summary: { format: 'json', imported: 3, skipped: 4 },
    pages: [
      ['/guide', 1, 1],
      ['/quickstart', 1, 0],
    ],
    agents: ['Browser:human', 'Claude Code:ai'],
  },
  {
    file: 'vercel-batch.jsonl',
    summary: { format: 'json', imported: 2 },
    pages: [
      ['/guide', 0, 1],
      ['/quickstart', 1, 0],
    ],
    agents: ['Browser:human', 'ChatGPT:ai'],
  },
  {
    file: 'cloudflare.jsonl',
    summary: { format: 'json', imported: 3 },
    pages: [
      ['/quickstart', 1, 1],
      ['/guide', 0, 1],
    ],
    agents: ['Amzn-User:ai', 'Browser:human', 'Unrecognised client:ai'],
  },
  {
    file: 'fastly.jsonl',
    summary: { format: 'json', imported: 3 },
    pages: [
      ['/guide', 1, 1],
      ['/quickstart', 1, 0],
    ],
    agents: ['Browser:human', 'kagi-fetcher:ai'],
  },
  {
    file: 'netlify.ndjson',
    summary: { format: 'json', imported: 3 },
    pages: [
      ['/guide', 0, 1],
      ['/llms.txt', 0, 1],
      ['/quickstart', 1, 0],
    ],
    agents: ['Browser:human', 'kagi-fetcher:ai', 'python-httpx:ai'],
  },
  {
    file: 'nginx-escapes.log',
    summary: { format: 'combined', imported: 7 },
    pages: [
      ['/guide', 3, 0],
      ['/', 2, 0],
      ['/café', 2, 0],
    ],
    agents: ['Browser:human'],
    warnings: ['No AI views: '],
  },
  {
    file: 'apache-common.log',
    summary: { format: 'common', imported: 2 },
    pages: [], // bots only: the exports count people and AI
    agents: ['Other bot:bot'],
    warnings: [
      'No human views: the common log format records no user agent',
      'No AI views: the common log format',
    ],
  },
];

describe(`importing each documented log shape on ${testBackend}`, () => {
  let database: TestDatabase;
  let services: Services;
  const projects = new Map<string, string>();
  const env = () => ({ ...process.env, ...database.env, DOCWRIGHT_LOG_LEVEL: 'silent' });
  const open = () =>
    openServices(loadConfig({ ...database.env, DOCWRIGHT_LOG_LEVEL: 'silent' }), pino({ level: 'silent' }), {
      storage: database.open(),
    });

  beforeAll(async () => {
    database = createTestDatabase();
    const setup = await open();
    try {
      for (const { file } of CASES) {
        const project = await setup.projects.create({
          name: file,
          repository: 'https://example.com/docs.git',
        });
        projects.set(file, project.id);
      }
    } finally {
      await setup.close();
    }
    // One import process per file, two at a time: each is a process start.
    const queue = [...CASES];
    const results = new Map<string, Record<string, unknown>>();
    const worker = async () => {
      for (let c = queue.shift(); c; c = queue.shift()) {
        const { stdout } = await run(
          process.execPath,
          [
            BIN,
            'analytics',
            'import',
            '--project',
            projects.get(c.file) as string,
            ...(c.args ?? []),
            fixture(c.file),
            '--json',
          ],
          { env: env() },
        );
        results.set(c.file, JSON.parse(stdout) as Record<string, unknown>);
      }
    };
    await Promise.all([worker(), worker()]);
    summaries = results;
    services = await open();
  }, 120_000);
  let summaries: Map<string, Record<string, unknown>>;

  afterAll(async () => {
    await services?.close();
    await database?.drop();
  });

  it.each(CASES)('$file', async (c) => {
    const summary = summaries.get(c.file) as { warnings: string[] } & Record<string, unknown>;
    expect(summary).toMatchObject(c.summary);
    expect(summary.warnings.length).toBe(c.warnings?.length ?? 0);
    for (const [i, start] of (c.warnings ?? []).entries()) expect(summary.warnings[i]).toContain(start);
    const project = projects.get(c.file) as string;
    const all = { range: { from: null, to: null }, limit: 50, offset: 0 };
    const report = await services.analytics.pages(project, 'views', all);
    expect(report.rows.map((r) => [r.path, r.human, r.ai]).sort()).toEqual([...c.pages].sort());
    const { agents } = await services.analytics.breakdown(project, { range: { from: null, to: null } });
    expect(agents.map((a) => `${a.agent}:${a.category}`).sort()).toEqual([...c.agents].sort());
  });
});

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentationAgent } from '../../../src/app/create-agent.ts';
import { createWorker } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { git } from '../../helpers/git-repos.ts';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../helpers/scripted-openai-server.ts';
import { testBackend } from '../../helpers/storage.ts';

const EXAMPLE_SITE = fileURLToPath(new URL('../../../examples/docs-site', import.meta.url));
const BIN = fileURLToPath(new URL('../../../bin/docwright.js', import.meta.url));
const MODEL_KEY = 'sk-test-secret-key-123';
const PAGE =
  '---\ntitle: Rate limits\ndescription: How many requests you can make.\n---\n\nYou can make 100 requests per minute.\n';
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
/** Each stdio client is a process of its own; on a loaded machine one takes several seconds to start. */
const SLOW = 120_000;
const TOOLS = [
  'create_docs_job',
  'export_docs_visitors',
  'follow_up_docs_job',
  'get_docs_job',
  'list_docs_jobs',
];

interface ToolAnswer {
  isError: boolean;
  text: string;
}
interface JobJson {
  id: string;
  status: string;
  prLink: string | null;
}
interface Conversation {
  turns: { turn: number; prompt: string; status: string; summary: string | null }[];
  messages: { role: string; text: string | null; tool: { name: string } | null }[];
}

/**
 * The MCP tools with the SDK's own client, over both transports: Streamable HTTP (POST /mcp,
 * in-process services) and stdio (`docwright mcp`, a child process that talks to the app with
 * the typed client). The agent is the real documentation agent on a scripted model server.
 */
describe.each(['http', 'stdio'] as const)(`MCP over %s on ${testBackend}`, (transport) => {
  let t: TestApp;
  let model: ScriptedOpenAIServer;
  let worker: Worker;
  let projectId: string;
  let adminKey: string;
  let readKey: string;
  let otherKey: string;
  const dirs: string[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    const finish = (summary: string) => ({
      toolCalls: [{ name: 'finish', arguments: { summary, pull_request_title: 'Add a rate limits page' } }],
    });
    model = await startScriptedOpenAIServer(
      [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'guides/rate-limits.mdx', content: PAGE } }] },
        finish('Added the rate limits page.'),
        finish('Nothing else to change: the page already says it.'),
      ],
      { apiKey: MODEL_KEY },
    );
    const repo = mkdtempSync(path.join(tmpdir(), 'docwright-mcp-repo-'));
    const dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-mcp-data-'));
    dirs.push(repo, dataDir);
    cpSync(EXAMPLE_SITE, repo, { recursive: true });
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'add', '--all');
    git(repo, 'commit', '--quiet', '-m', 'Initial docs');
    const settings = {
      DOCWRIGHT_MODEL: 'openai-compatible:test-model',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
      DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: MODEL_KEY,
      DOCWRIGHT_POLL_INTERVAL_MS: '50',
      DOCWRIGHT_PUBLIC_URL: 'http://docwright.test',
    };
    const agent = createDocumentationAgent(
      loadConfig({ ...settings, DOCWRIGHT_DATA_DIR: dataDir }),
      pino({ level: 'silent' }),
      { secretBox: null },
    );
    t = await startTestApp({ env: settings, agent });
    const project = await t.services.projects.create({ name: 'Local docs', repository: repo });
    projectId = project.id;
    adminKey = (await t.services.keys.create(projectId, 'coding agent')).key;
    readKey = (await t.services.keys.create(projectId, 'reader', 'read')).key;
    otherKey = t.key; // an admin key of the app's first project
    await t.services.analytics.ingest(projectId, [
      { timestamp: '2026-03-01T09:00:00Z', path: '/quickstart', userAgent: CHROME, ip: '203.0.113.1' },
      { timestamp: '2026-03-01T10:00:00Z', path: '/quickstart', userAgent: CHROME, ip: '203.0.113.2' },
      { timestamp: '2026-03-01T11:00:00Z', path: '/guides/webhooks', userAgent: CHROME, ip: '203.0.113.1' },
      { timestamp: '2026-03-02T00:00:00Z', path: '/later', userAgent: CHROME, ip: '203.0.113.1' },
    ]);
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
  });

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await worker?.stop();
    await t?.close();
    await model?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * An SDK client connected over this describe's transport with `key`; one per key, as an
   * agent keeps its connection (each stdio client is a process that takes seconds to start).
   */
  const connected = new Map<string, Client>();
  async function connect(key: string): Promise<Client> {
    const existing = connected.get(key);
    if (existing) return existing;
    const client = new Client({ name: 'docwright-test', version: '1.0.0' });
    if (transport === 'http') {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
    } else {
      // A developer's machine: no database, no data directory, none of the server's settings.
      const cwd = mkdtempSync(path.join(tmpdir(), 'docwright-mcp-laptop-'));
      dirs.push(cwd);
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, 'mcp', '--url', t.baseUrl],
          env: { ...getDefaultEnvironment(), DOCWRIGHT_API_KEY: key, DOCWRIGHT_PROJECT_ID: projectId },
          cwd,
          stderr: 'ignore',
        }),
      );
    }
    clients.push(client);
    connected.set(key, client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    const result = await client.callTool({ name, arguments: args });
    const content = result.content as { type: string; text: string }[];
    expect(content).toHaveLength(1);
    expect(content[0]?.type).toBe('text');
    return { isError: result.isError === true, text: content[0]?.text ?? '' };
  }
  async function json<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
    const answer = await call(client, name, args);
    expect(answer, answer.text).toMatchObject({ isError: false });
    return JSON.parse(answer.text) as T;
  }
  async function finished(client: Client, jobId: string) {
    let last: { job: JobJson; conversation: Conversation } | null = null;
    await expect
      .poll(
        async () => {
          last = await json<{ job: JobJson; conversation: Conversation }>(client, 'get_docs_job', { jobId });
          return last.job.status;
        },
        { timeout: 50_000, interval: 100 },
      )
      .toBe('completed');
    return last as unknown as { job: JobJson; conversation: Conversation };
  }

  it(
    'lists the tools, each described, with its arguments',
    async () => {
      const client = await connect(adminKey);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
      for (const tool of tools) expect(tool.description?.length).toBeGreaterThan(80);
      const create = tools.find((tool) => tool.name === 'create_docs_job');
      expect(create?.inputSchema).toMatchObject({ type: 'object', required: ['prompt'] });
      expect(client.getServerVersion()).toMatchObject({ name: 'docwright' });
    },
    SLOW,
  );

  it(
    'creates a job, waits for it, reads it with its conversation, follows up and lists',
    async () => {
      const client = await connect(adminKey);
      const created = await json<JobJson>(client, 'create_docs_job', {
        prompt: 'Add a page about rate limits',
      });
      expect(created).toMatchObject({ status: 'active', prLink: null });

      const first = await finished(client, created.id);
      expect(first.job.prLink).toMatch(/^http:\/\/docwright\.test\/review\//);
      expect(first.conversation.turns).toEqual([
        expect.objectContaining({
          turn: 1,
          prompt: 'Add a page about rate limits',
          status: 'succeeded',
          summary: 'Added the rate limits page.',
        }),
      ]);
      expect(first.conversation.messages.map((m) => m.tool?.name ?? m.role)).toEqual(
        expect.arrayContaining(['user', 'write_file', 'finish']),
      );

      const again = await json<JobJson>(client, 'follow_up_docs_job', {
        jobId: created.id,
        prompt: 'Check that the page says the limit',
      });
      expect(again).toMatchObject({ id: created.id, status: 'active' });
      const second = await finished(client, created.id);
      expect(second.conversation.turns.map((turn) => [turn.turn, turn.status, turn.summary])).toEqual([
        [1, 'succeeded', 'Added the rate limits page.'],
        [2, 'succeeded', 'Nothing else to change: the page already says it.'],
      ]);

      const listed = await json<{ jobs: JobJson[]; nextCursor: string | null }>(client, 'list_docs_jobs', {
        status: 'completed',
        limit: 5,
      });
      expect(listed).toEqual({ jobs: [expect.objectContaining({ id: created.id })], nextCursor: null });
      expect(
        await json<{ jobs: JobJson[] }>(client, 'list_docs_jobs', { status: 'failed', q: 'rate limits' }),
      ).toEqual({ jobs: [], nextCursor: null });
    },
    SLOW,
  );

  it(
    'exports visitors per page over [dateFrom, dateTo), with paging and verifiedOnly',
    async () => {
      const client = await connect(readKey);
      const counts = (human: number) => ({
        human,
        ai: 0,
        total: human,
        aiAssistant: 0,
        aiSearch: 0,
        aiTraining: 0,
        aiOther: 0,
      });
      expect(
        await json(client, 'export_docs_visitors', {
          dateFrom: '2026-03-01',
          dateTo: '2026-03-02',
          limit: 1,
          verifiedOnly: true,
        }),
      ).toEqual({ totals: counts(2), visitors: [{ path: '/quickstart', ...counts(2) }], hasMore: true });
      expect(
        await json(client, 'export_docs_visitors', {
          dateFrom: '2026-03-01',
          dateTo: '2026-03-02',
          offset: 1,
        }),
      ).toEqual({
        totals: counts(2),
        visitors: [{ path: '/guides/webhooks', ...counts(1) }],
        hasMore: false,
      });
      const invalid = await call(client, 'export_docs_visitors', { dateFrom: 'last week' });
      expect(invalid.isError).toBe(true);
      expect(invalid.text).toMatch(/dateFrom.*\(HTTP 400\)$/);
    },
    SLOW,
  );

  it(
    'refuses a read-scope key what needs an admin key, and says why; it still reads',
    async () => {
      const client = await connect(readKey);
      const refused = await call(client, 'create_docs_job', { prompt: 'Add a page' });
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/scope "read" cannot .*\(HTTP 403\)$/);
      expect(refused.text).not.toMatch(/\n\s+at /);
      const { jobs } = await json<{ jobs: JobJson[] }>(client, 'list_docs_jobs', {});
      expect(jobs.length).toBeGreaterThan(0);
      const followUp = await call(client, 'follow_up_docs_job', { jobId: jobs[0]?.id, prompt: 'More' });
      expect(followUp).toMatchObject({ isError: true, text: expect.stringMatching(/scope "read"/) });
      expect((await t.services.jobs.list(projectId, { limit: 100 })).jobs).toHaveLength(jobs.length);
    },
    SLOW,
  );

  it(
    'never lets a key of another project reach this one',
    async () => {
      const [job] = (await t.services.jobs.list(projectId, { limit: 1 })).jobs;
      const client = await connect(otherKey);
      const answer = await call(client, 'get_docs_job', { jobId: job?.id });
      expect(answer.isError).toBe(true);
      // Over HTTP the key's own project is the one it works on, where this job is not; docwright
      // mcp names this project, which the server refuses to that key.
      expect(answer.text).toBe(
        transport === 'http'
          ? `Job ${job?.id} not found in project ${t.project.id} (HTTP 404)`
          : 'This API key belongs to another project (HTTP 403)',
      );
      // Over HTTP the job is created, in the key's own project; over stdio the server refuses it.
      const created = await call(client, 'create_docs_job', { prompt: 'Sneak a page in' });
      expect(created.isError).toBe(transport === 'stdio');
      expect((await t.services.jobs.list(projectId, { limit: 100, q: 'Sneak' })).jobs).toEqual([]);
    },
    SLOW,
  );

  it(
    'answers bad arguments and unknown jobs as tool errors with the reason',
    async () => {
      const client = await connect(adminKey);
      const empty = await call(client, 'create_docs_job', { prompt: '   ' });
      expect(empty.isError).toBe(true);
      expect(empty.text).toMatch(/prompt must not be empty/);
      const missing = await call(client, 'get_docs_job', { jobId: 'job_missing' });
      expect(missing).toEqual({
        isError: true,
        text: `Job job_missing not found in project ${projectId} (HTTP 404)`,
      });
    },
    SLOW,
  );

  it.runIf(transport === 'stdio')('docwright mcp ran without a database or a data directory', () => {
    // Every stdio client above ran in an empty directory, without DATABASE_URL or DOCWRIGHT_DATA_DIR.
    const laptop = dirs.filter((d) => d.includes('docwright-mcp-laptop-'));
    expect(laptop.length).toBe(3); // the admin, read and other project's keys
    for (const dir of laptop) expect(readdirSync(dir)).toEqual([]);
  });
});

describe('docwright mcp without its settings or its server', () => {
  it(
    'says what is missing on stderr, writes nothing on stdout, and exits 2',
    () => {
      const cwd = mkdtempSync(path.join(tmpdir(), 'docwright-mcp-bare-'));
      try {
        const run = spawnSync(process.execPath, [BIN, 'mcp', '--url', 'ftp://docwright.example.com'], {
          cwd,
          env: { PATH: process.env.PATH ?? '' },
          encoding: 'utf8',
          input: '',
          timeout: 60_000,
        });
        expect(run.stdout).toBe('');
        expect(run.stderr).toContain('DOCWRIGHT_URL (or --url) must be an http or https URL');
        expect(run.stderr).toContain('DOCWRIGHT_API_KEY: an API key of the project is missing');
        expect(run.stderr).toContain('DOCWRIGHT_PROJECT_ID (or --project)');
        expect(run.status).toBe(2);
        expect(readdirSync(cwd)).toEqual([]);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    },
    SLOW,
  );

  it(
    'answers a tool call with why it could not reach the server',
    async () => {
      // A port that was just free: nothing listens there.
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const { port } = probe.address() as AddressInfo;
      await new Promise((resolve) => probe.close(resolve));
      const cwd = mkdtempSync(path.join(tmpdir(), 'docwright-mcp-bare-'));
      const client = new Client({ name: 'docwright-test', version: '1.0.0' });
      try {
        await client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [BIN, 'mcp', '--url', `http://127.0.0.1:${port}`, '--project', 'prj_anything'],
            env: { ...getDefaultEnvironment(), DOCWRIGHT_API_KEY: 'dw_not-checked-here' },
            cwd,
            stderr: 'ignore',
          }),
        );
        const result = await client.callTool({ name: 'list_docs_jobs', arguments: {} });
        expect(result).toEqual({
          isError: true,
          content: [
            { type: 'text', text: `Could not reach Docwright at http://127.0.0.1:${port}: ECONNREFUSED` },
          ],
        });
      } finally {
        await client.close();
        rmSync(cwd, { recursive: true, force: true });
      }
    },
    SLOW,
  );
});

describe(`POST /mcp answers as any route does (${testBackend})`, () => {
  it('carries the x-request-id header, though the transport writes the answer itself', async () => {
    const app = await startTestApp();
    try {
      const response = await app.request('POST', '/mcp', {
        body: { jsonrpc: '2.0', id: 1, method: 'ping' },
        headers: { accept: 'application/json, text/event-stream' },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      expect(response.headers.get('x-request-id')).toMatch(/\S/);
    } finally {
      await app.close();
    }
  });
});

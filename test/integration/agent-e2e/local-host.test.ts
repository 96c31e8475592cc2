import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createDocumentationAgent } from '../../../src/app/create-agent.ts';
import { createWorker } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import type { JobView } from '../../../src/domain/jobs/job-view.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { branches, git } from '../../helpers/git-repos.ts';
import {
  type ScriptedOpenAIServer,
  type ScriptStep,
  startScriptedOpenAIServer,
} from '../../helpers/scripted-openai-server.ts';
import { testBackend } from '../../helpers/storage.ts';

const EXAMPLE_SITE = fileURLToPath(new URL('../../../examples/docs-site', import.meta.url));
const RATE_LIMITS_PAGE =
  '---\ntitle: Rate limits\ndescription: How many requests you can make.\n---\n\nYou can make 100 requests per minute.\n';

/** The model's side of a turn that adds a page and its navigation entry, then finishes. */
const addPageScript = (page = 'guides/rate-limits', title = 'Add a rate limits page'): ScriptStep[] => [
  {
    text: 'Let me look at the navigation first.',
    toolCalls: [{ name: 'read_file', arguments: { path: 'docs.json' } }],
  },
  { toolCalls: [{ name: 'write_file', arguments: { path: `${page}.mdx`, content: RATE_LIMITS_PAGE } }] },
  {
    toolCalls: [
      {
        name: 'edit_file',
        arguments: {
          path: 'docs.json',
          old_string: '"guides/webhooks"]',
          new_string: `"guides/webhooks", "${page}"]`,
        },
      },
    ],
  },
  { toolCalls: [{ name: 'validate', arguments: {} }] },
  {
    toolCalls: [
      {
        name: 'finish',
        arguments: {
          summary: `Added ${page}.mdx and linked it in docs.json.`,
          pull_request_title: title,
          pull_request_body: `Adds ${page}.`,
        },
      },
    ],
  },
];

describe(`documentation agent end to end, local repository, on ${testBackend}`, () => {
  let t: TestApp;
  let model: ScriptedOpenAIServer;
  let worker: Worker | null = null;
  let repo: string;
  let cleanupDirs: string[] = [];

  afterEach(async () => {
    await worker?.stop();
    worker = null;
    await t?.close();
    await model?.close();
    for (const dir of cleanupDirs) rmSync(dir, { recursive: true, force: true });
    cleanupDirs = [];
  });

  async function start(script: ScriptStep[], env: Record<string, string> = {}) {
    model = await startScriptedOpenAIServer(script, { apiKey: 'sk-test-secret-key-123' });
    repo = mkdtempSync(path.join(tmpdir(), 'docwright-local-repo-'));
    cleanupDirs.push(repo);
    cpSync(EXAMPLE_SITE, repo, { recursive: true });
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'add', '--all');
    git(
      repo,
      '-c',
      'user.name=Test',
      '-c',
      'user.email=test@example.com',
      'commit',
      '--quiet',
      '-m',
      'Initial docs',
    );
    const settings = {
      DOCWRIGHT_MODEL: 'openai-compatible:test-model',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
      DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: 'sk-test-secret-key-123',
      DOCWRIGHT_MODEL_MAX_RETRIES: '2',
      DOCWRIGHT_POLL_INTERVAL_MS: '50',
      DOCWRIGHT_PUBLIC_URL: 'http://docwright.test',
      ...env,
    };
    // The agent is built exactly as the server builds it, from the same configuration.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-agent-data-'));
    cleanupDirs.push(dataDir);
    const config = loadConfig({ ...settings, DOCWRIGHT_DATA_DIR: dataDir });
    const agent = createDocumentationAgent(config, pino({ level: 'silent' }), { secretBox: null });
    t = await startTestApp({ env: settings, agent });
    const project = await t.services.projects.create({ name: 'Local docs', repository: repo });
    const { key } = await t.services.keys.create(project.id, 'e2e');
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    return { projectId: project.id, key };
  }

  const api = (method: string, url: string, key: string, body?: unknown) =>
    t.request(method, url, { key, body });
  const waitForJob = async (projectId: string, key: string, id: string, status: JobView['status']) => {
    let job: JobView | undefined;
    await expect
      .poll(
        async () => {
          job = (await (await api('GET', `/v2/agent/${projectId}/job/${id}`, key)).json()) as JobView;
          return job.status;
        },
        { timeout: 20_000, interval: 50 },
      )
      .toBe(status);
    return job as JobView;
  };

  it('edits, commits, pushes the branch to the repository and links its review page', async () => {
    const { projectId, key } = await start(addPageScript());
    const created = (await (
      await api('POST', `/v2/agent/${projectId}/job`, key, { prompt: 'Add a page about rate limits' })
    ).json()) as JobView;
    expect(created.model).toBe('openai-compatible:test-model');
    const job = await waitForJob(projectId, key, created.id, 'completed');
    expect(job.prLink).toBe(`http://docwright.test/review/${job.id}`);

    // The branch is in the project's repository, one commit ahead of main, with both changes.
    expect(branches(repo)).toContain(job.source.ref);
    expect(git(repo, 'rev-list', '--count', `main..${job.source.ref}`).trim()).toBe('1');
    expect(git(repo, 'show', `${job.source.ref}:guides/rate-limits.mdx`)).toBe(RATE_LIMITS_PAGE);
    expect(git(repo, 'show', `${job.source.ref}:docs.json`)).toContain('"guides/rate-limits"');
    expect(git(repo, 'log', '-1', '--format=%an <%ae>%n%s%n%b', job.source.ref)).toMatch(
      /^Docwright <docwright@localhost>\nAdd a rate limits page\n[\s\S]*Added guides\/rate-limits\.mdx/,
    );
    expect(git(repo, 'log', '-1', '--format=%B', job.source.ref)).not.toMatch(/Co-authored-by/i);
    // The project's own checkout is untouched.
    expect(git(repo, 'status', '--porcelain')).toBe('');

    // The conversation shows the tool calls and their shortened results, and the usage.
    const conversation = (await (
      await api('GET', `/v2/agent/${projectId}/job/${job.id}/messages`, key)
    ).json()) as {
      turns: { usage: { inputTokens: number; outputTokens: number } | null; summary: string }[];
      messages: { role: string; tool: { name: string; input: unknown } | null }[];
    };
    expect(conversation.messages.filter((m) => m.role === 'tool').map((m) => m.tool?.name)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'validate',
      'finish',
    ]);
    expect(conversation.turns[0]?.summary).toMatch(/Added guides\/rate-limits\.mdx/);
    expect(conversation.turns[0]?.usage?.inputTokens).toBeGreaterThan(0);

    // Nothing the model was sent holds the provider key; the system prompt holds the repository's AGENTS.md.
    const sent = JSON.stringify(model.requests.map((r) => r.body));
    expect(sent).not.toContain('sk-test-secret-key-123');
    const system = model.requests[0]?.body.messages.find((m) => m.role === 'system');
    expect(JSON.stringify(system?.content)).toContain('Code samples show `curl` first, then JavaScript.');
    expect(readFileSync(path.join(repo, '.git', 'config'), 'utf8')).not.toContain('sk-test');

    // The review page behind prLink, served by Docwright itself, shows the diff and merges it.
    const reviewPath = new URL(job.prLink ?? '').pathname;
    const page = await fetch(`${t.baseUrl}${reviewPath}`, { headers: { authorization: `Bearer ${key}` } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Add a rate limits page');
    expect(html).toContain('guides/rate-limits.mdx');
    expect((await fetch(`${t.baseUrl}${reviewPath}`)).status).not.toBe(200);
    const merged = await fetch(`${t.baseUrl}${reviewPath}/merge`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(merged.status).toBeLessThan(400);
    expect(git(repo, 'show', 'main:guides/rate-limits.mdx')).toBe(RATE_LIMITS_PAGE);
  });

  it('answers a question without changes: completed, prLink null, no branch left', async () => {
    const { projectId, key } = await start([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'guides/webhooks.mdx' } }] },
      {
        toolCalls: [
          { name: 'finish', arguments: { summary: 'Webhook requests carry an Acme-Signature header.' } },
        ],
      },
    ]);
    const created = (await (
      await api('POST', `/v2/agent/${projectId}/job`, key, { prompt: 'How are webhooks signed?' })
    ).json()) as JobView;
    const job = await waitForJob(projectId, key, created.id, 'completed');
    expect(job.prLink).toBeNull();
    expect(branches(repo)).toEqual(['main']);
  });

  it('continues the same branch on a follow-up and keeps the same link', async () => {
    const { projectId, key } = await start(addPageScript());
    const created = (await (
      await api('POST', `/v2/agent/${projectId}/job`, key, { prompt: 'Add a page about rate limits' })
    ).json()) as JobView;
    const first = await waitForJob(projectId, key, created.id, 'completed');
    model.push(
      // The follow-up sees the page written by the first turn in its working copy.
      { toolCalls: [{ name: 'read_file', arguments: { path: 'guides/rate-limits.mdx' } }] },
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: {
              path: 'guides/rate-limits.mdx',
              old_string: '100 requests',
              new_string: '120 requests',
            },
          },
        ],
      },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Raised the documented limit to 120.' } }] },
    );
    await api('POST', `/v2/agent/${projectId}/job/${created.id}/message`, key, {
      prompt: 'The limit is 120, not 100',
    });
    const second = await waitForJob(projectId, key, created.id, 'completed');
    expect(second.prLink).toBe(first.prLink);
    expect(git(repo, 'rev-list', '--count', `main..${first.source.ref}`).trim()).toBe('2');
    expect(git(repo, 'show', `${first.source.ref}:guides/rate-limits.mdx`)).toContain(
      '120 requests per minute',
    );
    // The follow-up request carried the first turn's conversation.
    const lastRequest = model.requests.at(-1)?.body.messages ?? [];
    expect(JSON.stringify(lastRequest)).toContain('Add a page about rate limits');
  });

  it('retries a provider 429 and then succeeds', async () => {
    const { projectId, key } = await start([
      { error: { status: 429, message: 'Rate limit reached', retryAfter: '0' } },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Nothing to change.' } }] },
    ]);
    const created = (await (
      await api('POST', `/v2/agent/${projectId}/job`, key, { prompt: 'Check the intro' })
    ).json()) as JobView;
    await waitForJob(projectId, key, created.id, 'completed');
    expect(model.requests.map((r) => r.path)).toHaveLength(2);
  });

  it('fails at once with a clear reason on a provider authentication error, never showing the key', async () => {
    const { projectId, key } = await start([], { DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: 'sk-wrong-key-456' });
    const created = (await (
      await api('POST', `/v2/agent/${projectId}/job`, key, { prompt: 'Fix typos' })
    ).json()) as JobView;
    const job = await waitForJob(projectId, key, created.id, 'failed');
    expect(job.failureReason).toMatch(/DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY/);
    expect(job.failureReason).not.toContain('sk-wrong-key-456');
    expect(model.requests).toHaveLength(1);
  });

  it('ends the turn cleanly at the step limit, keeping what was done', async () => {
    const script = addPageScript();
    const { projectId, key } = await start(script.slice(0, 3), { DOCWRIGHT_AGENT_MAX_STEPS: '2' });
    const created = (await (
      await api('POST', `/v2/agent/${projectId}/job`, key, { prompt: 'Add a page about rate limits' })
    ).json()) as JobView;
    const job = await waitForJob(projectId, key, created.id, 'completed');
    // Two steps: read docs.json, write the page. The page is committed and reviewable.
    expect(job.prLink).toBe(`http://docwright.test/review/${job.id}`);
    expect(git(repo, 'show', `${job.source.ref}:guides/rate-limits.mdx`)).toBe(RATE_LIMITS_PAGE);
    const conversation = (await (
      await api('GET', `/v2/agent/${projectId}/job/${job.id}/messages`, key)
    ).json()) as {
      messages: { role: string; text: string | null }[];
    };
    expect(conversation.messages.some((m) => m.role === 'note' && /step/i.test(m.text ?? ''))).toBe(true);
  });

  it('refuses every attempt to leave the working copy, and the model reads the refusal', async () => {
    const escapes = ['/etc/passwd', '../../../etc/passwd', '.git/config', 'guides/../../outside.txt'];
    const { projectId, key } = await start([
      { toolCalls: escapes.map((p, i) => ({ id: `call_${i}`, name: 'read_file', arguments: { path: p } })) },
      { toolCalls: [{ name: 'write_file', arguments: { path: '../escaped.mdx', content: 'x' } }] },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Could not read those files.' } }] },
    ]);
    const created = (await (
      await api('POST', `/v2/agent/${projectId}/job`, key, { prompt: 'Read some files' })
    ).json()) as JobView;
    const job = await waitForJob(projectId, key, created.id, 'completed');
    expect(job.prLink).toBeNull();
    const toolResults = model.requests[1]?.body.messages
      .filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    expect(toolResults).toHaveLength(escapes.length);
    for (const result of toolResults ?? []) {
      expect(result).toMatch(/^Error:/);
      expect(result).not.toMatch(/root:|\[core\]/);
    }
    expect(String(model.requests[2]?.body.messages.at(-1)?.content)).toMatch(/^Error:/);
  });
});

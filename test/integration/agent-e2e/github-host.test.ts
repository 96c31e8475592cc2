import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createDocumentationAgent } from '../../../src/app/create-agent.ts';
import { createWorker } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import type { AgentTurnInput } from '../../../src/domain/agent/agent.ts';
import type { JobView } from '../../../src/domain/jobs/job-view.ts';
import { ProjectSettingsService } from '../../../src/domain/projects/project-settings.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { SecretBox } from '../../../src/domain/secrets/secret-box.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { type FakeGitHub, startFakeGitHub } from '../../helpers/fake-github.ts';
import { type GitHttpServer, startGitHttpServer } from '../../helpers/git-http-server.ts';
import { branches, createBareRepository, git } from '../../helpers/git-repos.ts';
import {
  type ScriptedOpenAIServer,
  type ScriptStep,
  startScriptedOpenAIServer,
} from '../../helpers/scripted-openai-server.ts';
import { testBackend } from '../../helpers/storage.ts';

const TOKEN = 'ghp_e2eSecretToken0123456789abcdef';
const MODEL_KEY = 'sk-e2e-model-key-987';
const DOCS = {
  'docs.json': '{\n  "navigation": { "groups": [{ "group": "Start", "pages": ["index"] }] }\n}\n',
  'index.mdx': '---\ntitle: Welcome\n---\n\nWelcome to Acme.\n',
};

const editScript = (text: string, from = 'Welcome to Acme.'): ScriptStep[] => [
  {
    toolCalls: [
      {
        name: 'edit_file',
        arguments: { path: 'index.mdx', old_string: from, new_string: text },
      },
    ],
  },
  {
    toolCalls: [
      {
        name: 'finish',
        arguments: { summary: `Changed the welcome to: ${text}`, pull_request_title: 'Improve the welcome' },
      },
    ],
  },
];

describe(`documentation agent end to end with GitHub, on ${testBackend}`, () => {
  let t: TestApp;
  let worker: Worker | null = null;
  let model: ScriptedOpenAIServer;
  let gitServer: GitHttpServer;
  let github: FakeGitHub;
  let dirs: string[] = [];

  afterEach(async () => {
    await worker?.stop();
    worker = null;
    await t?.close();
    await Promise.all([model?.close(), gitServer?.close(), github?.close()]);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    dirs = [];
  });

  async function start(
    options: { failFirstPullRequestCreate?: boolean; docs?: Record<string, string> } = {},
  ) {
    const root = mkdtempSync(path.join(tmpdir(), 'docwright-gh-remote-'));
    const dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-gh-data-'));
    dirs.push(root, dataDir);
    mkdirSync(path.join(root, 'acme'));
    const bare = path.join(root, 'acme', 'docs.git');
    createBareRepository(bare, options.docs ?? DOCS);
    gitServer = await startGitHttpServer({ root, token: TOKEN });
    github = await startFakeGitHub({
      repositories: ['acme/docs'],
      token: TOKEN,
      branchExists: (_repo, branch) => branches(bare).includes(branch),
    });
    model = await startScriptedOpenAIServer([], { apiKey: MODEL_KEY });

    let failNextCreate = options.failFirstPullRequestCreate === true;
    const flakyFetch: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (failNextCreate && init?.method === 'POST' && /\/pulls$/.test(url)) {
        failNextCreate = false;
        throw new TypeError(
          'fetch failed: connection reset (simulated crash before the pull request was opened)',
        );
      }
      return fetch(input, init);
    };

    const secretKey = `base64:${randomBytes(32).toString('base64')}`;
    const env = {
      DOCWRIGHT_MODEL: 'openai-compatible:test-model',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
      DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: MODEL_KEY,
      DOCWRIGHT_SECRET_KEY: secretKey,
      DOCWRIGHT_POLL_INTERVAL_MS: '50',
      DOCWRIGHT_MAX_ATTEMPTS: '3',
      DOCWRIGHT_DATA_DIR: dataDir,
      // The fake code host and git server listen on loopback, which the policy refuses by default.
      DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: '127.0.0.1',
    };
    const secretBox = new SecretBox(secretKey);
    const agent = createDocumentationAgent(loadConfig(env), pino({ level: 'silent' }), {
      secretBox,
      fetch: flakyFetch,
    });
    t = await startTestApp({ env, agent });
    const project = await t.services.projects.create({
      name: 'Acme',
      repository: `${gitServer.baseUrl}/acme/docs.git`,
    });
    await new ProjectSettingsService(t.services.storage, secretBox).update(project.id, {
      host: 'github',
      apiUrl: github.baseUrl,
      // The test git server's URLs start with /git/, so the owner/name is given explicitly.
      hostRepository: 'acme/docs',
      credentials: { token: TOKEN },
    });
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    return { projectId: project.id, bare, dataDir, agent };
  }

  const waitFor = async (projectId: string, id: string, status: JobView['status']) => {
    await expect
      .poll(
        async () => {
          const job = await t.services.jobs.get(projectId, id);
          return job.status === 'failed' ? `failed: ${job.failureReason}` : job.status;
        },
        { timeout: 20_000, interval: 50 },
      )
      .toBe(status);
    return t.services.jobs.get(projectId, id);
  };

  /** Every file under `dir`, as text, for checking that no secret landed on disk. */
  const allText = (dir: string): string =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .map((file) => path.join(dir, file))
      .filter((file) => statSync(file).isFile())
      .map((file) => readFileSync(file).toString('latin1'))
      .join('\n');

  it('pushes over authenticated smart HTTP, opens a draft pull request, and updates it on a follow-up', async () => {
    const { projectId, bare, dataDir } = await start();
    model.push(...editScript('Welcome to Acme, the widget platform.'));
    const job = await t.services.jobs.create(
      await t.services.projects.get(projectId),
      'Make the welcome more specific',
    );
    const done = await waitFor(projectId, job.id, 'completed');

    expect(github.violations).toEqual([]);
    expect(github.pulls).toHaveLength(1);
    const pull = github.pulls[0];
    expect(pull).toMatchObject({
      head: job.source.ref,
      base: 'main',
      draft: true,
      state: 'open',
      title: 'Improve the welcome',
    });
    expect(pull?.body).toContain('Make the welcome more specific');
    expect(pull?.body).toMatch(/Validation/);
    expect(done.prLink).toMatch(new RegExp(`/acme/docs/pull/${pull?.number}$`));
    expect(git(bare, 'show', `${job.source.ref}:index.mdx`)).toContain('the widget platform');
    // Pushes really went through the token check.
    expect(gitServer.requests.some((r) => /git-receive-pack/.test(r.url))).toBe(true);

    model.push(
      ...editScript(
        'Welcome to Acme, the widget platform for teams.',
        'Welcome to Acme, the widget platform.',
      ),
    );
    await t.services.jobs.message(projectId, job.id, 'Mention teams');
    const followed = await waitFor(projectId, job.id, 'completed');
    expect(followed.prLink).toBe(done.prLink);
    expect(github.pulls).toHaveLength(1);
    expect(github.pulls[0]?.updates).toBe(1);
    expect(github.pulls[0]?.body).toContain('Mention teams');
    expect(git(bare, 'rev-list', '--count', `main..${job.source.ref}`).trim()).toBe('2');
    expect(github.violations).toEqual([]);

    // Neither token reached the disk, git's configuration, or the model.
    const onDisk = allText(dataDir);
    expect(onDisk).not.toContain(TOKEN);
    expect(onDisk).not.toContain(MODEL_KEY);
    expect(JSON.stringify(model.requests.map((r) => r.body))).not.toContain(TOKEN);
    expect(JSON.stringify(await t.services.jobs.conversation(projectId, job.id))).not.toContain(TOKEN);
  });

  it('reports to the model and the pull request only the findings its changes introduced', async () => {
    const { projectId } = await start({
      docs: { ...DOCS, 'index.mdx': '---\ntitle: Welcome\n---\n\nWelcome to Acme. [Old](/retired-page)\n' },
    });
    model.push(
      {
        toolCalls: [
          {
            name: 'write_file',
            arguments: {
              path: 'limits.mdx',
              content: '---\ntitle: Limits\n---\n\nSee [pricing](/pricing).\n',
            },
          },
        ],
      },
      { toolCalls: [{ name: 'validate', arguments: {} }] },
      {
        toolCalls: [
          { name: 'finish', arguments: { summary: 'Added limits.mdx.', pull_request_title: 'Add limits' } },
        ],
      },
    );
    const job = await t.services.jobs.create(await t.services.projects.get(projectId), 'Add a limits page');
    await waitFor(projectId, job.id, 'completed');

    // The validate tool's answer, as the model received it.
    const toolResult = JSON.stringify(model.requests.at(-1)?.body.messages.at(-1));
    expect(toolResult).toContain('1 problem introduced by your changes');
    expect(toolResult).toContain(
      'limits.mdx:5 [broken-link] /pricing points at a page or file that does not exist',
    );
    expect(toolResult).toContain('1 other problem was there before your changes');
    expect(toolResult).not.toContain('/retired-page');

    const body = github.pulls[0]?.body ?? '';
    expect(body).toContain(
      'Validation findings introduced by this change:\n\nlimits.mdx:5 [broken-link] /pricing points at a page or file that does not exist',
    );
    expect(body).toContain('1 finding was already there before this change and is not listed.');
    expect(body).not.toContain('/retired-page');
    const notes = (await t.services.jobs.conversation(projectId, job.id)).messages.filter(
      (m) => m.role === 'note',
    );
    expect(notes.map((n) => n.text).join('\n')).toContain('limits.mdx:5 [broken-link] /pricing');

    // A follow-up compares with the base branch, not with the first turn: the job's finding stays its own.
    model.push(
      {
        toolCalls: [
          {
            name: 'write_file',
            arguments: { path: 'faq.mdx', content: '---\ntitle: FAQ\n---\n\nAsk us.\n' },
          },
        ],
      },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Added a FAQ.' } }] },
    );
    await t.services.jobs.message(projectId, job.id, 'Add a FAQ too');
    await waitFor(projectId, job.id, 'completed');
    expect(github.pulls[0]?.updates).toBe(1);
    const updated = github.pulls[0]?.body ?? '';
    expect(updated).toContain('Add a FAQ too');
    expect(updated).toContain(
      'Validation findings introduced by this change:\n\nlimits.mdx:5 [broken-link] /pricing points at a page or file that does not exist',
    );
    expect(updated).toContain('1 finding was already there before this change and is not listed.');
  });

  it('a turn that pushed but crashed before opening the pull request is retried and opens exactly one', async () => {
    const { projectId } = await start({ failFirstPullRequestCreate: true });
    model.push(...editScript('Welcome to Acme!'));
    // The retried attempt finds the branch already pushed and changes nothing more.
    model.push({
      toolCalls: [{ name: 'finish', arguments: { summary: 'The change is already on the branch.' } }],
    });
    const job = await t.services.jobs.create(
      await t.services.projects.get(projectId),
      'Add an exclamation mark',
    );
    const done = await waitFor(projectId, job.id, 'completed');
    const { turns } = await t.services.jobs.conversation(projectId, job.id);
    expect(turns[0]?.attempts).toBe(2);
    expect(github.pulls).toHaveLength(1);
    expect(done.prLink).toMatch(/\/pull\/1$/);
    expect(github.violations).toEqual([]);
  });

  it('running the same turn again after a crash updates the pull request instead of opening a second', async () => {
    const { projectId, agent } = await start();
    model.push(...editScript('Welcome to Acme!'));
    const job = await t.services.jobs.create(
      await t.services.projects.get(projectId),
      'Add an exclamation mark',
    );
    await waitFor(projectId, job.id, 'completed');
    expect(github.pulls).toHaveLength(1);

    // A worker that died after opening the pull request but before recording the turn:
    // the next worker runs the same turn again, as attempt 2.
    await worker?.stop();
    worker = null;
    const project = await t.services.projects.get(projectId);
    const turn = (await t.services.jobs.conversation(projectId, job.id)).turns[0];
    model.push(...editScript('Welcome to Acme!!', 'Welcome to Acme!'));
    const input: AgentTurnInput = {
      job: {
        id: job.id,
        projectId,
        repository: project.repository,
        branch: job.source.ref,
        baseBranch: 'main',
        model: job.model,
        prLink: null,
      },
      project,
      turn: { id: 'turn_again', seq: turn?.turn ?? 1, prompt: turn?.prompt ?? '', attempt: 2 },
      history: [],
      signal: new AbortController().signal,
    };
    const again = await agent.runTurn(input);
    expect(again.outcome).toBe('succeeded');
    expect(again.outcome === 'succeeded' && again.prLink).toMatch(/\/pull\/1$/);
    expect(github.pulls).toHaveLength(1);
    expect(github.violations).toEqual([]);
  });
});

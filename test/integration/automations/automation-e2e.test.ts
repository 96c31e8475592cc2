import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createContextRepositories, createDocumentationAgent } from '../../../src/app/create-agent.ts';
import { createWorker } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { ProjectSettingsService } from '../../../src/domain/projects/project-settings.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { SecretBox } from '../../../src/domain/secrets/secret-box.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { type FakeGitHub, startFakeGitHub } from '../../helpers/fake-github.ts';
import { type GitHttpServer, startGitHttpServer } from '../../helpers/git-http-server.ts';
import { branches, commitToBare, createBareRepository, git } from '../../helpers/git-repos.ts';
import {
  type ScriptedOpenAIServer,
  type ScriptStep,
  startScriptedOpenAIServer,
} from '../../helpers/scripted-openai-server.ts';
import { testBackend } from '../../helpers/storage.ts';

const TOKEN = 'ghp_automationE2eToken0123456789ab';
const MODEL_KEY = 'sk-automation-e2e-key';
const DOCS = {
  'docs.json': '{\n  "navigation": { "groups": [{ "group": "Start", "pages": ["index"] }] }\n}\n',
  'index.mdx': '---\ntitle: Welcome\n---\n\nThe API has one endpoint.\n',
};

const edit = (from: string, to: string, summary: string): ScriptStep[] => [
  { toolCalls: [{ name: 'edit_file', arguments: { path: 'index.mdx', old_string: from, new_string: to } }] },
  { toolCalls: [{ name: 'finish', arguments: { summary, pull_request_title: 'Document the API changes' } }] },
];

/**
 * Automations through the real documentation agent: the scripted model edits a real git
 * repository, pushed over smart HTTP, with the pull request on a fake GitHub checked against
 * GitHub's published description.
 */
describe(`automation runs end to end with GitHub, on ${testBackend}`, () => {
  let t: TestApp;
  let worker: Worker | null = null;
  let model: ScriptedOpenAIServer;
  let gitServer: GitHttpServer;
  let github: FakeGitHub;
  const dirs: string[] = [];

  afterEach(async () => {
    await worker?.stop();
    worker = null;
    await t?.close();
    await Promise.all([model?.close(), gitServer?.close(), github?.close()]);
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function start() {
    const root = mkdtempSync(path.join(tmpdir(), 'docwright-auto-remote-'));
    const dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-auto-data-'));
    dirs.push(root, dataDir);
    mkdirSync(path.join(root, 'acme'));
    const bare = path.join(root, 'acme', 'docs.git');
    createBareRepository(bare, DOCS);
    // The repository whose pull requests are merged: served by the same git server (the same host).
    const api = path.join(root, 'acme', 'api.git');
    const apiSha = createBareRepository(api, {
      'src/routes.ts': "export const routes = ['/users'];\n",
    });
    gitServer = await startGitHttpServer({ root, token: TOKEN });
    github = await startFakeGitHub({
      repositories: ['acme/docs'],
      token: TOKEN,
      branchExists: (_repo, branch) => branches(bare).includes(branch),
    });
    model = await startScriptedOpenAIServer([], { apiKey: MODEL_KEY });
    const secretKey = `base64:${randomBytes(32).toString('base64')}`;
    const env = {
      DOCWRIGHT_MODEL: 'openai-compatible:test-model',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
      DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: MODEL_KEY,
      DOCWRIGHT_SECRET_KEY: secretKey,
      DOCWRIGHT_POLL_INTERVAL_MS: '50',
      DOCWRIGHT_DATA_DIR: dataDir,
      // The fake code host and git server listen on loopback, which the policy refuses by default.
      DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: '127.0.0.1',
    };
    const secretBox = new SecretBox(secretKey);
    const config = loadConfig(env);
    const logger = pino({ level: 'silent' });
    // Wired as the server wires it: the projects' connected repositories, and those of merged pull requests.
    const agent = createDocumentationAgent(config, logger, {
      secretBox,
      context: {
        entries: (projectId) => t.services.contextRepositories.list(projectId),
        files: createContextRepositories(config, logger),
      },
    });
    t = await startTestApp({ env, agent });
    const project = await t.services.projects.create({
      name: 'Acme',
      repository: `${gitServer.baseUrl}/acme/docs.git`,
    });
    // The project opens drafts (the default); the automation below asks for ready pull requests.
    await new ProjectSettingsService(t.services.storage, secretBox).update(project.id, {
      host: 'github',
      apiUrl: github.baseUrl,
      hostRepository: 'acme/docs',
      credentials: { token: TOKEN },
    });
    const { key } = await t.services.keys.create(project.id, 'automation tests');
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    return { projectId: project.id, bare, key, api, apiSha };
  }

  const settledRuns = async (projectId: string, automationId: string, count: number) => {
    await expect
      .poll(
        async () =>
          (await t.services.automations.runs(projectId, automationId, { limit: 50 })).runs.filter(
            (r) => r.status !== 'queued' && r.status !== 'running',
          ).length,
        { timeout: 30_000, interval: 50 },
      )
      .toBe(count);
    return (await t.services.automations.runs(projectId, automationId, { limit: 50 })).runs;
  };

  it('opens one ready pull request for two merged source PRs, listing both, and a no-change run says why', async () => {
    const { projectId, bare, key } = await start();
    const created = await t.request('POST', `/v2/agent/${projectId}/automations`, {
      key,
      body: {
        name: 'API docs',
        trigger: { kind: 'code_change', provider: 'github', repository: 'acme/api' },
        instructions: 'Update the API page for what the merged pull request changed.',
        draft: false,
      },
    });
    expect(created.status).toBe(201);
    const automation = await t.services.automations.find(
      projectId,
      ((await created.json()) as { id: string }).id,
    );
    const source = (n: number, title: string) => ({
      url: `https://github.com/acme/api/pull/${n}`,
      title,
      number: n,
      author: 'octocat',
    });

    model.push(...edit('The API has one endpoint.', 'The API has two endpoints.', 'Documented /users.'));
    const first = await t.services.automations.startRun(automation, {
      kind: 'code_change',
      dedupeKey: 'github:acme/api#7:merge-sha-1',
      context: 'Adds GET /users',
      source: source(7, 'Add GET /users'),
    });
    await settledRuns(projectId, automation.id, 1);
    expect(github.pulls).toHaveLength(1);
    expect(github.pulls[0]).toMatchObject({ draft: false, state: 'open' });
    expect(github.pulls[0]?.body).toContain(
      '- [Add GET /users (#7)](https://github.com/acme/api/pull/7) by @octocat',
    );

    model.push(...edit('The API has two endpoints.', 'The API has three endpoints.', 'Documented /teams.'));
    const second = await t.services.automations.startRun(automation, {
      kind: 'code_change',
      dedupeKey: 'github:acme/api#9:merge-sha-2',
      context: 'Adds GET /teams',
      source: source(9, 'Add GET /teams [beta]'),
    });
    expect(second).toMatchObject({ status: 'followed_up', jobId: first.jobId });
    const runs = await settledRuns(projectId, automation.id, 2);
    const prLink = (await t.services.jobs.get(projectId, first.jobId as string)).prLink;
    expect(prLink).toMatch(new RegExp(`/acme/docs/pull/${github.pulls[0]?.number}$`));
    expect(runs.map((r) => [r.status, r.followUp, r.prLink])).toEqual([
      ['completed', true, prLink],
      ['completed', false, prLink],
    ]);
    // Still one pull request, on one branch with both commits; its description lists both sources.
    expect(github.pulls).toHaveLength(1);
    const body = github.pulls[0]?.body ?? '';
    expect(body).toContain('### Source pull requests');
    expect(body).toContain('- [Add GET /users (#7)](https://github.com/acme/api/pull/7) by @octocat');
    expect(body).toContain(
      '- [Add GET /teams \\[beta\\] (#9)](https://github.com/acme/api/pull/9) by @octocat',
    );
    const branch = (await t.services.jobs.get(projectId, first.jobId as string)).source.ref;
    expect(git(bare, 'rev-list', '--count', `main..${branch}`).trim()).toBe('2');
    expect(git(bare, 'show', `${branch}:index.mdx`)).toContain('three endpoints');
    // The model saw each pull request's context in its prompt.
    expect(JSON.stringify(model.requests.map((r) => r.body))).toContain('Adds GET /teams');
    expect(github.violations).toEqual([]);

    // Another automation whose run changes nothing: no pull request, and the answer says why.
    const review = await t.services.automations.create(projectId, {
      name: 'Review',
      trigger: { kind: 'manual' },
      instructions: 'Check that the quickstart still works.',
    });
    model.push({
      toolCalls: [
        { name: 'finish', arguments: { summary: 'No change needed: the quickstart matches the API.' } },
      ],
    });
    const triggered = await t.request('POST', `/v2/agent/${projectId}/automations/${review.id}/trigger`, {
      key,
      body: { context: 'Release 3.1' },
    });
    expect(triggered.status).toBe(202);
    const [noChange] = await settledRuns(projectId, review.id, 1);
    expect(noChange).toMatchObject({
      status: 'no_change',
      prLink: null,
      reason: 'No change needed: the quickstart matches the API.',
    });
    expect(github.pulls).toHaveLength(1);
  });

  it("reads the merged pull request's repository at its merge commit, and cites what it read", async () => {
    const { projectId, api, apiSha } = await start();
    const created = await t.services.automations.create(projectId, {
      name: 'API docs',
      trigger: { kind: 'code_change', provider: 'github', repository: 'acme/api' },
      instructions: 'Update the API page for what the merged pull request changed.',
    });
    const automation = await t.services.automations.find(projectId, created.id);
    // A later commit on the branch: the run must read the merge commit, not the branch's tip.
    commitToBare(api, 'main', { 'src/routes.ts': "export const routes = ['/users', '/later'];\n" }, 'Later');
    model.push(
      { toolCalls: [{ name: 'read_file', arguments: { repository: 'api', path: 'src/routes.ts' } }] },
      ...edit('The API has one endpoint.', 'The API has the /users endpoint.', 'Documented /users.'),
    );
    await t.services.automations.startRun(automation, {
      kind: 'code_change',
      dedupeKey: 'github:acme/api#7@merge',
      context: 'Adds GET /users',
      source: {
        url: 'https://github.com/acme/api/pull/7',
        title: 'Add GET /users',
        number: 7,
        repository: { url: `${gitServer.baseUrl}/acme/api.git`, ref: 'main', commit: apiSha },
      },
    });
    await settledRuns(projectId, automation.id, 1);
    const system = JSON.stringify(model.requests[0]?.body.messages.find((m) => m.role === 'system')?.content);
    expect(system).toContain(
      `- api: ${gitServer.baseUrl}/acme/api.git, branch main, commit ${apiSha.slice(0, 12)} (the repository of the merged pull request #7, at its merge commit)`,
    );
    const read = model.requests[1]?.body.messages.find((m) => m.role === 'tool');
    expect(JSON.stringify(read?.content)).toContain("routes = ['/users'];");
    expect(JSON.stringify(read?.content)).not.toContain('/later');
    // Fetched with the project's credentials (the same host as the docs repository).
    expect(gitServer.requests.some((r) => r.url.includes('/acme/api.git') && r.authorization !== null)).toBe(
      true,
    );
    const body = github.pulls[0]?.body ?? '';
    expect(body).toContain('### Sources');
    expect(body).toContain(`- \`api:src/routes.ts\` at \`${apiSha.slice(0, 12)}\``);
  });
});

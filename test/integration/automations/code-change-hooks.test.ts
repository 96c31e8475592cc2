import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../../src/app/services.ts';
import { gitHubSignatureHeader } from '../../../src/domain/automations/code-change/signature.ts';
import type { JobView } from '../../../src/domain/jobs/job-view.ts';
import { ProjectSettingsService } from '../../../src/domain/projects/project-settings.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { SecretBox } from '../../../src/domain/secrets/secret-box.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import {
  gitHubMergedPayload,
  gitLabMergedPayload,
  sendGitHubHook,
  sendGitLabHook,
} from '../../helpers/code-change-hooks.ts';
import { type FakeGitHub, gitHubSchemaErrors, startFakeGitHub } from '../../helpers/fake-github.ts';
import { type FakeGitLab, startFakeGitLab } from '../../helpers/fake-gitlab.ts';
import { type GitHttpServer, startGitHttpServer } from '../../helpers/git-http-server.ts';
import { branches, createBareRepository } from '../../helpers/git-repos.ts';
import {
  type ScriptedOpenAIServer,
  type ScriptStep,
  startScriptedOpenAIServer,
} from '../../helpers/scripted-openai-server.ts';
import { testBackend } from '../../helpers/storage.ts';

const TOKEN = 'ghp_hooksSecretToken0123456789abcdef';
const GL_TOKEN = 'glpat-hooksSecretToken0123456789';
const MODEL_KEY = 'sk-hooks-model-key-123';
const DOCS = {
  'docs.json': '{\n  "navigation": { "groups": [{ "group": "Start", "pages": ["index"] }] }\n}\n',
  'index.mdx': '---\ntitle: Welcome\n---\n\nList widgets with `limit`.\n',
};
const PATCH = '@@ -10,7 +10,7 @@ export function listWidgets(\n-  limit: number,\n+  cursor: string,';

const editScript: ScriptStep[] = [
  {
    toolCalls: [
      {
        name: 'edit_file',
        arguments: {
          path: 'index.mdx',
          old_string: 'List widgets with `limit`.',
          new_string: 'List widgets with `cursor`.',
        },
      },
    ],
  },
  {
    toolCalls: [
      {
        name: 'finish',
        arguments: {
          summary: 'Documented cursor pagination.',
          pull_request_title: 'Document cursor pagination',
        },
      },
    ],
  },
];

// Each test runs whole agent jobs (git, worker, model): on a loaded machine that takes a while.
describe(`code-change webhooks start automation runs (${testBackend})`, { timeout: 90_000 }, () => {
  let t: TestApp;
  let model: ScriptedOpenAIServer;
  let github: FakeGitHub;
  let gitlab: FakeGitLab;
  let closers: (() => Promise<void>)[] = [];
  let dirs: string[] = [];

  afterEach(async () => {
    // The worker first, then the app, then the servers it talked to.
    for (const close of closers.reverse()) await close();
    closers = [];
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    dirs = [];
  });

  /** Docwright with a worker, a docs repository served over git HTTP, and the scripted model. */
  async function start(host: 'github' | 'gitlab', options: { allowPrivateNetworks?: boolean } = {}) {
    const root = mkdtempSync(path.join(tmpdir(), 'docwright-hooks-remote-'));
    const dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-hooks-data-'));
    dirs.push(root, dataDir);
    mkdirSync(path.join(root, 'acme'));
    const bare = path.join(root, 'acme', 'docs.git');
    createBareRepository(bare, DOCS);
    const token = host === 'github' ? TOKEN : GL_TOKEN;
    const gitServer: GitHttpServer = await startGitHttpServer({ root, token });
    model = await startScriptedOpenAIServer([], { apiKey: MODEL_KEY });
    closers.push(
      () => gitServer.close(),
      () => model.close(),
    );
    const secretKey = `base64:${randomBytes(32).toString('base64')}`;
    t = await startTestApp({
      env: {
        DOCWRIGHT_MODEL: 'openai-compatible:test-model',
        DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
        DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: MODEL_KEY,
        DOCWRIGHT_SECRET_KEY: secretKey,
        DOCWRIGHT_POLL_INTERVAL_MS: '50',
        DOCWRIGHT_DATA_DIR: dataDir,
        // The fake hosts listen on 127.0.0.1. Not allowed: only the git server is opened, by the
        // name it is reached by, so the API on 127.0.0.1 stays refused.
        DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: options.allowPrivateNetworks === false ? 'localhost' : 'true',
      },
    });
    closers.push(() => t.close());
    const gitUrl =
      options.allowPrivateNetworks === false
        ? gitServer.baseUrl.replace('127.0.0.1', 'localhost')
        : gitServer.baseUrl;
    const project = await t.services.projects.create({ name: 'Acme', repository: `${gitUrl}/acme/docs.git` });
    let apiUrl: string;
    if (host === 'github') {
      github = await startFakeGitHub({
        repositories: ['acme/docs', 'acme/api'],
        token: TOKEN,
        tokenLogin: 'docwright-bot',
        branchExists: (_repo, branch) => branches(bare).includes(branch),
      });
      apiUrl = github.baseUrl;
      closers.push(() => github.close());
    } else {
      gitlab = await startFakeGitLab({
        projects: ['acme/docs', 'acme/platform/api'],
        token: GL_TOKEN,
        users: [
          { id: 7, username: 'docwright' },
          { id: 31, username: 'ada' },
        ],
      });
      apiUrl = gitlab.apiUrl;
      closers.push(() => gitlab.close());
    }
    await new ProjectSettingsService(t.services.storage, new SecretBox(secretKey)).update(project.id, {
      host,
      apiUrl,
      hostRepository: 'acme/docs',
      credentials: { token },
    });
    const worker: Worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    closers.push(() => worker.stop());
    return { projectId: project.id, app: t };
  }

  async function automation(
    projectId: string,
    trigger: { provider: 'github' | 'gitlab'; repository: string; paths?: string[] },
  ) {
    const created = await t.services.automations.create(projectId, {
      name: `Docs follow ${trigger.repository}`,
      trigger: { kind: 'code_change', ...trigger },
      instructions: 'Keep the API guide in step with the code.',
    });
    expect(created.webhookSecret).toMatch(/^\S{32,}$/);
    return { id: created.id, secret: created.webhookSecret as string };
  }

  const jobsOf = async (projectId: string) => (await t.services.jobs.list(projectId, { limit: 50 })).jobs;

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

  it('GitHub: a signed merged pull request starts a job with its title and diff; redeliveries, bad signatures and filters start none', async () => {
    const { projectId, app } = await start('github');
    const { secret } = await automation(projectId, {
      provider: 'github',
      repository: 'acme/api',
      paths: ['src/**'],
    });
    const hook = `${app.baseUrl}/v1/hooks/github/${projectId}`;
    github.pullFiles.set('acme/api#42', [
      { filename: 'src/widgets.ts', status: 'modified', additions: 1, deletions: 1, patch: PATCH },
      { filename: 'logo.png', status: 'added', additions: 0, deletions: 0 },
    ]);
    const payload = gitHubMergedPayload({
      repository: 'acme/api',
      number: 42,
      title: 'Paginate widgets with a cursor',
      body: 'Replaces `limit` with `cursor`.',
      author: 'octocat',
      apiUrl: github.baseUrl,
    });
    expect(gitHubSchemaErrors('webhook-pull-request-closed', payload)).toEqual([]);

    // Anything not signed with the automation's secret: 401, nothing read, nothing started.
    const unsigned = await sendGitHubHook(hook, { event: 'pull_request', payload, secret: null });
    const misSigned = await sendGitHubHook(hook, {
      event: 'pull_request',
      payload,
      secret: 'not the secret',
    });
    const unknownProject = await sendGitHubHook(`${app.baseUrl}/v1/hooks/github/prj_nope`, {
      event: 'pull_request',
      payload,
      secret,
    });
    for (const refused of [unsigned, misSigned, unknownProject]) {
      expect(refused.status).toBe(401);
      expect(refused.body.error).toBe(
        'X-Hub-Signature-256 does not match the secret of any code-change automation of this project',
      );
    }
    expect(github.requests).toEqual([]);
    expect(await jobsOf(projectId)).toEqual([]);

    const ping = await sendGitHubHook(hook, {
      event: 'ping',
      payload: { zen: 'Design for failure.' },
      secret,
    });
    expect(ping).toEqual({ status: 200, body: { runs: [], reason: 'ping: the webhook is set up' } });

    model.push(...editScript);
    const deliveryId = randomUUID();
    const received = await sendGitHubHook(hook, { event: 'pull_request', payload, secret, deliveryId });
    expect(received.status).toBe(202);
    const runs = received.body.runs as { jobId: string; status: string }[];
    expect(runs).toMatchObject([{ status: 'started' }]);
    const jobId = runs[0]?.jobId as string;
    const done = await waitFor(projectId, jobId, 'completed');

    // The first model request carries the pull request's title, description and diff.
    const first = JSON.stringify(model.requests[0]?.body);
    expect(first).toContain('Paginate widgets with a cursor');
    expect(first).toContain('Replaces `limit` with `cursor`.');
    expect(first).toContain('+  cursor: string,');
    expect(first).toContain('logo.png (added, +0 -0)');
    // The docs pull request links the source and asks its author for a review.
    const docsPull = github.pulls.find((p) => p.repository === 'acme/docs');
    expect(done.prLink).toMatch(/\/acme\/docs\/pull\/\d+$/);
    expect(docsPull?.body).toContain(payload.pull_request.html_url);
    expect(github.reviewerRequests).toEqual([
      { repository: 'acme/docs', number: docsPull?.number, reviewers: ['octocat'], status: 201 },
    ]);

    // Redelivered (same delivery id), or delivered again with a new id: no second job.
    const again = await sendGitHubHook(hook, { event: 'pull_request', payload, secret, deliveryId });
    const anew = await sendGitHubHook(hook, { event: 'pull_request', payload, secret });
    for (const duplicate of [again, anew]) {
      expect(duplicate.status).toBe(200);
      expect(duplicate.body.runs).toMatchObject([{ jobId, status: 'duplicate' }]);
      expect(duplicate.body.reason).toMatch(/^Already received/);
    }
    expect((await jobsOf(projectId)).map((j) => j.id)).toEqual([jobId]);

    // A merged pull request that changes no file under src/: no run.
    github.pullFiles.set('acme/api#43', [
      { filename: 'README.md', status: 'modified', additions: 1, deletions: 0, patch: '@@ -1 +1,2 @@\n+x' },
    ]);
    const readme = gitHubMergedPayload({
      repository: 'acme/api',
      number: 43,
      mergeCommitSha: 'f'.repeat(40),
    });
    const filtered = await sendGitHubHook(hook, { event: 'pull_request', payload: readme, secret });
    expect(filtered.status).toBe(200);
    expect(filtered.body).toMatchObject({
      runs: [],
      reason: expect.stringMatching(/matches the path filters/),
    });

    // Closed without merging, and another repository: no run either.
    const closed = gitHubMergedPayload({ repository: 'acme/api', number: 44, merged: false });
    expect((await sendGitHubHook(hook, { event: 'pull_request', payload: closed, secret })).body.reason).toBe(
      'pull_request closed without merging',
    );
    const other = gitHubMergedPayload({ repository: 'acme/other', number: 1 });
    expect(
      (await sendGitHubHook(hook, { event: 'pull_request', payload: other, secret })).body.reason,
    ).toMatch(/watches acme\/other/);
    expect((await jobsOf(projectId)).map((j) => j.id)).toEqual([jobId]);
    expect(github.violations).toEqual([]);
    // The model never saw a credential.
    expect(JSON.stringify(model.requests.map((r) => r.body))).not.toContain(TOKEN);
  });

  it('refuses a payload that is not the documented event, naming the field', async () => {
    const { projectId, app } = await start('github');
    const { secret } = await automation(projectId, { provider: 'github', repository: 'acme/api' });
    const payload = gitHubMergedPayload({ repository: 'acme/api', number: 1 });
    const broken = { ...payload, pull_request: { ...payload.pull_request, number: 'one' } };
    const answer = await sendGitHubHook(`${app.baseUrl}/v1/hooks/github/${projectId}`, {
      event: 'pull_request',
      payload: broken,
      secret,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('pull_request.number: must be an integer');
    const text = await fetch(`${app.baseUrl}/v1/hooks/github/${projectId}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(text.status).toBe(415);
    // Over 5 MiB: 413 before anything is verified or parsed.
    const huge = await fetch(`${app.baseUrl}/v1/hooks/github/${projectId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'ping' },
      body: JSON.stringify({ zen: 'x'.repeat(6 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    // GitHub's other content type: the JSON in a form field, signed as sent.
    const form = new URLSearchParams({
      payload: JSON.stringify({ zen: 'Anything added dilutes everything else.' }),
    });
    const ping = await fetch(`${app.baseUrl}/v1/hooks/github/${projectId}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-github-event': 'ping',
        'x-hub-signature-256': gitHubSignatureHeader(secret, form.toString()),
      },
      body: form.toString(),
    });
    expect(ping.status).toBe(200);
    expect(await jobsOf(projectId)).toEqual([]);
  });

  it('starts only the automations whose secret signed the delivery', async () => {
    const { projectId, app } = await start('github');
    const docs = await automation(projectId, { provider: 'github', repository: 'acme/api' });
    const other = await automation(projectId, { provider: 'github', repository: 'acme/api' });
    github.pullFiles.set('acme/api#7', [
      { filename: 'src/a.ts', status: 'modified', additions: 1, deletions: 1, patch: PATCH },
    ]);
    model.push(...editScript);
    const payload = gitHubMergedPayload({ repository: 'acme/api', number: 7, apiUrl: github.baseUrl });
    const answer = await sendGitHubHook(`${app.baseUrl}/v1/hooks/github/${projectId}`, {
      event: 'pull_request',
      payload,
      secret: other.secret,
    });
    expect(answer.status).toBe(202);
    expect(answer.body.runs).toMatchObject([{ automationId: other.id, status: 'started' }]);
    expect(answer.body.runs).not.toMatchObject([{ automationId: docs.id }]);
    await waitFor(projectId, (answer.body.runs as { jobId: string }[])[0]?.jobId as string, 'completed');
  });

  it('a later merge adds to the open docs pull request, which lists both sources; simultaneous deliveries start one run', async () => {
    const { projectId, app } = await start('github');
    const { secret } = await automation(projectId, { provider: 'github', repository: 'acme/api' });
    const hook = `${app.baseUrl}/v1/hooks/github/${projectId}`;
    github.pullFiles.set('acme/api#10', [
      { filename: 'src/a.ts', status: 'modified', additions: 1, deletions: 1, patch: PATCH },
    ]);
    github.pullFiles.set('acme/api#11', [
      {
        filename: 'src/b.ts',
        status: 'modified',
        additions: 1,
        deletions: 0,
        patch: '@@ -1 +1,2 @@\n+export const pageSize = 50;',
      },
    ]);
    const first = gitHubMergedPayload({
      repository: 'acme/api',
      number: 10,
      title: 'Cursor pagination',
      author: 'octocat',
      mergeCommitSha: 'a'.repeat(40),
    });
    const second = gitHubMergedPayload({
      repository: 'acme/api',
      number: 11,
      title: 'Page size constant',
      author: 'hubot',
      mergeCommitSha: 'b'.repeat(40),
    });
    model.push(...editScript);
    // The same merge delivered twice at once (two webhooks on the repository): one run.
    const [a, b] = await Promise.all([
      sendGitHubHook(hook, { event: 'pull_request', payload: first, secret }),
      sendGitHubHook(hook, { event: 'pull_request', payload: first, secret }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 202]);
    const jobId = ((a.status === 202 ? a : b).body.runs as { jobId: string }[])[0]?.jobId as string;
    await waitFor(projectId, jobId, 'completed');

    model.push(
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: {
              path: 'index.mdx',
              old_string: 'with `cursor`.',
              new_string: 'with `cursor`, 50 a page.',
            },
          },
        ],
      },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Documented the page size.' } }] },
    );
    const followed = await sendGitHubHook(hook, { event: 'pull_request', payload: second, secret });
    expect(followed.status).toBe(202);
    expect(followed.body.runs).toMatchObject([{ jobId, status: 'followed_up' }]);
    // The follow-up turn has used the script, then the job is completed again.
    await expect.poll(() => model.remaining(), { timeout: 20_000 }).toBe(0);
    await waitFor(projectId, jobId, 'completed');
    const docsPulls = github.pulls.filter((p) => p.repository === 'acme/docs');
    expect(docsPulls).toHaveLength(1);
    expect(docsPulls[0]?.body).toContain(first.pull_request.html_url);
    expect(docsPulls[0]?.body).toContain(second.pull_request.html_url);
    expect(github.reviewerRequests.map((r) => r.reviewers)).toEqual([['octocat'], ['octocat', 'hubot']]);
    expect((await jobsOf(projectId)).map((j) => j.id)).toEqual([jobId]);
    expect(github.violations).toEqual([]);
  });

  it('reads no pull request from a code host on a private address unless allowed: 502, no job', async () => {
    const { projectId, app } = await start('github', { allowPrivateNetworks: false });
    const { secret } = await automation(projectId, { provider: 'github', repository: 'acme/api' });
    github.pullFiles.set('acme/api#8', [
      { filename: 'src/a.ts', status: 'modified', additions: 1, deletions: 1, patch: PATCH },
    ]);
    const payload = gitHubMergedPayload({ repository: 'acme/api', number: 8 });
    const answer = await sendGitHubHook(`${app.baseUrl}/v1/hooks/github/${projectId}`, {
      event: 'pull_request',
      payload,
      secret,
    });
    expect(answer.status).toBe(502);
    expect(answer.body.error).toMatch(
      /^Could not read https:\/\/github\.com\/acme\/api\/pull\/8 through the host's API: .*Refused: 127\.0\.0\.1 is a loopback address/,
    );
    expect(github.requests).toEqual([]);
    expect(await jobsOf(projectId)).toEqual([]);
  });

  it('GitLab: X-Gitlab-Token, a merged merge request starts a job, the author is assigned; redelivery and wrong token start none', async () => {
    const { projectId, app } = await start('gitlab');
    const { secret } = await automation(projectId, { provider: 'gitlab', repository: 'acme/platform/api' });
    const hook = `${app.baseUrl}/v1/hooks/gitlab/${projectId}`;
    gitlab.mergeRequests.push({
      projectPath: 'acme/platform/api',
      iid: 9,
      title: 'Paginate widgets with a cursor',
      description: 'Replaces `limit` with `cursor`.',
      sourceBranch: 'feature-9',
      targetBranch: 'main',
      state: 'merged',
      updates: 0,
      author: 'ada',
      diffs: [{ old_path: 'src/widgets.ts', new_path: 'src/widgets.ts', diff: PATCH }],
    });
    const payload = gitLabMergedPayload({
      projectPath: 'acme/platform/api',
      iid: 9,
      title: 'Paginate widgets with a cursor',
      description: 'Replaces `limit` with `cursor`.',
      authorId: 31,
    });
    const wrong = await sendGitLabHook(hook, { event: 'Merge Request Hook', payload, token: 'wrong' });
    const none = await sendGitLabHook(hook, { event: 'Merge Request Hook', payload, token: null });
    for (const refused of [wrong, none]) {
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatch(/^X-Gitlab-Token does not match/);
    }
    expect(await jobsOf(projectId)).toEqual([]);

    model.push(...editScript);
    const key = randomUUID();
    const received = await sendGitLabHook(hook, {
      event: 'Merge Request Hook',
      payload,
      token: secret,
      idempotencyKey: key,
    });
    expect(received.status).toBe(202);
    const jobId = (received.body.runs as { jobId: string }[])[0]?.jobId as string;
    const done = await waitFor(projectId, jobId, 'completed');
    const first = JSON.stringify(model.requests[0]?.body);
    expect(first).toContain('Paginate widgets with a cursor');
    expect(first).toContain('+  cursor: string,');
    expect(first).toContain('by @ada');
    const docsMr = gitlab.mergeRequests.find((m) => m.projectPath === 'acme/docs');
    expect(done.prLink).toBe(`${new URL(gitlab.apiUrl).origin}/acme/docs/-/merge_requests/${docsMr?.iid}`);
    expect(docsMr?.assigneeIds).toEqual([31]);

    const again = await sendGitLabHook(hook, {
      event: 'Merge Request Hook',
      payload,
      token: secret,
      idempotencyKey: key,
    });
    expect(again.status).toBe(200);
    expect(again.body.runs).toMatchObject([{ jobId, status: 'duplicate' }]);
    const push = await sendGitLabHook(hook, {
      event: 'Push Hook',
      payload: { object_kind: 'push' },
      token: secret,
    });
    expect(push).toEqual({
      status: 200,
      body: { runs: [], reason: 'Push Hook events start nothing; only Merge Request Hook is used' },
    });
    expect((await jobsOf(projectId)).map((j) => j.id)).toEqual([jobId]);
    expect(gitlab.violations).toEqual([]);
  });
});

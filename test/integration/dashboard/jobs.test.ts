import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createDocumentationAgent } from '../../../src/app/create-agent.ts';
import { createWorker } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import type { JobView } from '../../../src/domain/jobs/job-view.ts';
import { ProjectSettingsService } from '../../../src/domain/projects/project-settings.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { SecretBox } from '../../../src/domain/secrets/secret-box.ts';
import type { DashboardJobType, JobChangesType } from '../../../src/http/routes/dashboard-jobs.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { signIn } from '../../helpers/dashboard-session.ts';
import { type FakeGitHub, startFakeGitHub } from '../../helpers/fake-github.ts';
import { type GitHttpServer, startGitHttpServer } from '../../helpers/git-http-server.ts';
import {
  branches,
  createBareRepository,
  createRepository,
  git,
  tempDir,
  writeFiles,
} from '../../helpers/git-repos.ts';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../helpers/scripted-openai-server.ts';
import { SseReader } from '../../helpers/sse.ts';
import { testBackend } from '../../helpers/storage.ts';

describe(`dashboard job endpoints on ${testBackend}`, () => {
  let t: TestApp;
  const cleanups: (() => Promise<void> | void)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** An app over a project whose repository is on this machine, and a signed-in account. */
  async function localProject(role: 'viewer' | 'admin' = 'admin') {
    t = await startTestApp();
    cleanups.push(() => t.close());
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const repo = path.join(dir.dir, 'docs');
    createRepository(repo, { 'index.md': '# Home\n', 'guide.md': '# Guide\n\nOld text.\n' });
    const project = await t.services.projects.create({ name: 'Local docs', repository: repo });
    const session = await signIn(t, { role });
    return { repo, project: await t.services.projects.get(project.id), session };
  }

  /** What the agent would have pushed: the job's branch with one commit changing `file`. */
  function pushChange(repo: string, job: JobView, file: string, content: string) {
    git(repo, 'checkout', '--quiet', '-b', job.source.ref, 'main');
    writeFiles(repo, { [file]: content });
    git(repo, 'commit', '--quiet', '-am', `Agent: ${file}`);
    git(repo, 'checkout', '--quiet', 'main');
  }

  it('lists jobs with their title and turns, searches every prompt, filters and pages', async () => {
    const { project, session } = await localProject('viewer');
    const long = `Rewrite the quickstart ${'with many careful words '.repeat(20)}`;
    const first = await t.services.jobs.create(project, long);
    const second = await t.services.jobs.create(project, 'Document   the\nwebhooks');
    await t.services.jobs.message(project.id, second.id, 'Also the RETRY policy');
    await t.services.jobs.archive(project.id, first.id);
    const list = async (query = '') => {
      const response = await session.request('GET', `/dashboard/api/projects/${project.id}/jobs${query}`);
      expect(response.status).toBe(200);
      return (await response.json()) as { jobs: DashboardJobType[]; nextCursor: string | null };
    };

    const all = await list();
    expect(all.jobs.map((j) => [j.id, j.title, j.turns])).toEqual([
      [second.id, 'Document the webhooks', 2],
      [first.id, expect.stringMatching(/^Rewrite the quickstart (with many careful words )+\w+…$/), 1],
    ]);
    expect(all.jobs[1]?.title.length).toBeLessThanOrEqual(201);
    // Each is the job as the public API shows it, plus title, turns and the review's state
    // (null: the job has no review link yet).
    const { title: _title, turns: _turns, reviewState, ...job } = all.jobs[0] as DashboardJobType;
    expect(job).toEqual(await t.services.jobs.get(project.id, second.id));
    expect(reviewState).toBeNull();

    expect((await list('?q=retry')).jobs.map((j) => j.id)).toEqual([second.id]);
    expect((await list('?q=QUICKSTART&status=archived')).jobs.map((j) => j.id)).toEqual([first.id]);
    expect((await list('?q=quickstart&status=active')).jobs).toEqual([]);
    const page = await list('?limit=1');
    expect(page.jobs.map((j) => j.id)).toEqual([second.id]);
    expect((await list(`?limit=1&cursor=${page.nextCursor}`)).jobs.map((j) => j.id)).toEqual([first.id]);
    const bad = await session.request('GET', `/dashboard/api/projects/${project.id}/jobs?sort=title`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/unknown parameter "sort"/);
  });

  it("shows a local job's changes, merges them, then refuses a second merge and a conflicting one", async () => {
    const { repo, project, session } = await localProject('admin');
    const job = await t.services.jobs.create(project, 'Fix the guide');
    const url = `/dashboard/api/projects/${project.id}/jobs/${job.id}`;

    const before = (await (await session.request('GET', `${url}/changes`)).json()) as JobChangesType;
    expect(before).toMatchObject({ state: 'missing', source: 'repository', note: null, commits: [] });

    pushChange(repo, job, 'guide.md', '# Guide\n\nNew text.\n');
    const changes = (await (await session.request('GET', `${url}/changes`)).json()) as JobChangesType;
    expect(changes).toMatchObject({
      branch: job.source.ref,
      baseBranch: 'main',
      state: 'open',
      source: 'repository',
      note: null,
      files: [{ path: 'guide.md', status: 'modified', additions: 1, deletions: 1 }],
    });
    expect(changes.diff).toContain('+New text.');
    expect(changes.commits.map((c) => c.subject)).toEqual(['Agent: guide.md']);

    // The list tells a local review's state, read from the repository (the agent's push set the link).
    await t.services.storage.db
      .updateTable('jobs')
      .set({ pr_link: `http://127.0.0.1/review/${job.id}` })
      .where('id', '=', job.id)
      .execute();
    const listed = async () =>
      (
        (await (await session.request('GET', `/dashboard/api/projects/${project.id}/jobs`)).json()) as {
          jobs: DashboardJobType[];
        }
      ).jobs.find((j) => j.id === job.id)?.reviewState;
    expect(await listed()).toBe('open');

    const merged = await session.request('POST', `${url}/merge`);
    expect(merged.status).toBe(200);
    expect(await listed()).toBe('merged');
    const { sha } = (await merged.json()) as { merged: true; sha: string };
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(sha);
    expect(git(repo, 'show', 'main:guide.md')).toBe('# Guide\n\nNew text.\n');
    expect(((await (await session.request('GET', `${url}/changes`)).json()) as JobChangesType).state).toBe(
      'merged',
    );

    const again = await session.request('POST', `${url}/merge`);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toMatch(/already merged/);

    // Two jobs changing the same line: the second cannot be merged after the first.
    const a = await t.services.jobs.create(project, 'Change the home page');
    const b = await t.services.jobs.create(project, 'Change the home page differently');
    pushChange(repo, a, 'index.md', '# Home A\n');
    pushChange(repo, b, 'index.md', '# Home B\n');
    expect(
      (await session.request('POST', `/dashboard/api/projects/${project.id}/jobs/${a.id}/merge`)).status,
    ).toBe(200);
    const conflicting = await session.request(
      'POST',
      `/dashboard/api/projects/${project.id}/jobs/${b.id}/merge`,
    );
    expect(conflicting.status).toBe(409);
    expect(((await conflicting.json()) as { error: string }).error).toMatch(
      /conflicts with main in index\.md/,
    );
    expect(git(repo, 'show', 'main:index.md')).toBe('# Home A\n');

    const unknown = await session.request(
      'GET',
      `/dashboard/api/projects/${project.id}/jobs/job_missing/changes`,
    );
    expect(unknown.status).toBe(404);
  });

  it('follows a job through the session: the event stream twin under /dashboard/api', async () => {
    const { project, session } = await localProject('viewer');
    const job = await t.services.jobs.create(project, 'Stream me');
    await t.services.jobs.archive(project.id, job.id);
    const response = await session.request(
      'GET',
      `/dashboard/api/v2/agent/${project.id}/job/${job.id}/events`,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const stream = new SseReader(response);
    await stream.readToEnd(5000);
    expect(stream.events.map((e) => e.event)).toEqual([
      'status',
      'status',
      'turn',
      'message',
      'turn',
      'status',
    ]);
    // A key does not open the dashboard's door, even for reading events.
    const withKey = await fetch(`${t.baseUrl}/dashboard/api/v2/agent/${project.id}/job/${job.id}/events`, {
      headers: { authorization: `Bearer ${t.key}` },
    });
    expect(withKey.status).toBe(401);
  });

  describe('a job of a GitHub repository', () => {
    const TOKEN = 'ghp_dashboardSecretToken0123456789';
    let model: ScriptedOpenAIServer;
    let gitServer: GitHttpServer;
    let github: FakeGitHub;
    let worker: Worker | null = null;

    async function githubProject() {
      const root = mkdtempSync(path.join(tmpdir(), 'docwright-dash-remote-'));
      const dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-dash-data-'));
      cleanups.push(() => {
        rmSync(root, { recursive: true, force: true });
        rmSync(dataDir, { recursive: true, force: true });
      });
      mkdirSync(path.join(root, 'acme'));
      const bare = path.join(root, 'acme', 'docs.git');
      createBareRepository(bare, {
        'docs.json': '{\n  "navigation": { "groups": [{ "group": "Start", "pages": ["index"] }] }\n}\n',
        'index.mdx': '---\ntitle: Welcome\n---\n\nWelcome to Acme.\n',
      });
      gitServer = await startGitHttpServer({ root, token: TOKEN });
      github = await startFakeGitHub({
        repositories: ['acme/docs'],
        token: TOKEN,
        branchExists: (_repo, branch) => branches(bare).includes(branch),
      });
      model = await startScriptedOpenAIServer([
        {
          toolCalls: [
            {
              name: 'edit_file',
              arguments: {
                path: 'index.mdx',
                old_string: 'Welcome to Acme.',
                new_string: 'Welcome to Acme Cloud.',
              },
            },
          ],
        },
        { toolCalls: [{ name: 'finish', arguments: { summary: 'Renamed the product.' } }] },
      ]);
      cleanups.push(() => Promise.all([model.close(), gitServer.close(), github.close()]).then(() => {}));
      const secretKey = `base64:${randomBytes(32).toString('base64')}`;
      const env = {
        DOCWRIGHT_MODEL: 'openai-compatible:test-model',
        DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
        DOCWRIGHT_SECRET_KEY: secretKey,
        DOCWRIGHT_POLL_INTERVAL_MS: '50',
        DOCWRIGHT_DATA_DIR: dataDir,
        // The fake code host and git server listen on loopback, which the policy refuses by default.
        DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: '127.0.0.1',
      };
      const secretBox = new SecretBox(secretKey);
      const agent = createDocumentationAgent(loadConfig(env), pino({ level: 'silent' }), { secretBox });
      t = await startTestApp({ env, agent });
      cleanups.push(() => t.close());
      const info = await t.services.projects.create({
        name: 'Acme',
        repository: `${gitServer.baseUrl}/acme/docs.git`,
      });
      await new ProjectSettingsService(t.services.storage, secretBox).update(info.id, {
        host: 'github',
        apiUrl: github.baseUrl,
        hostRepository: 'acme/docs',
        credentials: { token: TOKEN },
      });
      return { project: await t.services.projects.get(info.id), session: await signIn(t, { role: 'admin' }) };
    }

    afterEach(async () => {
      await worker?.stop();
      worker = null;
    });

    it("shows the changes from this server's mirror once the agent pushed them, and leaves the merge to GitHub", async () => {
      const { project, session } = await githubProject();
      const job = await t.services.jobs.create(project, 'Rename the product');
      const url = `/dashboard/api/projects/${project.id}/jobs/${job.id}`;
      const before = (await (await session.request('GET', `${url}/changes`)).json()) as JobChangesType;
      expect(before).toMatchObject({ state: 'missing', source: 'mirror', commits: [], diff: '' });
      expect(before.note).toMatch(/no copy of the job's branch/);

      worker = createWorker(t.services, pino({ level: 'silent' }));
      worker.start();
      await expect
        .poll(async () => (await t.services.jobs.get(project.id, job.id)).status, { timeout: 20_000 })
        .toBe('completed');
      const changes = (await (await session.request('GET', `${url}/changes`)).json()) as JobChangesType;
      expect(changes).toMatchObject({
        state: 'open',
        source: 'mirror',
        note: null,
        files: [{ path: 'index.mdx', status: 'modified', additions: 1, deletions: 1 }],
      });
      expect(changes.diff).toContain('+Welcome to Acme Cloud.');
      expect(JSON.stringify(changes)).not.toContain(TOKEN);

      const merge = await session.request('POST', `${url}/merge`);
      expect(merge.status).toBe(409);
      expect(((await merge.json()) as { error: string }).error).toMatch(
        /merge its pull request on the code host/,
      );
    });
  });
});

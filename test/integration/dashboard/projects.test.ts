import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { refusedAddress, urlHostForms } from '../../helpers/address-forms.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { signIn } from '../../helpers/dashboard-session.ts';
import { createRepository, tempDir } from '../../helpers/git-repos.ts';
import { testBackend } from '../../helpers/storage.ts';

const error = async (response: Response) => ((await response.json()) as { error: string }).error;

describe(`dashboard projects, settings and job lookup (${testBackend})`, () => {
  let t: TestApp | null = null;
  let cleanups: (() => void)[] = [];
  afterEach(async () => {
    await t?.close();
    t = null;
    for (const cleanup of cleanups) cleanup();
    cleanups = [];
  });

  const repository = () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const repo = path.join(dir.dir, 'docs');
    createRepository(repo, { 'index.md': '# Home\n' });
    return { dir: dir.dir, repo };
  };

  it('creates a project after checking its repository, renames it, moves it and deletes it', async () => {
    t = await startTestApp();
    const owner = await signIn(t, { role: 'owner' });
    const admin = await signIn(t, { role: 'admin' });
    const { dir, repo } = repository();

    const noBranch = await owner.request('POST', '/dashboard/api/projects', {
      body: { name: 'Docs', repository: repo, baseBranch: 'trunk' },
    });
    expect(noBranch.status).toBe(400);
    expect(await error(noBranch)).toMatch(/has no branch "trunk"; its branches include main/);
    const plain = path.join(dir, 'plain');
    mkdirSync(plain);
    const notRepo = await owner.request('POST', '/dashboard/api/projects', {
      body: { name: 'Docs', repository: plain },
    });
    expect(notRepo.status).toBe(400);
    expect(await error(notRepo)).toMatch(/is not a git repository/);
    const blank = await owner.request('POST', '/dashboard/api/projects', {
      body: { name: '  ', repository: repo },
    });
    expect(blank.status).toBe(400);
    // Admins change projects but do not create them.
    expect(
      (await admin.request('POST', '/dashboard/api/projects', { body: { name: 'Docs', repository: repo } }))
        .status,
    ).toBe(403);

    const created = await owner.request('POST', '/dashboard/api/projects', {
      body: { name: 'Docs', repository: repo },
    });
    expect(created.status).toBe(201);
    const { project, warnings } = (await created.json()) as {
      project: { id: string; name: string; repository: string; baseBranch: string; createdAt: string };
      warnings: string[];
    };
    expect(project).toEqual({
      id: expect.stringMatching(/^prj_/),
      name: 'Docs',
      repository: repo,
      baseBranch: 'main',
      createdAt: expect.any(String),
    });
    expect(warnings).toEqual([]);

    const listed = (await (await admin.request('GET', '/dashboard/api/projects')).json()) as {
      projects: { id: string }[];
    };
    expect(listed.projects.map((p) => p.id)).toEqual([t.project.id, project.id]);
    expect(await (await admin.request('GET', `/dashboard/api/projects/${project.id}`)).json()).toEqual(
      project,
    );
    const unknown = await admin.request('GET', '/dashboard/api/projects/prj_unknown');
    expect(unknown.status).toBe(404);
    expect(await error(unknown)).toBe('Project prj_unknown not found');

    const renamed = await admin.request('PATCH', `/dashboard/api/projects/${project.id}`, {
      body: { name: 'Guides' },
    });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toEqual({ project: { ...project, name: 'Guides' }, warnings: [] });
    const badMove = await admin.request('PATCH', `/dashboard/api/projects/${project.id}`, {
      body: { baseBranch: 'nope' },
    });
    expect(badMove.status).toBe(400);
    expect((await t.services.projects.get(project.id)).baseBranch).toBe('main');
    // Where the server runs git is the owner's decision: an admin may rename, not move.
    const adminMove = await admin.request('PATCH', `/dashboard/api/projects/${project.id}`, {
      body: { name: 'Moved', repository: 'https://docs.invalid/acme/docs.git' },
    });
    expect(adminMove.status).toBe(403);
    expect(await error(adminMove)).toBe(
      "Only an owner can change a project's repository: it decides where this server runs git",
    );
    expect(await t.services.projects.get(project.id)).toMatchObject({ name: 'Guides', repository: repo });
    const remote = await owner.request('PATCH', `/dashboard/api/projects/${project.id}`, {
      body: { repository: 'https://docs.invalid/acme/docs.git' },
    });
    expect(remote.status).toBe(200);
    expect(((await remote.json()) as { warnings: string[] }).warnings).toEqual([
      expect.stringMatching(/^Could not check https:\/\/docs\.invalid\/acme\/docs\.git now/),
    ]);

    // Deleting: owners only, and it takes the project's keys and jobs with it.
    const { key } = await t.services.keys.create(project.id, 'doomed');
    await t.services.jobs.create(await t.services.projects.get(project.id), 'A job');
    expect((await admin.request('DELETE', `/dashboard/api/projects/${project.id}`)).status).toBe(403);
    const deleted = await owner.request('DELETE', `/dashboard/api/projects/${project.id}`);
    expect(deleted.status).toBe(204);
    expect((await owner.request('GET', `/dashboard/api/projects/${project.id}`)).status).toBe(404);
    expect((await t.request('GET', `/v2/agent/${project.id}/jobs`, { key })).status).toBe(401);
    expect((await owner.request('DELETE', `/dashboard/api/projects/${project.id}`)).status).toBe(404);
  });

  it('takes a repository path over HTTP only under the allowed roots, with one answer for everything outside', async () => {
    const { dir } = repository();
    const root = path.join(dir, 'allowed');
    const inside = path.join(root, 'docs');
    createRepository(inside, { 'index.md': '# Home\n' });
    const outside = path.join(dir, 'outside');
    createRepository(outside, { 'index.md': '# Home\n' });
    symlinkSync(outside, path.join(root, 'link-out'));
    symlinkSync(path.join(dir, 'missing'), path.join(root, 'link-nowhere'));
    writeFileSync(path.join(dir, 'a-file'), 'not a directory\n');
    t = await startTestApp({ env: { DOCWRIGHT_LOCAL_REPOSITORY_ROOTS: root } });
    const owner = await signIn(t, { role: 'owner' });
    const create = (repository: string) =>
      owner.request('POST', '/dashboard/api/projects', { body: { name: 'Docs', repository } });

    const answers = new Set<string>();
    for (const repository of [
      outside, // a repository that exists
      path.join(dir, 'no-such-directory'), // nothing there
      path.join(dir, 'a-file'), // a file
      '/etc', // the server's own directories
      `${root}/../outside`, // climbing out by name
      path.join(root, 'link-out'), // a link inside that leads out
      path.join(root, 'link-nowhere', 'docs'), // a link to nothing
      `file://${outside}`,
    ]) {
      const refused = await create(repository);
      expect(refused.status, repository).toBe(400);
      answers.add(await error(refused));
    }
    expect([...answers]).toEqual([
      `repository: a path on this server must lie under the directory ${root} (DOCWRIGHT_LOCAL_REPOSITORY_ROOTS); give a git URL, or ask the server's operator to allow the directory`,
    ]);
    expect((await t.services.projects.list()).map((p) => p.repository)).toEqual([t.project.repository]);

    const created = await create(inside);
    expect(created.status).toBe(201);
    const { project } = (await created.json()) as { project: { id: string } };
    // Inside the root, what is missing can be said: it reveals nothing beyond the root.
    const missing = await create(path.join(root, 'not-yet'));
    expect(missing.status).toBe(400);
    expect(await error(missing)).toMatch(/not-yet does not exist/);
    // Moving a project is held to the same roots.
    const moved = await owner.request('PATCH', `/dashboard/api/projects/${project.id}`, {
      body: { repository: outside },
    });
    expect(moved.status).toBe(400);
    expect(await error(moved)).toMatch(/^repository: a path on this server must lie under/);
    expect((await t.services.projects.get(project.id)).repository).toBe(inside);
    // The command line runs with the server's own rights: any path.
    expect((await t.services.projects.create({ name: 'CLI', repository: outside })).repository).toBe(outside);
  });

  it("shows and changes agent and analytics settings; the token is write-only, sealed with the data directory's key", async () => {
    t = await startTestApp({
      env: { DOCWRIGHT_MODEL: 'openai:gpt-test', DOCWRIGHT_ANALYTICS_SALT_ROTATION: 'weekly' },
    });
    const admin = await signIn(t, { role: 'admin' });
    const viewer = await signIn(t, { role: 'viewer' });
    const url = `/dashboard/api/projects/${t.project.id}/settings`;
    const initial = await viewer.request('GET', url);
    expect(initial.status).toBe(200);
    expect(await initial.json()).toEqual({
      agent: { model: null, draft: true, monthlyBudgetUsd: null, codeHost: null, webResearch: false },
      analytics: { allowedOrigins: [], countAiCrawlersAsAi: false, saltRotation: null },
      server: { defaultModel: 'openai:gpt-test', saltRotation: 'weekly', publicUrl: 'http://127.0.0.1:0' },
      spend: {
        month: new Date().toISOString().slice(0, 7),
        budgetUsd: null,
        spentUsd: 0,
        unpricedTurns: 0,
        resetsOn: expect.stringMatching(/^\d{4}-\d{2}-01$/),
        budgetSpent: false,
      },
    });
    expect((await viewer.request('PATCH', url, { body: { agent: { draft: false } } })).status).toBe(403);

    const changed = await admin.request('PATCH', url, {
      body: {
        agent: { model: 'anthropic:claude-test', draft: false, host: 'github', hostRepository: 'acme/docs' },
        analytics: {
          allowedOrigins: ['https://Docs.Example.com/'],
          countAiCrawlersAsAi: true,
          saltRotation: 'monthly',
        },
      },
    });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      agent: {
        model: 'anthropic:claude-test',
        draft: false,
        codeHost: { kind: 'github', apiUrl: null, repository: 'acme/docs', credentials: 'none' },
      },
      analytics: {
        allowedOrigins: ['https://docs.example.com'],
        countAiCrawlersAsAi: true,
        saltRotation: 'monthly',
      },
    });
    // The public API sees the same analytics settings (and the page-view rules, not shown here).
    expect(await (await t.request('GET', `/v1/analytics/${t.project.id}/settings`)).json()).toMatchObject({
      allowedOrigins: ['https://docs.example.com'],
      countAiCrawlersAsAi: true,
      saltRotation: 'monthly',
    });

    // Without DOCWRIGHT_SECRET_KEY a token is stored with the data directory's key file.
    const withFileKey = await admin.request('PATCH', url, { body: { agent: { token: 'ghp_secret123' } } });
    expect(withFileKey.status).toBe(200);
    expect(await withFileKey.json()).toMatchObject({ agent: { codeHost: { credentials: 'stored' } } });
    // A refused origin refuses the whole change.
    const badOrigin = await admin.request('PATCH', url, {
      body: { agent: { draft: true }, analytics: { allowedOrigins: ['docs.example.com/path'] } },
    });
    expect(badOrigin.status).toBe(400);
    const unchanged = (await (await admin.request('GET', url)).json()) as { agent: { draft: boolean } };
    expect(unchanged.agent.draft).toBe(false);
    const unknownField = await admin.request('PATCH', url, { body: { agent: { colour: 'blue' } } });
    expect(unknownField.status).toBe(400);
    expect(await error(unknownField)).toMatch(/unknown field "agent.colour"/);
    const model = await admin.request('PATCH', url, { body: { agent: { model: 'gpt' } } });
    expect(await error(model)).toMatch(/provider:model-id/);
    // null puts the default model back.
    const reset = await admin.request('PATCH', url, { body: { agent: { model: null } } });
    expect(((await reset.json()) as { agent: { model: null } }).agent.model).toBeNull();
  });

  it('turns web research on and off for admins only; anything but a boolean is refused, naming the field', async () => {
    t = await startTestApp();
    const admin = await signIn(t, { role: 'admin' });
    const viewer = await signIn(t, { role: 'viewer' });
    const url = `/dashboard/api/projects/${t.project.id}/settings`;
    const webResearch = async (response: Response) =>
      ((await response.json()) as { agent: { webResearch: boolean } }).agent.webResearch;
    expect(await webResearch(await viewer.request('GET', url))).toBe(false);
    expect((await viewer.request('PATCH', url, { body: { agent: { webResearch: true } } })).status).toBe(403);
    const on = await admin.request('PATCH', url, { body: { agent: { webResearch: true } } });
    expect(on.status).toBe(200);
    expect(await webResearch(on)).toBe(true);
    expect(await webResearch(await viewer.request('GET', url))).toBe(true);
    // The agent reads it from the project as the worker loads it.
    expect((await t.services.projects.get(t.project.id)).settings.webResearch).toBe(true);
    const notBoolean = await admin.request('PATCH', url, { body: { agent: { webResearch: 'yes' } } });
    expect(notBoolean.status).toBe(400);
    expect(await error(notBoolean)).toMatch(/agent\.webResearch/);
    const off = await admin.request('PATCH', url, { body: { agent: { webResearch: false } } });
    expect(await webResearch(off)).toBe(false);
  });

  it('refuses a code-host API URL or repository on a non-public address up front, unless the setting allows it', async () => {
    t = await startTestApp();
    const owner = await signIn(t, { role: 'owner' });
    const url = `/dashboard/api/projects/${t.project.id}/settings`;
    for (const apiUrl of [
      'http://127.0.0.1:9/api/v4',
      'http://localhost:9/api/v4',
      'http://[fd00:ec2::254]/',
    ]) {
      const refused = await owner.request('PATCH', url, { body: { agent: { host: 'gitlab', apiUrl } } });
      expect(refused.status).toBe(400);
      expect(await error(refused)).toMatch(
        /^apiUrl .* cannot be used: Refused: .*(loopback|unique-local).*DOCWRIGHT_ALLOW_PRIVATE_NETWORKS/,
      );
    }
    expect(((await (await owner.request('GET', url)).json()) as { agent: unknown }).agent).toMatchObject({
      codeHost: null,
    });
    for (const repository of ['http://127.0.0.1:9/docs.git', 'git@localhost:acme/docs.git']) {
      const refused = await owner.request('POST', '/dashboard/api/projects', {
        body: { name: 'Docs', repository },
      });
      expect(refused.status).toBe(400);
      expect(await error(refused)).toMatch(/^repository .* cannot be used: Refused: .*loopback/);
    }
    await t.close();

    t = await startTestApp({ env: { DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: 'localhost,127.0.0.1' } });
    const allowed = await signIn(t, { role: 'owner' });
    const opened = await allowed.request('PATCH', `/dashboard/api/projects/${t.project.id}/settings`, {
      body: { agent: { host: 'gitlab', apiUrl: 'http://localhost:9/api/v4' } },
    });
    expect(opened.status).toBe(200);
    // Nothing answers on port 9: a warning, as for any remote that cannot be asked now.
    const created = await allowed.request('POST', '/dashboard/api/projects', {
      body: { name: 'Docs', repository: 'http://127.0.0.1:9/docs.git' },
    });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { warnings: string[] }).warnings[0]).toMatch(/^Could not check/);
  });

  it('refuses a code-host API URL on a non-public address in any form: IPv4-compatible, mapped, NAT64, octal, hex…', async () => {
    t = await startTestApp();
    const owner = await signIn(t, { role: 'owner' });
    const url = `/dashboard/api/projects/${t.project.id}/settings`;
    const refuses = async (apiUrl: string) => {
      const response = await owner.request('PATCH', url, { body: { agent: { host: 'gitlab', apiUrl } } });
      expect(response.status, apiUrl).toBe(400);
      expect(await error(response)).toMatch(/^apiUrl .* cannot be used: Refused: .* address/);
    };
    for (const apiUrl of ['http://[::7f00:1]:8080/api/v4', 'http://[::127.0.0.1]/', 'http://0x7f.1/']) {
      await refuses(apiUrl);
    }
    await fc.assert(
      fc.asyncProperty(refusedAddress.chain(urlHostForms), (host) => refuses(`http://${host}:8080/api/v4`)),
      { numRuns: 150 },
    );
    expect(((await (await owner.request('GET', url)).json()) as { agent: unknown }).agent).toMatchObject({
      codeHost: null,
    });
    // A git remote goes through the same policy.
    for (const repository of ['http://[::7f00:1]:9/docs.git', 'git@0x7f.1:acme/docs.git']) {
      const refused = await owner.request('POST', '/dashboard/api/projects', {
        body: { name: 'Docs', repository },
      });
      expect(refused.status, repository).toBe(400);
      expect(await error(refused)).toMatch(
        /^repository .* cannot be used: Refused: .*(IPv4-compatible|loopback)/,
      );
    }
  });

  it('stores a token encrypted and never shows it back', async () => {
    t = await startTestApp({ env: { DOCWRIGHT_SECRET_KEY: 'a passphrase long enough for tests' } });
    const admin = await signIn(t, { role: 'admin' });
    const url = `/dashboard/api/projects/${t.project.id}/settings`;
    const stored = await admin.request('PATCH', url, {
      body: { agent: { host: 'github', hostRepository: 'acme/docs', token: 'ghp_verysecrettoken' } },
    });
    expect(stored.status).toBe(200);
    const text = await stored.text();
    expect(text).not.toContain('ghp_');
    expect(JSON.parse(text)).toMatchObject({
      agent: { codeHost: { kind: 'github', credentials: 'stored' } },
    });
    expect(await (await admin.request('GET', url)).text()).not.toContain('ghp_');
    const row = await t.services.storage.db
      .selectFrom('projects')
      .select('settings')
      .where('id', '=', t.project.id)
      .executeTakeFirstOrThrow();
    expect(row.settings).not.toContain('ghp_verysecrettoken');
    const forgotten = await admin.request('PATCH', url, { body: { agent: { token: null } } });
    expect(await forgotten.json()).toMatchObject({ agent: { codeHost: { credentials: 'none' } } });
  });

  it('finds the project of a job', async () => {
    t = await startTestApp();
    const viewer = await signIn(t, { role: 'viewer' });
    const job = await t.services.jobs.create(await t.services.projects.get(t.project.id), 'A page');
    const found = await viewer.request('GET', `/dashboard/api/jobs/${job.id}`);
    expect(found.status).toBe(200);
    expect(await found.json()).toEqual({ projectId: t.project.id, jobId: job.id });
    const missing = await viewer.request('GET', '/dashboard/api/jobs/job_unknown');
    expect(missing.status).toBe(404);
    expect(await error(missing)).toBe('Job job_unknown not found');
  });
});

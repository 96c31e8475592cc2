import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeHostSettings } from '../../../src/domain/projects/code-host-settings.ts';
import { CodeHostError } from '../../../src/integrations/codehosts/code-host-error.ts';
import { createCodeHost } from '../../../src/integrations/codehosts/create-code-host.ts';
import { type FakeGitHub, startFakeGitHub } from '../../helpers/fake-github.ts';
import { type FakeGitLab, startFakeGitLab } from '../../helpers/fake-gitlab.ts';
import { createRepository, git, tempDir } from '../../helpers/git-repos.ts';

const TOKEN = 'ghp_fakeGitHubToken0123456789';
const BRANCH = 'docwright/abc123-fix-guide';
const PR = { branch: BRANCH, base: 'main', title: 'Fix the guide', body: 'What changed.', draft: true };
const ctx = {
  publicUrl: 'http://docwright.test',
  jobId: 'job_1',
  repository: 'https://github.com/acme/docs.git',
};

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function github(options: Partial<Parameters<typeof startFakeGitHub>[0]> = {}): Promise<FakeGitHub> {
  const fake = await startFakeGitHub({ repositories: ['acme/docs'], token: TOKEN, ...options });
  closers.push(() => fake.close());
  return fake;
}

function githubHost(
  fake: FakeGitHub,
  auth: Extract<CodeHostSettings, { kind: 'github' }>['auth'] = { type: 'token', token: TOKEN },
) {
  return createCodeHost({ kind: 'github', apiUrl: fake.baseUrl, auth }, ctx);
}

describe('GitHub code host against a server checked by the OpenAPI description', () => {
  it('finds nothing, creates a draft pull request, finds it, updates its body', async () => {
    const fake = await github();
    const host = githubHost(fake);
    expect(await host.findOpenPullRequest(BRANCH)).toBeNull();
    const ref = await host.createPullRequest(PR);
    expect(ref.number).toBe(1);
    expect(ref.url).toBe(`${new URL(fake.baseUrl).origin}/acme/docs/pull/1`);
    expect(await host.findOpenPullRequest(BRANCH)).toEqual(ref);
    await host.updatePullRequest(ref, { body: 'What changed.\n\nFollow-up: more.' });
    expect(fake.pulls).toMatchObject([
      {
        number: 1,
        head: BRANCH,
        base: 'main',
        draft: true,
        title: 'Fix the guide',
        body: 'What changed.\n\nFollow-up: more.',
        updates: 1,
      },
    ]);
    expect(fake.requests.map((r) => `${r.method} ${r.status}`)).toEqual([
      'GET 200',
      'POST 201',
      'GET 200',
      'PATCH 200',
    ]);
    expect(fake.violations).toEqual([]);
  });

  it('opens a ready pull request when draft is false', async () => {
    const fake = await github();
    await githubHost(fake).createPullRequest({ ...PR, draft: false });
    expect(fake.pulls[0]?.draft).toBe(false);
    expect(fake.violations).toEqual([]);
  });

  it('returns the existing pull request when a retried create finds one already open', async () => {
    const fake = await github();
    const first = await githubHost(fake).createPullRequest(PR);
    const again = await githubHost(fake).createPullRequest(PR);
    expect(again).toEqual(first);
    expect(fake.pulls).toHaveLength(1);
    expect(fake.violations).toEqual([]);
  });

  it('falls back to a ready pull request where drafts are not supported', async () => {
    const fake = await github({ draftsSupported: false });
    const ref = await githubHost(fake).createPullRequest(PR);
    expect(ref.number).toBe(1);
    expect(fake.pulls[0]?.draft).toBe(false);
    expect(fake.violations).toEqual([]);
  });

  it('talks to GitHub Enterprise Server under its /api/v3 root', async () => {
    const fake = await github({ pathPrefix: '/api/v3' });
    const ref = await githubHost(fake).createPullRequest(PR);
    expect(ref.url).toContain('/acme/docs/pull/1');
    expect(fake.requests.every((r) => r.path.startsWith('/api/v3/repos/acme/docs/pulls'))).toBe(true);
    expect(fake.violations).toEqual([]);
  });

  it('reports a rejected token clearly, without the token', async () => {
    const fake = await github();
    const error = await githubHost(fake, { type: 'token', token: 'ghp_wrong_token_value' })
      .createPullRequest(PR)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CodeHostError);
    expect((error as CodeHostError).status).toBe(401);
    expect((error as Error).message).toMatch(
      /^GitHub: creating a pull request from .* failed with 401: Bad credentials/,
    );
    expect((error as Error).message).not.toContain('ghp_wrong_token_value');
  });

  it('authenticates as a GitHub App installation, for the API and for git', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const app = { appId: '4242', installationId: 77 };
    const fake = await github({
      token: undefined,
      app: { ...app, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() },
    });
    const host = githubHost(fake, {
      type: 'app',
      ...app,
      privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    });
    const ref = await host.createPullRequest(PR);
    expect(ref.number).toBe(1);
    const credentials = await host.gitCredentials?.();
    expect(credentials).toEqual({ username: 'x-access-token', token: fake.issuedTokens[0] });
    expect(fake.issuedTokens).toHaveLength(1); // cached between the API call and git
    expect(fake.violations).toEqual([]);
  });

  it('is a fake that fails loudly on requests GitHub would not accept', async () => {
    const fake = await github();
    const send = (method: string, url: string, body?: unknown) =>
      fetch(`${fake.baseUrl}${url}`, {
        method,
        headers: { authorization: `token ${TOKEN}`, 'user-agent': 't', 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect(
      (await send('POST', '/repos/acme/docs/pulls', { head: 'x', base: 'main', title: 't', labels: ['x'] }))
        .status,
    ).toBe(422);
    expect((await send('POST', '/repos/acme/docs/pulls', { head: 'x', title: 't' })).status).toBe(422);
    expect((await send('GET', '/repos/acme/docs/pulls?state=opened')).status).toBe(422);
    expect((await send('GET', '/repos/acme/docs/pulls?colour=blue')).status).toBe(422);
    expect((await send('PATCH', '/repos/acme/docs/pulls/abc', { body: 'x' })).status).toBe(422);
    expect((await send('PUT', '/repos/acme/docs/pulls')).status).toBe(405);
    expect((await send('GET', '/repos/acme/docs/pull-requests')).status).toBe(404);
    expect(fake.violations).toHaveLength(7);
    expect(fake.violations[0]).toContain('body field labels is not part of this operation');
    expect(fake.violations[1]).toContain("must have required property 'base'");
  });
});

describe('GitLab code host against a fake of the merge requests API', () => {
  const GL_TOKEN = 'glpat-fakeGitLabToken0123';

  async function gitlab(): Promise<FakeGitLab> {
    const fake = await startFakeGitLab({ projects: ['acme/docs/site'], token: GL_TOKEN });
    closers.push(() => fake.close());
    return fake;
  }
  const glCtx = { ...ctx, repository: 'https://gitlab.example.com/acme/docs/site.git' };

  it('creates a draft merge request, finds it, updates its description', async () => {
    const fake = await gitlab();
    const host = createCodeHost({ kind: 'gitlab', apiUrl: fake.apiUrl, token: GL_TOKEN }, glCtx);
    expect(await host.findOpenPullRequest(BRANCH)).toBeNull();
    const ref = await host.createPullRequest(PR);
    expect(ref).toEqual({
      number: 1,
      url: `${new URL(fake.apiUrl).origin}/acme/docs/site/-/merge_requests/1`,
    });
    expect(await host.findOpenPullRequest(BRANCH)).toEqual(ref);
    await host.updatePullRequest(ref, { body: 'Updated.' });
    expect(fake.mergeRequests).toMatchObject([
      {
        iid: 1,
        title: 'Draft: Fix the guide',
        description: 'Updated.',
        sourceBranch: BRANCH,
        targetBranch: 'main',
        updates: 1,
      },
    ]);
    // The project is addressed by its URL-encoded full path.
    expect(fake.requests[0]?.path).toBe('/api/v4/projects/acme%2Fdocs%2Fsite/merge_requests');
    expect(fake.violations).toEqual([]);
    expect(await host.gitCredentials?.()).toEqual({ username: 'oauth2', token: GL_TOKEN });
  });

  it('keeps a ready title when draft is false, and returns the existing merge request on a retried create', async () => {
    const fake = await gitlab();
    const host = createCodeHost({ kind: 'gitlab', apiUrl: fake.apiUrl, token: GL_TOKEN }, glCtx);
    const first = await host.createPullRequest({ ...PR, draft: false });
    const again = await host.createPullRequest({ ...PR, draft: false });
    expect(again).toEqual(first);
    expect(fake.mergeRequests).toHaveLength(1);
    expect(fake.mergeRequests[0]?.title).toBe('Fix the guide');
    expect(fake.violations).toEqual([]);
  });

  it('reports a rejected token without the token', async () => {
    const fake = await gitlab();
    const host = createCodeHost({ kind: 'gitlab', apiUrl: fake.apiUrl, token: 'glpat-wrong' }, glCtx);
    const error = await host.findOpenPullRequest(BRANCH).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CodeHostError);
    expect((error as Error).message).toBe(
      `GitLab: looking for an open merge request from ${BRANCH} failed with 401 Unauthorized (check the token)`,
    );
  });

  it('keeps only the status of an error answer, never its body, for the job failure reason', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'PG::ConnectionBad at 10.0.0.7 password=hunter2' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const host = createCodeHost(
      { kind: 'gitlab', apiUrl: `http://127.0.0.1:${port}/api/v4`, token: GL_TOKEN },
      glCtx,
    );
    const error = await host.findOpenPullRequest(BRANCH).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CodeHostError);
    expect((error as CodeHostError).status).toBe(500);
    expect((error as Error).message).toBe(
      `GitLab: looking for an open merge request from ${BRANCH} failed with 500 Internal Server Error`,
    );
  });

  it('is a fake that rejects undocumented attributes and missing required ones', async () => {
    const fake = await gitlab();
    const post = (body: unknown) =>
      fetch(`${fake.apiUrl}/projects/1/merge_requests`, {
        method: 'POST',
        headers: { 'private-token': GL_TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post({ source_branch: 'a', target_branch: 'main', title: 't', draft: true })).status).toBe(
      400,
    );
    expect((await post({ source_branch: 'a', target_branch: 'main' })).status).toBe(400);
    expect(fake.violations).toEqual([
      expect.stringContaining('draft is not a documented attribute'),
      expect.stringContaining("must have required property 'title'"),
    ]);
  });
});

describe('local code host and createCodeHost', () => {
  it('links to the review page once the branch exists in the local repository', async () => {
    const { dir, cleanup } = tempDir();
    closers.push(cleanup);
    const repo = path.join(dir, 'docs');
    createRepository(repo, { 'index.md': '# Hi\n' });
    const host = createCodeHost(
      { kind: 'local' },
      { publicUrl: 'http://docwright.test/', jobId: 'job_42', repository: repo },
    );
    expect(await host.findOpenPullRequest(BRANCH)).toBeNull();
    git(repo, 'branch', BRANCH);
    const ref = { url: 'http://docwright.test/review/job_42', number: 0 };
    expect(await host.findOpenPullRequest(BRANCH)).toEqual(ref);
    expect(await host.createPullRequest(PR)).toEqual(ref);
    await host.updatePullRequest(ref, { body: 'x' });
    expect(await host.gitCredentials?.()).toBeNull();
  });

  it('says how to fix a repository whose owner/name cannot be derived', () => {
    expect(() =>
      createCodeHost(
        { kind: 'github', apiUrl: 'https://api.github.com', auth: { type: 'token', token: 't' } },
        { ...ctx, repository: 'https://github.com/just-one-part' },
      ),
    ).toThrow('docwright projects update --host-repo owner/name');
  });
});

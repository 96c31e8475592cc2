import { afterEach, describe, expect, it } from 'vitest';
import { OutboundPolicy } from '../../../src/domain/network/outbound-policy.ts';
import { CodeHostError } from '../../../src/integrations/codehosts/code-host-error.ts';
import { createCodeHost } from '../../../src/integrations/codehosts/create-code-host.ts';
import { CodeHostPullRequestReader } from '../../../src/integrations/codehosts/pull-request-reader.ts';
import { guardedFetch } from '../../../src/integrations/network/guarded-fetch.ts';
import { type FakeGitHub, type FakePullFile, startFakeGitHub } from '../../helpers/fake-github.ts';
import { type FakeDiff, type FakeGitLab, startFakeGitLab } from '../../helpers/fake-gitlab.ts';

const TOKEN = 'ghp_fakeGitHubToken0123456789';
const GL_TOKEN = 'glpat-fakeGitLabToken012345';
const ctx = {
  publicUrl: 'http://docwright.test',
  jobId: 'job_1',
  repository: 'https://example.com/acme/docs.git',
};

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function github(options: Partial<Parameters<typeof startFakeGitHub>[0]> = {}): Promise<FakeGitHub> {
  const fake = await startFakeGitHub({ repositories: ['acme/docs', 'acme/api'], token: TOKEN, ...options });
  closers.push(() => fake.close());
  return fake;
}

async function gitlab(): Promise<FakeGitLab> {
  const fake = await startFakeGitLab({
    projects: ['acme/docs', 'acme/platform/api'],
    token: GL_TOKEN,
    users: [
      { id: 7, username: 'docwright' },
      { id: 31, username: 'ada' },
    ],
  });
  closers.push(() => fake.close());
  return fake;
}

const hunk = (n: number) =>
  `@@ -1,${n} +1,${n} @@\n${Array.from({ length: n }, (_, i) => `-old ${i}\n+new ${i}`).join('\n')}`;

describe('reading a GitHub pull request through the published API', () => {
  it('lists every file over several pages, with patches, renames and counts', async () => {
    const fake = await github();
    const files: FakePullFile[] = Array.from({ length: 250 }, (_, i) => ({
      filename: `src/f${i}.ts`,
      status: 'modified',
      additions: 2,
      deletions: 2,
      patch: hunk(2),
    }));
    files.push({
      filename: 'src/new.ts',
      status: 'renamed',
      additions: 0,
      deletions: 0,
      previous_filename: 'src/old.ts',
    });
    fake.pullFiles.set('acme/api#42', files);
    const reader = new CodeHostPullRequestReader({
      kind: 'github',
      apiUrl: fake.baseUrl,
      auth: { type: 'token', token: TOKEN },
    });
    const changes = await reader.changes({ provider: 'github', repository: 'acme/api', number: 42 });
    expect(changes.files).toHaveLength(251);
    expect(changes.truncated).toBe(false);
    expect(changes.files[0]).toEqual({
      path: 'src/f0.ts',
      previousPath: null,
      status: 'modified',
      additions: 2,
      deletions: 2,
      patch: hunk(2),
    });
    expect(changes.files[250]).toEqual({
      path: 'src/new.ts',
      previousPath: 'src/old.ts',
      status: 'renamed',
      additions: 0,
      deletions: 0,
      patch: null,
    });
    expect(fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'GET /repos/acme/api/pulls/42/files 200',
      'GET /repos/acme/api/pulls/42/files 200',
      'GET /repos/acme/api/pulls/42/files 200',
    ]);
    expect(fake.violations).toEqual([]);
  });

  it('says clearly when the pull request cannot be read, without the token', async () => {
    const fake = await github();
    const reader = new CodeHostPullRequestReader({
      kind: 'github',
      apiUrl: fake.baseUrl,
      auth: { type: 'token', token: TOKEN },
    });
    const error = await reader
      .changes({ provider: 'github', repository: 'acme/api', number: 9 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CodeHostError);
    expect((error as Error).message).toMatch(/listing the files of pull request #9 failed with 404/);
    expect((error as Error).message).not.toContain(TOKEN);
  });

  it('refuses a provider the project has no credentials for', async () => {
    const reader = new CodeHostPullRequestReader({ kind: 'local' });
    await expect(reader.changes({ provider: 'github', repository: 'acme/api', number: 1 })).rejects.toThrow(
      /needs the project's code host to be GitHub/,
    );
  });
});

describe('requesting reviewers', () => {
  it('asks GitHub for a review by login', async () => {
    const fake = await github({ tokenLogin: 'docwright-bot' });
    const host = createCodeHost(
      {
        kind: 'github',
        apiUrl: fake.baseUrl,
        repository: 'acme/docs',
        auth: { type: 'token', token: TOKEN },
      },
      ctx,
    );
    const ref = await host.createPullRequest({
      branch: 'docwright/x',
      base: 'main',
      title: 'Docs',
      body: 'b',
      draft: true,
    });
    await host.requestReviewers?.(ref, ['octocat']);
    expect(fake.reviewerRequests).toEqual([
      { repository: 'acme/docs', number: ref.number, reviewers: ['octocat'], status: 201 },
    ]);
    expect(fake.violations).toEqual([]);
  });

  it("passes on GitHub's refusal of the pull request's own author", async () => {
    const fake = await github({ tokenLogin: 'docwright-bot' });
    const host = createCodeHost(
      {
        kind: 'github',
        apiUrl: fake.baseUrl,
        repository: 'acme/docs',
        auth: { type: 'token', token: TOKEN },
      },
      ctx,
    );
    const ref = await host.createPullRequest({
      branch: 'docwright/x',
      base: 'main',
      title: 'Docs',
      body: 'b',
      draft: true,
    });
    await expect(host.requestReviewers?.(ref, ['docwright-bot'])).rejects.toThrow(
      /422.*Review cannot be requested from pull request author/,
    );
  });

  it('assigns the GitLab merge request to the user, looked up by name', async () => {
    const fake = await gitlab();
    const host = createCodeHost(
      { kind: 'gitlab', apiUrl: fake.apiUrl, repository: 'acme/docs', token: GL_TOKEN },
      ctx,
    );
    const ref = await host.createPullRequest({
      branch: 'docwright/x',
      base: 'main',
      title: 'Docs',
      body: 'b',
      draft: true,
    });
    await host.requestReviewers?.(ref, ['ada']);
    expect(fake.mergeRequests[0]?.assigneeIds).toEqual([31]);
    await expect(host.requestReviewers?.(ref, ['nobody'])).rejects.toThrow(/no user nobody/);
    expect(fake.violations).toEqual([]);
  });
});

describe('reading a GitLab merge request', () => {
  it('reads the author and every diff over pages, counting lines', async () => {
    const fake = await gitlab();
    const diffs: FakeDiff[] = Array.from({ length: 130 }, (_, i) => ({
      old_path: `lib/f${i}.rb`,
      new_path: `lib/f${i}.rb`,
      diff: hunk(3),
    }));
    diffs.push({ old_path: 'lib/a.rb', new_path: 'lib/b.rb', diff: '', renamed_file: true });
    fake.mergeRequests.push({
      projectPath: 'acme/platform/api',
      iid: 9,
      title: 'Rename flag',
      description: 'Renames --fast.',
      sourceBranch: 'feature',
      targetBranch: 'main',
      state: 'merged',
      updates: 0,
      author: 'ada',
      diffs,
    });
    const reader = new CodeHostPullRequestReader({ kind: 'gitlab', apiUrl: fake.apiUrl, token: GL_TOKEN });
    const changes = await reader.changes({ provider: 'gitlab', repository: 'acme/platform/api', number: 9 });
    expect(changes.author).toBe('ada');
    expect(changes.files).toHaveLength(131);
    expect(changes.files[0]).toEqual({
      path: 'lib/f0.rb',
      previousPath: null,
      status: 'modified',
      additions: 3,
      deletions: 3,
      patch: hunk(3),
    });
    expect(changes.files[130]).toMatchObject({
      path: 'lib/b.rb',
      previousPath: 'lib/a.rb',
      status: 'renamed',
      patch: null,
    });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/9',
      'GET /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/9/diffs',
      'GET /api/v4/projects/acme%2Fplatform%2Fapi/merge_requests/9/diffs',
    ]);
    expect(fake.violations).toEqual([]);
  });
});

describe('reading source pull requests from public addresses only', () => {
  it('refuses a code host on a loopback address, by IP or by a name that resolves to one', async () => {
    const fake = await github();
    fake.pullFiles.set('acme/api#1', []);
    const guarded = guardedFetch(OutboundPolicy.publicOnly());
    for (const apiUrl of [fake.baseUrl, fake.baseUrl.replace('127.0.0.1', 'localhost')]) {
      const reader = new CodeHostPullRequestReader(
        { kind: 'github', apiUrl, auth: { type: 'token', token: TOKEN } },
        { fetch: guarded },
      );
      await expect(reader.changes({ provider: 'github', repository: 'acme/api', number: 1 })).rejects.toThrow(
        /Refused: .*(127\.0\.0\.1|::1) is a loopback address/,
      );
    }
    const lab = await gitlab();
    const reader = new CodeHostPullRequestReader(
      { kind: 'gitlab', apiUrl: lab.apiUrl, token: GL_TOKEN },
      { fetch: guarded },
    );
    await expect(
      reader.changes({ provider: 'gitlab', repository: 'acme/platform/api', number: 1 }),
    ).rejects.toThrow(/Refused: 127\.0\.0\.1 is a loopback address/);
    expect(fake.requests).toEqual([]);
    expect(lab.requests).toEqual([]);
  });

  it('is a working fetch for Octokit and the GitLab client where the policy allows the host', async () => {
    // A host name entry of DOCWRIGHT_ALLOW_PRIVATE_NETWORKS opens that name, whatever it resolves
    // to; the fake's next-page links name 127.0.0.1, which an address entry opens.
    const local = guardedFetch(OutboundPolicy.parse('localhost, 127.0.0.1') as OutboundPolicy);
    const fake = await github();
    fake.pullFiles.set(
      'acme/api#5',
      Array.from({ length: 120 }, (_, i) => ({
        filename: `f${i}`,
        status: 'added' as const,
        additions: 1,
        deletions: 0,
        patch: '@@ -0,0 +1 @@\n+x',
      })),
    );
    const reader = new CodeHostPullRequestReader(
      {
        kind: 'github',
        apiUrl: fake.baseUrl.replace('127.0.0.1', 'localhost'),
        auth: { type: 'token', token: TOKEN },
      },
      { fetch: local },
    );
    expect(
      (await reader.changes({ provider: 'github', repository: 'acme/api', number: 5 })).files,
    ).toHaveLength(120);
    const missing = await reader
      .changes({ provider: 'github', repository: 'acme/api', number: 6 })
      .catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/failed with 404/);
    expect(fake.violations).toEqual([]);
  });
});

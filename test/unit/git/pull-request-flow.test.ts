import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CodeHost, GitCredentials } from '../../../src/domain/agent/code-host.ts';
import { OutboundPolicy } from '../../../src/domain/network/outbound-policy.ts';
import { createCodeHost } from '../../../src/integrations/codehosts/create-code-host.ts';
import { GitWorkspaces, type WorkspaceRequest } from '../../../src/integrations/git/workspaces.ts';
import { startFakeGitHub } from '../../helpers/fake-github.ts';
import { startFakeGitLab } from '../../helpers/fake-gitlab.ts';
import { type GitHttpServer, startGitHttpServer } from '../../helpers/git-http-server.ts';
import { branches, createBareRepository, git, tempDir } from '../../helpers/git-repos.ts';

// The path a turn takes after the agent ran: commit, push over smart HTTP, open or update
// the pull request. Git is real; only the code host's REST API is a fake checked against its description.

const TOKEN = 'tok_flow_0123456789abcdef';
let root: string;
let bare: string;
let server: GitHttpServer;
let closers: (() => Promise<void> | void)[] = [];

beforeEach(async () => {
  const dir = tempDir();
  root = dir.dir;
  closers.push(dir.cleanup);
  bare = path.join(root, 'acme', 'docs.git');
  createBareRepository(bare, { 'index.md': '# Home\n', 'guide.md': '# Guide\n' });
  server = await startGitHttpServer({ root, token: TOKEN });
  closers.push(() => server.close());
});
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

function remoteHasBranch(branch: string): boolean {
  return branches(bare).includes(branch);
}

/** One turn: prepare, let `edit` change files, then commit/push/PR like the agent does. */
async function turn(
  ws: GitWorkspaces,
  host: CodeHost,
  req: Omit<WorkspaceRequest, 'credentials'>,
  edit: (dir: string) => void,
  note: string,
): Promise<string | null> {
  const credentials: GitCredentials | null = (await host.gitCredentials?.()) ?? null;
  const full = { ...req, credentials };
  const prepared = await ws.prepare(full);
  edit(prepared.dir);
  const commit = await ws.commitAll(prepared.dir, note);
  if (commit) await ws.push(full, prepared.dir);
  if (!commit && !prepared.continued) return null;
  const existing = await host.findOpenPullRequest(req.branch);
  if (existing) {
    await host.updatePullRequest(existing, { body: `Updated: ${note}` });
    return existing.url;
  }
  const created = await host.createPullRequest({
    branch: req.branch,
    base: req.baseBranch,
    title: note,
    body: note,
    draft: true,
  });
  return created.url;
}

describe('turn → commit → push over smart HTTP → pull request', () => {
  const req = (repository: string) => ({
    projectId: 'prj_flow',
    jobId: 'job_flow',
    repository,
    baseBranch: 'main',
    branch: 'docwright/flow-guide',
  });
  const ws = () =>
    new GitWorkspaces({
      dataDir: path.join(root, 'data'),
      logger: pino({ level: 'silent' }),
      author: { name: 'Docwright', email: 'bot@docwright.test' },
      // The test git server is on loopback, which the outgoing-network policy refuses by default.
      network: OutboundPolicy.parse('127.0.0.1') as OutboundPolicy,
    });

  it('GitHub: no change leaves no branch and no PR; a change opens one; a follow-up updates it; a retry adds none', async () => {
    const github = await startFakeGitHub({
      repositories: ['acme/docs'],
      token: TOKEN,
      branchExists: (_repo, branch) => remoteHasBranch(branch),
    });
    closers.push(() => github.close());
    const repository = `${server.baseUrl}/acme/docs.git`;
    const host = createCodeHost(
      {
        kind: 'github',
        apiUrl: github.baseUrl,
        repository: 'acme/docs',
        auth: { type: 'token', token: TOKEN },
      },
      { publicUrl: 'http://docwright.test', jobId: 'job_flow', repository },
    );
    const workspaces = ws();

    expect(await turn(workspaces, host, req(repository), () => {}, 'Just a question')).toBeNull();
    expect(remoteHasBranch('docwright/flow-guide')).toBe(false);
    expect(github.pulls).toEqual([]);

    const url = await turn(
      workspaces,
      host,
      req(repository),
      (dir) => writeFileSync(path.join(dir, 'guide.md'), 'v1\n'),
      'Rewrite the guide',
    );
    expect(url).toMatch(/\/acme\/docs\/pull\/1$/);
    expect(git(bare, 'show', 'docwright/flow-guide:guide.md')).toBe('v1\n');

    const again = await turn(
      workspaces,
      host,
      req(repository),
      (dir) => writeFileSync(path.join(dir, 'index.md'), 'v2\n'),
      'Also the home page',
    );
    expect(again).toBe(url);
    expect(git(bare, 'rev-list', '--count', 'main..docwright/flow-guide').trim()).toBe('2');

    // A retried turn whose change was already pushed commits nothing, yet still finds the pull request.
    const retried = await turn(
      workspaces,
      host,
      req(repository),
      (dir) => writeFileSync(path.join(dir, 'index.md'), 'v2\n'),
      'Also the home page',
    );
    expect(retried).toBe(url);
    expect(github.pulls).toHaveLength(1);
    expect(github.pulls[0]).toMatchObject({ draft: true, body: 'Updated: Also the home page', updates: 2 });
    expect(github.violations).toEqual([]);
    expect(
      server.requests.filter((r) => r.url.includes('git-receive-pack') && r.method === 'POST'),
    ).toHaveLength(2);
  });

  it('GitLab: pushes with the oauth2 user and opens one draft merge request', async () => {
    const gitlab = await startFakeGitLab({
      projects: ['acme/docs'],
      token: TOKEN,
      branchExists: (_project, branch) => remoteHasBranch(branch),
    });
    closers.push(() => gitlab.close());
    const repository = `${server.baseUrl}/acme/docs.git`;
    const host = createCodeHost(
      { kind: 'gitlab', apiUrl: gitlab.apiUrl, token: TOKEN },
      { publicUrl: 'http://d', jobId: 'job_flow', repository: 'https://gitlab.example.com/acme/docs.git' },
    );
    const url = await turn(
      ws(),
      host,
      req(repository),
      (dir) => writeFileSync(path.join(dir, 'guide.md'), 'gl\n'),
      'GitLab change',
    );
    expect(url).toMatch(/\/acme\/docs\/-\/merge_requests\/1$/);
    expect(gitlab.mergeRequests).toMatchObject([
      { title: 'Draft: GitLab change', sourceBranch: 'docwright/flow-guide' },
    ]);
    const basic = Buffer.from(`oauth2:${TOKEN}`).toString('base64');
    expect(server.requests.some((r) => r.authorization === `Basic ${basic}`)).toBe(true);
    expect(gitlab.violations).toEqual([]);
  });
});

import { existsSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutboundPolicy } from '../../../src/domain/network/outbound-policy.ts';
import { GitRunner } from '../../../src/integrations/git/git-runner.ts';
import { guardRemote } from '../../../src/integrations/git/remote-guard.ts';
import { GitError, GitWorkspaces, type WorkspaceRequest } from '../../../src/integrations/git/workspaces.ts';
import { startGitHttpServer } from '../../helpers/git-http-server.ts';
import { branches, commitToBare, createBareRepository, git, tempDir } from '../../helpers/git-repos.ts';

const AUTHOR = { name: 'Docwright Bot', email: 'bot@docwright.test' };
const FILES = {
  'docs.json': '{"navigation":["index","guide"]}\n',
  'index.mdx': '# Welcome\n',
  'guide.mdx': '# Guide\n\nSteps.\n',
};

let root: string;
let cleanup: () => void;
let remote: string;
let logLines: string[];

function workspaces(extra: Partial<ConstructorParameters<typeof GitWorkspaces>[0]> = {}) {
  logLines = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => logLines.push(line) });
  return new GitWorkspaces({ dataDir: path.join(root, 'data'), logger, author: AUTHOR, ...extra });
}

function request(overrides: Partial<WorkspaceRequest> = {}): WorkspaceRequest {
  return {
    projectId: 'prj_test',
    jobId: 'job_one',
    repository: remote,
    baseBranch: 'main',
    branch: 'docwright/one-fix-guide',
    credentials: null,
    ...overrides,
  };
}

beforeEach(() => {
  ({ dir: root, cleanup } = tempDir());
  remote = path.join(root, 'remote.git');
  createBareRepository(remote, FILES);
});
afterEach(() => cleanup());

describe('GitWorkspaces over a repository path', () => {
  it('prepares a worktree of the mirror on the job branch, starting from the base branch', async () => {
    const ws = workspaces();
    const prepared = await ws.prepare(request());
    expect(prepared).toMatchObject({ created: true, continued: false });
    expect(prepared.dir).toBe(path.join(root, 'data', 'workspaces', 'job_one'));
    expect(readFileSync(path.join(prepared.dir, 'guide.mdx'), 'utf8')).toBe(FILES['guide.mdx']);
    expect(git(prepared.dir, 'symbolic-ref', '--short', 'HEAD').trim()).toBe('docwright/one-fix-guide');
    expect(prepared.startSha).toBe(git(remote, 'rev-parse', 'main').trim());
    // A worktree of the mirror, not a clone of its own.
    expect(statSync(path.join(prepared.dir, '.git')).isFile()).toBe(true);
    expect(existsSync(path.join(root, 'data', 'mirrors', 'prj_test.git', 'HEAD'))).toBe(true);
  });

  it('makes no commit and pushes nothing when nothing changed', async () => {
    const ws = workspaces();
    const { dir, startSha } = await ws.prepare(request());
    expect(await ws.commitAll(dir, 'Nothing to do')).toBeNull();
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(startSha);
    expect(branches(remote)).toEqual(['main']);
  });

  it('commits every kind of change with the configured author and no trailers, then pushes the branch', async () => {
    const ws = workspaces();
    const { dir } = await ws.prepare(request());
    writeFileSync(path.join(dir, 'guide.mdx'), '# Guide\n\nBetter steps.\n');
    writeFileSync(path.join(dir, 'new-page.mdx'), '# New\n');
    unlinkSync(path.join(dir, 'index.mdx'));
    const result = await ws.commitAll(dir, 'Improve the guide\n\nAnd add a page.');
    expect(result?.files).toEqual(['guide.mdx', 'index.mdx', 'new-page.mdx']);
    const show = git(dir, 'log', '-1', '--format=%an <%ae>%n%cn <%ce>%n%B');
    expect(show).toBe(
      'Docwright Bot <bot@docwright.test>\nDocwright Bot <bot@docwright.test>\nImprove the guide\n\nAnd add a page.\n\n',
    );
    expect(show).not.toMatch(/Co-authored-by|Signed-off-by/i);

    await ws.push(request(), dir);
    expect(branches(remote).sort()).toEqual(['docwright/one-fix-guide', 'main']);
    expect(git(remote, 'rev-parse', 'docwright/one-fix-guide').trim()).toBe(result?.sha);
    expect(git(remote, 'rev-parse', 'main').trim()).not.toBe(result?.sha);
  });

  it('adds Co-authored-by trailers only when configured', async () => {
    const ws = workspaces({ coAuthors: ['Ada <ada@example.com>'] });
    const { dir } = await ws.prepare(request());
    writeFileSync(path.join(dir, 'guide.mdx'), 'changed\n');
    await ws.commitAll(dir, 'Change');
    expect(git(dir, 'log', '-1', '--format=%B').trim()).toBe(
      'Change\n\nCo-authored-by: Ada <ada@example.com>',
    );
  });

  it('continues the pushed branch on a follow-up, in the same or a fresh working copy', async () => {
    const ws = workspaces();
    const first = await ws.prepare(request());
    writeFileSync(path.join(first.dir, 'guide.mdx'), 'turn one\n');
    const one = await ws.commitAll(first.dir, 'Turn one');
    await ws.push(request(), first.dir);

    const again = await ws.prepare(request());
    expect(again).toMatchObject({ created: false, continued: true, startSha: one?.sha });
    writeFileSync(path.join(again.dir, 'index.mdx'), 'turn two\n');
    const two = await ws.commitAll(again.dir, 'Turn two');
    await ws.push(request(), again.dir);
    expect(git(remote, 'rev-list', '--count', 'main..docwright/one-fix-guide').trim()).toBe('2');
    expect(git(remote, 'rev-parse', 'docwright/one-fix-guide').trim()).toBe(two?.sha);

    await ws.remove(request());
    expect(existsSync(again.dir)).toBe(false);
    const fresh = await ws.prepare(request());
    expect(fresh).toMatchObject({ created: true, continued: true, startSha: two?.sha });
    expect(readFileSync(path.join(fresh.dir, 'index.mdx'), 'utf8')).toBe('turn two\n');
  });

  it('drops what a crashed attempt left behind when the turn is retried', async () => {
    const ws = workspaces();
    const { dir, startSha } = await ws.prepare(request());
    writeFileSync(path.join(dir, 'guide.mdx'), 'half-done\n');
    writeFileSync(path.join(dir, 'stray.mdx'), 'stray\n');
    await ws.commitAll(dir, 'Never pushed');
    writeFileSync(path.join(dir, 'uncommitted.mdx'), 'x\n');

    const retried = await ws.prepare(request());
    expect(retried).toMatchObject({ created: false, continued: false, startSha });
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(startSha);
    expect(readFileSync(path.join(dir, 'guide.mdx'), 'utf8')).toBe(FILES['guide.mdx']);
    expect(existsSync(path.join(dir, 'stray.mdx'))).toBe(false);
    expect(existsSync(path.join(dir, 'uncommitted.mdx'))).toBe(false);
  });

  it('recreates a working copy that a crash left locked', async () => {
    const ws = workspaces();
    const { dir } = await ws.prepare(request());
    writeFileSync(path.join(dir, 'guide.mdx'), 'half-written\n');
    const gitDir = readFileSync(path.join(dir, '.git'), 'utf8')
      .replace(/^gitdir: /, '')
      .trim();
    writeFileSync(path.join(gitDir, 'index.lock'), '');
    const again = await ws.prepare(request());
    expect(again.created).toBe(true);
    expect(readFileSync(path.join(dir, 'guide.mdx'), 'utf8')).toBe(FILES['guide.mdx']);
    expect(logLines.some((l) => l.includes('could not reset the working copy'))).toBe(true);
  });

  it('fetches before each preparation: new base commits arrive and deleted branches are pruned', async () => {
    const ws = workspaces();
    await ws.prepare(request());
    commitToBare(remote, 'main', { 'later.mdx': '# Later\n' }, 'Add a later page');
    git(remote, 'branch', 'old-topic', 'main');
    await ws.prepare(request({ jobId: 'job_two', branch: 'docwright/two' }));
    const mirror = path.join(root, 'data', 'mirrors', 'prj_test.git');
    expect(git(mirror, 'for-each-ref', '--format=%(refname)', 'refs/remotes')).toContain('old-topic');
    git(remote, 'branch', '-D', 'old-topic');

    const third = await ws.prepare(request({ jobId: 'job_three', branch: 'docwright/three' }));
    expect(readFileSync(path.join(third.dir, 'later.mdx'), 'utf8')).toBe('# Later\n');
    expect(git(mirror, 'for-each-ref', '--format=%(refname)', 'refs/remotes')).not.toContain('old-topic');
  });

  it('prepares several jobs of one project at the same time', async () => {
    const ws = workspaces();
    const jobs = ['job_a', 'job_b', 'job_c', 'job_d'];
    const prepared = await Promise.all(
      jobs.map((jobId) => ws.prepare(request({ jobId, branch: `docwright/${jobId}` }))),
    );
    expect(prepared.map((p) => path.basename(p.dir))).toEqual(jobs);
    for (const p of prepared) expect(readFileSync(path.join(p.dir, 'index.mdx'), 'utf8')).toBe('# Welcome\n');
  });

  it('removes the working copy and its local branch, and tolerates removing twice', async () => {
    const ws = workspaces();
    const { dir } = await ws.prepare(request());
    await ws.remove(request());
    await ws.remove(request());
    expect(existsSync(dir)).toBe(false);
    const mirror = path.join(root, 'data', 'mirrors', 'prj_test.git');
    expect(branches(mirror)).toEqual([]);
    expect(git(mirror, 'worktree', 'list')).not.toContain('job_one');
  });

  it("reuses a finished job's working copy for the project's next job, leaving nothing of the first", async () => {
    const ws = workspaces();
    const first = await ws.prepare(request());
    writeFileSync(path.join(first.dir, 'guide.mdx'), '# Changed by job one\n');
    writeFileSync(path.join(first.dir, 'new-page.mdx'), '# New\n');
    writeFileSync(path.join(first.dir, '.gitignore'), 'ignored.txt\n');
    writeFileSync(path.join(first.dir, 'ignored.txt'), 'left behind\n');
    expect(await ws.commitAll(first.dir, 'Job one')).not.toBeNull();
    await ws.remove(request());
    expect(readdirSync(ws.poolDir('prj_test'))).toHaveLength(1);

    const second = await ws.prepare(request({ jobId: 'job_two', branch: 'docwright/two-other' }));
    // The parked copy was taken, and it now holds exactly the base branch.
    expect(readdirSync(ws.poolDir('prj_test'))).toHaveLength(0);
    expect(readFileSync(path.join(second.dir, 'guide.mdx'), 'utf8')).toBe('# Guide\n\nSteps.\n');
    for (const leftover of ['new-page.mdx', '.gitignore', 'ignored.txt']) {
      expect(existsSync(path.join(second.dir, leftover)), leftover).toBe(false);
    }
    expect(git(second.dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('docwright/two-other');
    expect(git(second.dir, 'status', '--porcelain')).toBe('');
    expect(branches(path.join(root, 'data', 'mirrors', 'prj_test.git'))).toEqual(['docwright/two-other']);
  });

  it('keeps at most two parked working copies per project', async () => {
    const ws = workspaces();
    for (const job of ['job_a', 'job_b', 'job_c'])
      await ws.prepare(request({ jobId: job, branch: `docwright/${job}` }));
    for (const job of ['job_a', 'job_b', 'job_c'])
      await ws.remove(request({ jobId: job, branch: `docwright/${job}` }));
    expect(readdirSync(ws.poolDir('prj_test'))).toHaveLength(2);
  });

  it('recovers a working copy whose directory vanished', async () => {
    const ws = workspaces();
    const { dir } = await ws.prepare(request());
    rmSync(dir, { recursive: true, force: true });
    const again = await ws.prepare(request());
    expect(again.created).toBe(true);
    expect(readFileSync(path.join(dir, 'index.mdx'), 'utf8')).toBe('# Welcome\n');
  });

  it('says clearly when the base branch does not exist', async () => {
    const ws = workspaces();
    await expect(ws.prepare(request({ baseBranch: 'release' }))).rejects.toThrow(
      `Base branch "release" does not exist in ${remote}`,
    );
  });

  it('refuses names that git or the file system would misread', async () => {
    const ws = workspaces();
    for (const bad of [
      request({ branch: '-delete' }),
      request({ branch: 'a..b' }),
      request({ branch: 'x.lock' }),
      request({ jobId: '../escape' }),
      request({ projectId: 'a/b' }),
      request({ repository: '--upload-pack=touch /tmp/pwned' }),
    ]) {
      await expect(ws.prepare(bad)).rejects.toBeInstanceOf(GitError);
    }
  });
});

describe('GitWorkspaces over smart HTTP with a token', () => {
  const TOKEN = 'ghp_TestToken1234567890abcdef';
  // The test server is on loopback, which the outgoing-network policy refuses by default.
  const LOOPBACK = OutboundPolicy.parse('127.0.0.0/8') as OutboundPolicy;

  it('fetches and pushes with the token, which lands in no file, URL, log or error', async () => {
    const server = await startGitHttpServer({ root, token: TOKEN });
    try {
      const url = `${server.baseUrl}/remote.git`;
      const credentials = { token: TOKEN };
      const ws = workspaces({ network: LOOPBACK });
      const req = request({ repository: url, credentials });
      const { dir } = await ws.prepare(req);
      writeFileSync(path.join(dir, 'guide.mdx'), 'over http\n');
      const commit = await ws.commitAll(dir, 'Over HTTP');
      await ws.push(req, dir);
      expect(git(remote, 'rev-parse', 'docwright/one-fix-guide').trim()).toBe(commit?.sha);

      // The server saw the token as Basic auth on real requests, and URLs never carried it.
      const basic = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
      expect(
        server.requests.some(
          (r) => r.authorization === `Basic ${basic}` && r.url.includes('git-receive-pack'),
        ),
      ).toBe(true);
      expect(server.requests.every((r) => !r.url.includes(TOKEN))).toBe(true);

      const secrets = [TOKEN, basic];
      const dataDir = path.join(root, 'data');
      for (const file of textFiles(dataDir)) {
        const content = readFileSync(file, 'latin1');
        for (const secret of secrets) expect(content.includes(secret), file).toBe(false);
      }
      expect(git(dir, 'remote', '-v')).not.toContain(TOKEN);
      expect(git(dir, 'config', '--list', '--show-origin')).not.toContain(basic);
      expect(logLines.length).toBeGreaterThan(0);
      for (const line of logLines) for (const secret of secrets) expect(line).not.toContain(secret);
    } finally {
      await server.close();
    }
  });

  it('fails clearly without the right token, and the error holds no secret', async () => {
    const server = await startGitHttpServer({ root, token: TOKEN });
    try {
      const url = `${server.baseUrl}/remote.git`;
      const ws = workspaces({ network: LOOPBACK });
      await expect(ws.prepare(request({ repository: url }))).rejects.toThrow(
        `Cannot fetch ${url}: the code host refused the credentials`,
      );
      const wrong = 'ghp_WrongToken0987654321';
      const error = await ws
        .prepare(request({ repository: url, credentials: { token: wrong } }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GitError);
      const text = `${(error as GitError).message}\n${(error as GitError).stderr}`;
      expect(text).toContain('refused the credentials');
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(Buffer.from(`x-access-token:${wrong}`).toString('base64'));
      expect(server.requests.filter((r) => r.status === 401).length).toBeGreaterThanOrEqual(2);
    } finally {
      await server.close();
    }
  });
});

describe('git remotes under the outgoing-network policy', () => {
  const TOKEN = 'ghp_TestToken1234567890abcdef';

  it('refuses to fetch from or push to a loopback remote by default, before git connects', async () => {
    const server = await startGitHttpServer({ root, token: TOKEN });
    try {
      const ws = workspaces();
      for (const url of [
        `${server.baseUrl}/remote.git`,
        `${server.baseUrl.replace('127.0.0.1', 'localhost')}/remote.git`,
      ]) {
        const req = request({ repository: url, credentials: { token: TOKEN } });
        await expect(ws.prepare(req)).rejects.toThrow(
          new RegExp(
            `^Cannot fetch ${url.replace(/[.?]/g, '\\$&')}: Refused: .*127\\.0\\.0\\.1 is a loopback address; .*DOCWRIGHT_ALLOW_PRIVATE_NETWORKS`,
          ),
        );
        await expect(ws.push(req, root)).rejects.toThrow(/^Cannot push to .*: Refused: .*loopback/);
      }
      expect(server.requests).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('fetches from a host name the setting allows, pinned to the address it checked', async () => {
    const server = await startGitHttpServer({ root, token: TOKEN });
    try {
      const url = `${server.baseUrl.replace('127.0.0.1', 'localhost')}/remote.git`;
      const allowed = OutboundPolicy.parse('localhost') as OutboundPolicy;
      const port = new URL(url).port;
      expect(await guardRemote(allowed, url)).toEqual({
        'http.followRedirects': 'false',
        'http.curloptResolve': `localhost:${port}:127.0.0.1`,
      });
      const ws = workspaces({ network: allowed });
      const { startSha } = await ws.prepare(request({ repository: url, credentials: { token: TOKEN } }));
      expect(startSha).toBe(git(remote, 'rev-parse', 'main').trim());
      expect(server.requests.length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('git connects to the pinned address, not to what the name resolves to', async () => {
    const server = await startGitHttpServer({ root, token: TOKEN });
    try {
      // A name no resolver knows: only the pin can take git to the server.
      const port = new URL(server.baseUrl).port;
      const url = `http://docwright-pin.invalid:${port}/git/remote.git`;
      const runner = new GitRunner({ logger: pino({ level: 'silent' }) });
      const { stdout } = await runner.run(['ls-remote', '--heads', url], {
        cwd: root,
        credentials: { token: TOKEN },
        config: { 'http.curloptResolve': `docwright-pin.invalid:${port}:127.0.0.1` },
      });
      expect(stdout).toContain('refs/heads/main');
    } finally {
      await server.close();
    }
  });

  it('checks ssh and scp-style remotes too, keeps local ones, and refuses other schemes', async () => {
    const strict = OutboundPolicy.publicOnly();
    await expect(guardRemote(strict, 'git@127.0.0.1:acme/docs.git')).rejects.toThrow(
      /Refused: 127\.0\.0\.1 is a loopback/,
    );
    await expect(guardRemote(strict, 'ssh://git@localhost/acme/docs.git')).rejects.toThrow(
      /Refused: localhost resolves to 127\.0\.0\.1 is a loopback/,
    );
    await expect(guardRemote(strict, 'git://10.1.2.3/docs.git')).rejects.toThrow(/private/);
    for (const odd of [
      'ftp://example.com/docs.git',
      'http://example.com\\@127.0.0.1/docs.git',
      'http://user:secret@example.com/docs.git',
    ]) {
      await expect(guardRemote(strict, odd)).rejects.toThrow(/^Refused: not a remote Docwright fetches/);
    }
    expect(await guardRemote(strict, remote)).toEqual({});
    expect(await guardRemote(strict, `file://${remote}`)).toEqual({});
    expect(
      await guardRemote(OutboundPolicy.parse('10.0.0.0/8') as OutboundPolicy, 'git://10.1.2.3/docs.git'),
    ).toEqual({});
  });
});

/** Every regular file under dir except git's compressed objects and the index. */
function textFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'objects') out.push(...textFiles(full));
    } else if (entry.isFile()) out.push(full);
  }
  return out;
}

import { existsSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContextSearchRequest } from '../../../src/domain/agent/research/connected-repositories.ts';
import { fileUrlOf, GitContextRepositories } from '../../../src/integrations/git/context-repositories.ts';
import { createRepository, git, tempDir, writeFiles } from '../../helpers/git-repos.ts';

const logger = pino({ level: 'silent' });
let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: root, cleanup } = tempDir());
});
afterEach(() => cleanup());

const search = (pattern: string, fields: Partial<ContextSearchRequest> = {}): ContextSearchRequest => ({
  pattern,
  caseInsensitive: false,
  path: undefined,
  matches: () => true,
  maxMatches: 100,
  timeoutMs: 10_000,
  signal: undefined,
  ...fields,
});

function sourceRepository(dir: string): string {
  createRepository(dir, {
    'src/cli.ts': 'export const options = {\n  retries: 3, // --retries\n  timeout: 30,\n};\n',
    'src/server/http.ts': 'const RETRIES = 5;\n',
    'README.md': '# API\n\nRun with --retries.\n',
    '.gitignore': 'generated/\n*.log\n',
    'generated/schema.ts': 'export const retries = 99;\n',
    'debug.log': 'retries everywhere\n',
    'vendor/lib/retry.js': 'var retries = 7;\n',
    'web/node_modules/pkg/index.js': 'retries\n',
    'web/app.ts': 'const retries = 4;\n',
    'assets/logo.bin': 'retries\0binary\n',
  });
  // Committed although ignored: what a repository may hold, and what Docwright leaves out.
  git(dir, 'add', '--force', 'generated/schema.ts', 'debug.log');
  git(dir, 'commit', '--quiet', '-m', 'Force-add generated files');
  return git(dir, 'rev-parse', 'HEAD').trim();
}

describe('GitContextRepositories', () => {
  it('mirrors a repository and reads it at its commit: list, read, search, nothing vendored or ignored', async () => {
    const api = path.join(root, 'api');
    const sha = sourceRepository(api);
    const context = new GitContextRepositories({
      dataDir: path.join(root, 'data'),
      logger,
      refreshMs: 60_000,
    });
    const { repositories, unavailable } = await context.open(
      'prj_a',
      [{ name: 'api', repository: api, ref: 'main' }],
      { credentialsFor: () => null },
    );
    expect(unavailable).toEqual([]);
    const [repo] = repositories;
    if (!repo) throw new Error('not opened');
    expect(repo).toMatchObject({ name: 'api', ref: 'main', commit: sha });
    expect(existsSync(context.mirrorDir('prj_a', 'api'))).toBe(true);

    expect((await context.list(repo)).map((f) => f.path)).toEqual([
      '.gitignore',
      'README.md',
      'assets/logo.bin',
      'src/cli.ts',
      'src/server/http.ts',
      'web/app.ts',
    ]);
    expect(await context.read(repo, 'src/cli.ts', 1_000_000)).toContain('retries: 3');
    expect(await context.read(repo, 'assets/logo.bin', 1_000_000)).toBe('binary');
    expect(await context.read(repo, 'src/cli.ts', 10)).toBe('too-large');
    expect(await context.read(repo, 'generated/schema.ts', 1_000_000)).toBeNull();
    expect(await context.read(repo, 'nope.ts', 1_000_000)).toBeNull();

    const found = await context.search(repo, search('retries', { caseInsensitive: true }));
    expect(found.matches.map((m) => `${m.file}:${m.line}`)).toEqual([
      'README.md:3',
      'src/cli.ts:2',
      'src/server/http.ts:1',
      'web/app.ts:1',
    ]);
    expect(found.more).toBe(false);
    const inSrc = await context.search(
      repo,
      search('retries', { path: 'src', matches: (p) => p.startsWith('server/') }),
    );
    expect(inSrc.matches).toEqual([]);
    const upper = await context.search(
      repo,
      search('RETRIES', { path: 'src', matches: (p) => p.startsWith('server/') }),
    );
    expect(upper.matches).toEqual([{ file: 'src/server/http.ts', line: 1, text: 'const RETRIES = 5;' }]);
    const capped = await context.search(repo, search('.', { maxMatches: 2 }));
    expect([capped.matches.length, capped.more]).toEqual([2, true]);
    await expect(context.search(repo, search('(unclosed'))).rejects.toThrow(/git grep failed/);
  });

  it('fetches again only when the mirror is older than the refresh interval, and reads a pinned commit', async () => {
    const api = path.join(root, 'api');
    const first = createRepository(api, { 'a.ts': 'one\n' });
    const fresh = new GitContextRepositories({ dataDir: path.join(root, 'data'), logger, refreshMs: 60_000 });
    const entry = [{ name: 'api', repository: api, ref: 'main' }];
    expect((await fresh.open('prj_a', entry, { credentialsFor: () => null })).repositories[0]?.commit).toBe(
      first,
    );
    writeFiles(api, { 'a.ts': 'two\n' });
    git(api, 'commit', '--quiet', '--all', '-m', 'Two');
    const second = git(api, 'rev-parse', 'HEAD').trim();
    // Within the interval the mirror is used as fetched.
    expect((await fresh.open('prj_a', entry, { credentialsFor: () => null })).repositories[0]?.commit).toBe(
      first,
    );
    // A pinned commit the mirror lacks is fetched for.
    const pinned = await fresh.open('prj_a', entry, {
      credentialsFor: () => null,
      pinned: new Map([['api', second]]),
    });
    expect(pinned.repositories[0]?.commit).toBe(second);
    const always = new GitContextRepositories({ dataDir: path.join(root, 'data'), logger, refreshMs: 0 });
    writeFiles(api, { 'a.ts': 'three\n' });
    git(api, 'commit', '--quiet', '--all', '-m', 'Three');
    const third = git(api, 'rev-parse', 'HEAD').trim();
    expect((await always.open('prj_a', entry, { credentialsFor: () => null })).repositories[0]?.commit).toBe(
      third,
    );
  });

  it('reports a repository it cannot open and opens the others', async () => {
    const api = path.join(root, 'api');
    createRepository(api, { 'a.ts': 'one\n' });
    const context = new GitContextRepositories({ dataDir: path.join(root, 'data'), logger, refreshMs: 0 });
    const opened = await context.open(
      'prj_a',
      [
        { name: 'api', repository: api, ref: 'main' },
        { name: 'gone', repository: path.join(root, 'missing'), ref: 'main' },
        { name: 'branchless', repository: api, ref: 'release' },
      ],
      { credentialsFor: () => null },
    );
    expect(opened.repositories.map((r) => r.name)).toEqual(['api']);
    expect(opened.unavailable.map((u) => u.name)).toEqual(['gone', 'branchless']);
    expect(opened.unavailable[1]?.reason).toMatch(/release/);
    await context.remove('prj_a', 'api');
    expect(existsSync(context.mirrorDir('prj_a', 'api'))).toBe(false);
  });

  it('links a file at its commit on GitHub and GitLab, and nowhere else', () => {
    expect(fileUrlOf('https://github.com/acme/api.git', 'abc', 'src/a b.ts')).toBe(
      'https://github.com/acme/api/blob/abc/src/a%20b.ts',
    );
    expect(fileUrlOf('git@github.com:acme/api.git', 'abc', 'a.ts')).toBe(
      'https://github.com/acme/api/blob/abc/a.ts',
    );
    expect(fileUrlOf('https://gitlab.com/acme/group/api', 'abc', 'a.ts')).toBe(
      'https://gitlab.com/acme/group/api/-/blob/abc/a.ts',
    );
    expect(fileUrlOf('/srv/git/api', 'abc', 'a.ts')).toBeNull();
    expect(fileUrlOf('https://git.example.com/acme/api.git', 'abc', 'a.ts')).toBeNull();
  });
});

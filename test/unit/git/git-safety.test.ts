import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitError, GitRunner } from '../../../src/integrations/git/git-runner.ts';
import {
  overridesFor,
  parseConfigListing,
  SAFE_MERGE_DRIVER,
} from '../../../src/integrations/git/git-safety.ts';
import { createBareRepository, createRepository, tempDir, writeFiles } from '../../helpers/git-repos.ts';
import { armHostileRepository, HOSTILE_ATTRIBUTES } from '../../helpers/hostile-repository.ts';

const runner = () => new GitRunner({ logger: pino({ level: 'silent' }) });
let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: root, cleanup } = tempDir());
});
afterEach(() => cleanup());

describe('overridesFor', () => {
  it('neutralises every driver the configuration defines, whatever its scope or name', () => {
    const listing = [
      'system\0filter.lfs.process\0',
      'local\0filter.a.b=c.smudge\0',
      'global\0diff.pdf.textconv\0',
      'worktree\0merge.ours.name\0',
      'local\0protocol.ext.allow\0',
      'local\0protocol.https.allow\0',
      'system\0credential.https://example.com.helper\0',
      'local\0remote.origin.uploadpack\0',
      'local\0core.sshcommand\0',
      'global\0core.sshcommand\0',
      'command\0filter.mine.clean\0',
    ].join('');
    const settings = new Map(overridesFor(parseConfigListing(listing)));
    expect(Object.fromEntries(settings)).toEqual({
      'filter.lfs.clean': '',
      'filter.lfs.smudge': '',
      'filter.lfs.process': '',
      'filter.lfs.required': 'false',
      'filter.a.b=c.clean': '',
      'filter.a.b=c.smudge': '',
      'filter.a.b=c.process': '',
      'filter.a.b=c.required': 'false',
      'diff.pdf.command': '',
      'diff.pdf.textconv': '',
      'merge.ours.driver': SAFE_MERGE_DRIVER,
      'merge.ours.recursive': 'text',
      'protocol.ext.allow': 'never',
      'credential.https://example.com.helper': '',
      'remote.origin.uploadpack': 'git-upload-pack',
      // The repository's own ssh command is replaced; the operator's (global) one is theirs.
      'core.sshcommand': 'ssh',
    });
  });
});

describe('GitRunner against a repository that names commands', () => {
  it('runs none of them in a working tree: add, commit, diff, log, checkout, merge', async () => {
    const repo = path.join(root, 'docs');
    const markers = path.join(root, 'markers');
    createRepository(repo, {
      '.gitattributes': HOSTILE_ATTRIBUTES,
      'a.mdx': 'one\ntwo\nthree\n',
      'b.json': '{}\n',
    });
    const hostile = armHostileRepository(repo, markers);
    const git = runner();
    const run = (...args: string[]) =>
      git.run(args, { cwd: repo, config: { 'user.name': 'T', 'user.email': 't@example.com' } });
    writeFiles(repo, { 'a.mdx': 'one\ntwo\nthree\nfour\n', 'c.mdx': 'new\n', 'b.json': '{"a":1}\n' });
    await run('add', '--all');
    await run('commit', '--quiet', '-m', 'Change');
    await run('diff', 'HEAD~1', 'HEAD');
    await run('log', '-p', '-2');
    await run('checkout', '--quiet', '-b', 'side', 'HEAD~1');
    writeFiles(repo, { 'a.mdx': 'zero\none\ntwo\nthree\n' });
    await run('commit', '--quiet', '--all', '-m', 'Side');
    await run('checkout', '--quiet', 'main');
    const merged = await run('merge', '--no-edit', '--quiet', 'side');
    expect(merged.code).toBe(0);
    expect(hostile.markers()).toEqual([]);
    // The merge driver was git's own three-way merge: both sides' lines are there.
    hostile.disarm();
    await expect(
      git.run(['cat-file', 'blob', 'HEAD:a.mdx'], { cwd: repo }).then((r) => r.stdout),
    ).resolves.toBe('zero\none\ntwo\nthree\nfour\n');
  });

  it('runs none of them in a bare repository named explicitly', async () => {
    const bare = path.join(root, 'docs.git');
    const markers = path.join(root, 'markers');
    createBareRepository(bare, { '.gitattributes': HOSTILE_ATTRIBUTES, 'a.mdx': 'a\n' });
    const hostile = armHostileRepository(bare, markers);
    const git = runner();
    const head = (await git.run(['rev-parse', 'HEAD'], { cwd: bare, bare: true })).stdout.trim();
    await git.run(['update-ref', 'refs/heads/copy', head], { cwd: bare, bare: true });
    await git.run(['log', '-p', 'copy'], { cwd: bare, bare: true });
    expect(hostile.markers()).toEqual([]);
  });

  it('never takes a bare layout inside a working tree for a repository', async () => {
    const repo = path.join(root, 'docs');
    const markers = path.join(root, 'markers');
    const sha = createRepository(repo, { 'a.md': 'a\n' });
    // What an agent could write as plain files, and a merge put on disk.
    writeFiles(repo, {
      'evil/HEAD': 'ref: refs/heads/main\n',
      'evil/config': `[core]\n\tbare = true\n\tfsmonitor = "touch ${markers}/fsmonitor; echo"\n`,
      'evil/objects/info/alternates': '../../.git/objects\n',
      'evil/refs/heads/main': `${sha}\n`,
    });
    mkdirSync(markers);
    const error = await runner()
      .run(['rev-parse', '--git-dir'], { cwd: path.join(repo, 'evil') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toMatch(
      /cannot use bare repository .*safe\.bareRepository is 'explicit'/,
    );
    // Nor does git climb from it to the repository around it.
    const status = await runner()
      .run(['status', '--porcelain'], { cwd: path.join(repo, 'evil', 'refs') })
      .catch((e: unknown) => e);
    expect(status).toBeInstanceOf(GitError);
    expect(readdirSync(markers)).toEqual([]);
  });

  it('refuses a subcommand nobody has checked, before running anything', async () => {
    const error = await runner()
      .run(['blame', 'a.md'], { cwd: root })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toMatch(/^git blame is not a command Docwright runs/);
  });

  it('runs a repository-less command outside every repository, whatever the server’s directory', async () => {
    const repo = path.join(root, 'docs');
    createBareRepository(path.join(root, 'remote.git'), { 'a.md': 'a\n' });
    createRepository(repo, { 'a.md': 'a\n' });
    // The server's own directory is a repository that rewrites every URL it fetches.
    writeFileSync(
      path.join(repo, '.git', 'config'),
      `[url "${root}/nowhere"]\n\tinsteadOf = ${root}/remote.git\n`,
      {
        flag: 'a',
      },
    );
    const before = process.cwd();
    process.chdir(repo);
    try {
      const { stdout } = await runner().run(
        ['ls-remote', '--heads', '--', path.join(root, 'remote.git')],
        {},
      );
      expect(stdout).toMatch(/refs\/heads\/main/);
    } finally {
      process.chdir(before);
    }
  });
});

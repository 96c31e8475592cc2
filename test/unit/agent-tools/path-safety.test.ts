import { link, mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { normalizeRepoPath } from '../../../src/domain/agent/tools/workspace.ts';
import { harness, snapshot, tempDir, writeTree } from './fixtures.ts';

const SECRET = 'TOP SECRET outside the working copy';
const GIT_CONFIG = '[core]\n\trepositoryformatversion = 0\n';

let base: string;
let repo: string;
let outside: string;

/**
 * A working copy surrounded by traps: a directory outside it holding a secret, and symbolic
 * and hard links of every kind leading there or into `.git`.
 */
beforeEach(async () => {
  base = await tempDir();
  repo = join(base, 'repo');
  outside = join(base, 'outside');
  await writeTree(outside, { 'secret.txt': SECRET });
  await writeTree(repo, {
    '.git/config': GIT_CONFIG,
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.git/hooks/README': 'hooks\n',
    'docs/page.mdx': '# Page\n\nHello.\n',
    'docs/nested/.git/config': GIT_CONFIG,
    'index.mdx': '# Home\n',
  });
  await symlink(outside, join(repo, 'out-dir'));
  await symlink('../outside', join(repo, 'rel-out'));
  await symlink(join(outside, 'secret.txt'), join(repo, 'secret.md'));
  await symlink('../../outside', join(repo, 'docs', 'deep-link'));
  await symlink(join(outside, 'created-through-link.md'), join(repo, 'dangling.md'));
  await symlink(join(outside, 'newdir'), join(repo, 'dangling-dir'));
  await symlink('.git', join(repo, 'git-link'));
  await symlink('.git/config', join(repo, 'git-config.md'));
  await symlink('chain2', join(repo, 'chain1'));
  await symlink(join(outside, 'secret.txt'), join(repo, 'chain2'));
  await symlink('loop', join(repo, 'loop'));
  await symlink('..', join(repo, 'root-parent'));
  await symlink('.', join(repo, 'self'));
  await symlink('docs/page.mdx', join(repo, 'inside-link.mdx'));
  await symlink('../index.mdx', join(repo, 'docs', 'up-link.mdx'));
  await link(join(outside, 'secret.txt'), join(repo, 'hard.md'));
});

// Stands for the absolute path of the outside directory, known only once the test runs.
const ABSOLUTE_OUTSIDE = '<outside>';
const withOutside = (path: string) => path.replace(ABSOLUTE_OUTSIDE, outside);

const READ_ESCAPES = [
  '/etc/passwd',
  `${ABSOLUTE_OUTSIDE}/secret.txt`,
  '/',
  '../outside/secret.txt',
  'docs/../../outside/secret.txt',
  './../outside/secret.txt',
  'docs/nested/../../../outside/secret.txt',
  '..',
  '../',
  'C:\\Windows\\win.ini',
  'C:/Windows/win.ini',
  '..\\outside\\secret.txt',
  '\\\\server\\share',
  'out-dir/secret.txt',
  'rel-out/secret.txt',
  'secret.md',
  'docs/deep-link/secret.txt',
  'chain1',
  'loop',
  'root-parent/outside/secret.txt',
  'self/root-parent/outside/secret.txt',
  'hard.md',
  'dangling.md',
  'file\0name',
  '',
];

const GIT_PATHS = [
  '.git',
  '.git/',
  '.git/config',
  '.GIT/config',
  '.Git/HEAD',
  './.git/config',
  'docs/../.git/config',
  'docs/.././.git/config',
  '.git./config',
  '.git /config',
  '.g\u200cit/config',
  '\ufeff.git/config',
  'GIT~1/config',
  'git-link/config',
  'git-config.md',
  'self/.git/config',
  'docs/nested/.git/config',
];

function expectRefused(output: string) {
  expect(output).toMatch(/^Error: /);
  expect(output).not.toContain(SECRET);
  expect(output).not.toContain('repositoryformatversion');
  // Host paths never reach the model.
  expect(output).not.toContain(base);
}

describe('path confinement', () => {
  async function expectNothingChanged(before: { outside: string[]; git: string[] }) {
    expect(await snapshot(outside)).toEqual(before.outside);
    expect(await snapshot(join(repo, '.git'))).toEqual(before.git);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    expect(await readFile(join(repo, '.git', 'config'), 'utf8')).toBe(GIT_CONFIG);
  }
  async function state() {
    return { outside: await snapshot(outside), git: await snapshot(join(repo, '.git')) };
  }

  it.each([...READ_ESCAPES, ...GIT_PATHS])('read_file refuses %j', async (path) => {
    expectRefused(await harness(repo).call('read_file', { path: withOutside(path) }));
  });

  it.each([...READ_ESCAPES, ...GIT_PATHS])('edit_file refuses %j', async (path) => {
    const before = await state();
    expectRefused(
      await harness(repo).call('edit_file', {
        path: withOutside(path),
        old_string: 'T',
        new_string: 'PWNED',
      }),
    );
    await expectNothingChanged(before);
  });

  const WRITE_ESCAPES = [
    ...READ_ESCAPES,
    ...GIT_PATHS,
    '.',
    './',
    'out-dir/pwned.md',
    'rel-out/pwned.md',
    'out-dir/new/deeper/pwned.md',
    'docs/deep-link/pwned.md',
    'dangling-dir/pwned.md',
    'root-parent/outside/pwned.md',
    '.git/hooks/pre-commit',
    '.GIT/hooks/post-checkout',
    'git-link/hooks/pre-commit',
    'docs/nested/.git/hooks/pre-commit',
    'sub/.git',
    '.gitx/../.git/info/attributes',
  ];

  it.each(WRITE_ESCAPES)('write_file refuses %j and writes nothing', async (path) => {
    const before = await state();
    expectRefused(await harness(repo).call('write_file', { path: withOutside(path), content: 'PWNED' }));
    await expectNothingChanged(before);
  });

  it.each(WRITE_ESCAPES)('move_file refuses moving a page to %j', async (to) => {
    const before = await state();
    expectRefused(await harness(repo).call('move_file', { from: 'docs/page.mdx', to: withOutside(to) }));
    await expectNothingChanged(before);
    expect(await readFile(join(repo, 'docs/page.mdx'), 'utf8')).toContain('# Page');
  });

  // Moving acts on the link itself, never its target: a hard link is a file like any other. A
  // symbolic link that leads outside (or into .git) is refused, since the move would carry it
  // to wherever the branch is merged.
  const MOVE_SOURCES = [...READ_ESCAPES, ...GIT_PATHS, '.'].filter((path) => path !== 'hard.md');

  it.each(MOVE_SOURCES)('move_file refuses moving %j into the working copy', async (from) => {
    const before = await state();
    expectRefused(await harness(repo).call('move_file', { from: withOutside(from), to: 'stolen.md' }));
    await expectNothingChanged(before);
  });

  it.each([
    ['secret.md', 'moved.md'],
    ['chain1', 'moved'],
    ['dangling.md', 'moved.md'],
    ['git-config.md', 'docs/moved.md'],
    ['loop', 'moved'],
    ['out-dir', 'guides/out-dir'],
    // A directory holding a link that leads out (docs/deep-link) moves it along.
    ['docs', 'guides'],
    // Inside now, outside once moved: a relative target moves with the link.
    ['docs/up-link.mdx', 'up-link.mdx'],
  ])('move_file refuses moving the link %j (or what holds it) to %j', async (from, to) => {
    const before = await state();
    const output = await harness(repo).call('move_file', { from, to });
    expect(output).toMatch(
      /^Error: cannot move .* is a symbolic link that (leads|would lead after the move) outside the working copy/,
    );
    await expectNothingChanged(before);
  });

  it('move_file moves a symbolic link that stays inside', async () => {
    const output = await harness(repo).call('move_file', {
      from: 'inside-link.mdx',
      to: 'docs/inside-link.mdx',
    });
    expect(output).toBe('Moved inside-link.mdx to docs/inside-link.mdx.');
  });

  it.each([
    '../outside/secret.txt',
    ABSOLUTE_OUTSIDE,
    'out-dir/secret.txt',
    'rel-out/secret.txt',
    'docs/deep-link/secret.txt',
    'root-parent/outside/secret.txt',
    '.git/config',
    '.git',
    '.GIT/HEAD',
    'git-link/config',
    'docs/nested/.git/config',
    '.',
    'docs',
  ])('delete_file refuses %j', async (path) => {
    const before = await state();
    expectRefused(await harness(repo).call('delete_file', { path: withOutside(path) }));
    await expectNothingChanged(before);
  });

  it.each([
    '../outside',
    ABSOLUTE_OUTSIDE,
    'out-dir',
    'rel-out',
    'docs/deep-link',
    'root-parent',
    '.git',
    'git-link',
    '.GIT',
  ])('list_files refuses the directory %j', async (path) => {
    expectRefused(await harness(repo).call('list_files', { path: withOutside(path) }));
  });

  it.each([
    '../outside',
    ABSOLUTE_OUTSIDE,
    'out-dir',
    'secret.md',
    'hard.md',
    '.git',
    'git-link',
    'git-config.md',
    'chain1',
  ])('search refuses the path %j', async (path) => {
    expectRefused(
      await harness(repo).call('search', {
        pattern: 'SECRET|repositoryformatversion',
        path: withOutside(path),
      }),
    );
  });

  it('never lists or searches what lies behind links or inside .git', async () => {
    const tools = harness(repo);
    const listing = await tools.call('list_files', {});
    expect(listing).not.toContain('secret.txt');
    expect(listing).not.toMatch(/(^|\/)\.git(\/|$)/m);
    expect(listing).not.toContain('hooks');
    expect(listing).toContain('out-dir (symbolic link)');
    expect(listing).toContain('docs/page.mdx');
    expect(await tools.call('search', { pattern: 'SECRET' })).toMatch(/^No matches/);
    expect(await tools.call('search', { pattern: 'repositoryformatversion' })).toMatch(/^No matches/);
  });

  it('deleting a link removes the link, never its target outside', async () => {
    const before = await state();
    expect(await harness(repo).call('delete_file', { path: 'secret.md' })).toBe('Deleted secret.md.');
    await expectNothingChanged(before);
  });

  it('allows what stays inside: `..` that does not escape, links to pages inside', async () => {
    const tools = harness(repo);
    expect(await tools.call('read_file', { path: 'docs/../index.mdx' })).toContain('# Home');
    expect(await tools.call('read_file', { path: './docs/page.mdx' })).toContain('Hello.');
    expect(await tools.call('read_file', { path: 'inside-link.mdx' })).toContain('Hello.');
    expect(await tools.call('read_file', { path: 'self/docs/page.mdx' })).toContain('Hello.');
    expect(await tools.call('write_file', { path: '.github/notes.md', content: 'ok' })).toMatch(/^Created/);
    expect(await tools.call('write_file', { path: '.gitignore', content: 'x' })).toMatch(/^Created/);
  });

  it('works when the working copy itself is reached through a symbolic link', async () => {
    const alias = join(base, 'alias');
    await symlink(repo, alias);
    const tools = harness(alias);
    expect(await tools.call('read_file', { path: 'index.mdx' })).toContain('# Home');
    expect(await tools.call('write_file', { path: 'new/page.mdx', content: '# New\n' })).toBe(
      'Created new/page.mdx (6 bytes).',
    );
    expect(await readFile(join(repo, 'new/page.mdx'), 'utf8')).toBe('# New\n');
    expectRefused(await tools.call('read_file', { path: '../outside/secret.txt' }));
    expectRefused(await tools.call('read_file', { path: 'out-dir/secret.txt' }));
  });

  it('refuses writing below a link to outside nested in an ordinary directory', async () => {
    const tools = harness(repo);
    await mkdir(join(repo, 'later'));
    await symlink(outside, join(repo, 'later', 'sub'));
    const before = await state();
    expectRefused(await tools.call('write_file', { path: 'later/sub/x.md', content: 'PWNED' }));
    await expectNothingChanged(before);
  });
});

describe('normalizeRepoPath', () => {
  it.each([
    ['docs/page.mdx', 'docs/page.mdx'],
    ['./docs//page.mdx', 'docs/page.mdx'],
    ['docs/', 'docs'],
    ['a/b/../c', 'a/c'],
    ['.', '.'],
    ['.gitignore', '.gitignore'],
    ['.github/workflows/x.yml', '.github/workflows/x.yml'],
    ['git/x', 'git/x'],
  ])('%j becomes %j', (input, expected) => {
    expect(normalizeRepoPath(input)).toBe(expected);
  });

  it.each([42, null, undefined, {}])('refuses the non-string %j', (input) => {
    expect(() => normalizeRepoPath(input)).toThrow(/must be a string/);
  });
});

describe('path confinement, property-based', () => {
  // Paths assembled from the dangerous pieces: parent steps, .git spellings, links out and
  // back in. Whatever the combination, nothing outside or under .git is read or written.
  const segment = fc.constantFrom(
    '..',
    '.',
    '',
    '.git',
    '.GIT',
    '.git.',
    'docs',
    'new',
    'page.mdx',
    'out-dir',
    'rel-out',
    'root-parent',
    'self',
    'git-link',
    'secret.md',
    'chain1',
    'dangling-dir',
    'outside',
    'secret.txt',
  );
  const path = fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('/'));

  it('never escapes, whatever the tool and path', async () => {
    const tools = harness(repo);
    const gitBefore = await snapshot(join(repo, '.git'));
    const outsideBefore = await snapshot(outside);
    await fc.assert(
      fc.asyncProperty(path, path, async (a, b) => {
        const outputs = [
          await tools.call('read_file', { path: a }),
          await tools.call('write_file', { path: a, content: 'PWNED' }),
          await tools.call('edit_file', { path: a, old_string: 'T', new_string: 'PWNED' }),
          await tools.call('list_files', { path: a }),
          await tools.call('search', { pattern: 'SECRE[T]|repositoryformatversio[n]', path: a }),
          await tools.call('move_file', { from: a, to: b }),
          await tools.call('delete_file', { path: b }),
        ];
        for (const output of outputs) {
          expect(output).not.toContain(SECRET);
          expect(output).not.toContain('repositoryformatversion');
          expect(output).not.toContain(base);
        }
        expect(await snapshot(outside)).toEqual(outsideBefore);
        expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
        expect(await snapshot(join(repo, '.git'))).toEqual(gitBefore);
        expect(await readFile(join(repo, '.git', 'config'), 'utf8')).toBe(GIT_CONFIG);
      }),
      { numRuns: 150 },
    );
  });
});

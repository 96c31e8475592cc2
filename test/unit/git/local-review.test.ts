import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors.ts';
import { LocalReview } from '../../../src/integrations/codehosts/local-review.ts';
import { createRepository, git, tempDir, writeFiles } from '../../helpers/git-repos.ts';

const BRANCH = 'docwright/abc-guide';
let root: string;
let cleanup: () => void;
let repo: string;
let review: LocalReview;

beforeEach(() => {
  ({ dir: root, cleanup } = tempDir());
  repo = path.join(root, 'docs');
  createRepository(repo, {
    'index.md': '# Home\n',
    'guide.md': '# Guide\n\nOld text.\n',
    'old-name.md': 'moving\n',
  });
  review = new LocalReview({
    tempDir: path.join(root, 'tmp'),
    author: { name: 'Docwright', email: 'docwright@localhost' },
    logger: pino({ level: 'silent' }),
  });
});
afterEach(() => cleanup());

/** Makes the job's branch with two commits, as a pushed job branch would look. */
function makeBranch(): void {
  git(repo, 'checkout', '--quiet', '-b', BRANCH);
  writeFiles(repo, { 'guide.md': '# Guide\n\nNew text with <script>alert(1)</script>.\n' });
  git(repo, 'commit', '--quiet', '-am', 'Rewrite the guide');
  git(repo, 'mv', 'old-name.md', 'new-name.md');
  writeFiles(repo, { 'added.md': 'added\n' });
  git(repo, 'add', '--all');
  git(repo, 'commit', '--quiet', '-m', 'Rename a page and add one');
  git(repo, 'checkout', '--quiet', 'main');
}

const target = () => ({ repository: repo, branch: BRANCH, baseBranch: 'main' });

describe('LocalReview', () => {
  it('describes the branch: commits, files and the diff against the base branch', async () => {
    makeBranch();
    // A later commit on main must not show up as a change of the branch.
    writeFiles(repo, { 'index.md': '# Home, later\n' });
    git(repo, 'commit', '--quiet', '-am', 'Later work on main');

    const result = await review.describe(target());
    expect(result.state).toBe('open');
    expect(result.commits.map((c) => c.subject)).toEqual(['Rename a page and add one', 'Rewrite the guide']);
    expect(result.commits[0]?.author).toBe('Test <test@example.com>');
    expect(result.files).toEqual([
      { path: 'added.md', status: 'added', additions: 1, deletions: 0 },
      { path: 'guide.md', status: 'modified', additions: 1, deletions: 1 },
      { path: 'new-name.md', oldPath: 'old-name.md', status: 'renamed', additions: 0, deletions: 0 },
    ]);
    expect(result.diff).toContain('+New text with <script>alert(1)</script>.');
    expect(result.diff).toContain('rename from old-name.md');
    expect(result.diff).not.toContain('Home, later');
    expect(result.diffTruncated).toBe(false);
  });

  it('reports a missing branch, and a branch with nothing left to merge', async () => {
    expect((await review.describe(target())).state).toBe('missing');
    git(repo, 'branch', BRANCH);
    expect((await review.describe(target())).state).toBe('merged');
  });

  it('tells the state of many branches at once, as describe does: open, merged (by hand too), missing', async () => {
    makeBranch();
    git(repo, 'branch', 'docwright/empty');
    git(repo, 'branch', 'docwright/merged-by-hand', BRANCH);
    git(repo, 'checkout', '--quiet', '-b', 'docwright/merged-by-hand-2');
    writeFiles(repo, { 'by-hand.md': 'by hand\n' });
    git(repo, 'add', '--all');
    git(repo, 'commit', '--quiet', '-m', 'By hand');
    git(repo, 'checkout', '--quiet', 'main');
    git(
      repo,
      'merge',
      '--quiet',
      '--no-ff',
      '-m',
      'Merged on the command line',
      'docwright/merged-by-hand-2',
    );
    // A branch below another's name is not that branch (for-each-ref matches prefixes up to a slash).
    git(repo, 'branch', 'docwright/gone/below');

    const states = await review.branchStates({ repository: repo, baseBranch: 'main' }, [
      BRANCH,
      'docwright/empty',
      'docwright/merged-by-hand-2',
      'docwright/gone',
    ]);
    expect(Object.fromEntries(states)).toEqual({
      [BRANCH]: 'open',
      'docwright/empty': 'merged',
      'docwright/merged-by-hand-2': 'merged',
      'docwright/gone': 'missing',
    });
    for (const branch of states.keys())
      expect((await review.describe({ repository: repo, branch, baseBranch: 'main' })).state).toBe(
        states.get(branch),
      );

    await review.merge(target());
    expect((await review.branchStates({ repository: repo, baseBranch: 'main' }, [BRANCH])).get(BRANCH)).toBe(
      'merged',
    );
    await expect(
      review.branchStates({ repository: repo, baseBranch: 'no-such-base' }, [BRANCH]),
    ).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('truncates a large diff', async () => {
    git(repo, 'checkout', '--quiet', '-b', BRANCH);
    writeFiles(repo, { 'big.md': 'line of text\n'.repeat(10_000) });
    git(repo, 'add', '--all');
    git(repo, 'commit', '--quiet', '-m', 'Big');
    git(repo, 'checkout', '--quiet', 'main');
    const small = new LocalReview({
      tempDir: path.join(root, 'tmp'),
      author: { name: 'D', email: 'd@x' },
      logger: pino({ level: 'silent' }),
      maxDiffBytes: 1000,
    });
    const result = await small.describe(target());
    expect(result.diffTruncated).toBe(true);
    expect(Buffer.byteLength(result.diff)).toBeLessThanOrEqual(1000);
  });

  it('merges into the checked-out base branch and brings its files along', async () => {
    makeBranch();
    const before = git(repo, 'rev-parse', 'main').trim();
    const result = await review.merge(target());
    expect(result.updatedWorktree).toBe(repo);
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(result.sha);
    expect(git(repo, 'log', '-1', '--format=%s|%an|%P', 'main').trim()).toBe(
      `Merge branch '${BRANCH}' into main|Docwright|${before} ${git(repo, 'rev-parse', BRANCH).trim()}`,
    );
    expect(readFileSync(path.join(repo, 'guide.md'), 'utf8')).toContain('New text');
    expect(existsSync(path.join(repo, 'new-name.md'))).toBe(true);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect((await review.describe(target())).state).toBe('merged');
    await expect(review.merge(target())).rejects.toThrow(/already merged/);
    // The temporary worktree is gone.
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(readdirSync(path.join(root, 'tmp'))).toEqual([]);
  });

  it('merges into a bare repository by moving the branch', async () => {
    makeBranch();
    const bare = path.join(root, 'bare.git');
    git(root, 'clone', '--quiet', '--bare', repo, bare);
    const result = await review.merge({ ...target(), repository: `file://${bare}` });
    expect(result.updatedWorktree).toBeNull();
    expect(git(bare, 'rev-parse', 'main').trim()).toBe(result.sha);
    expect(git(bare, 'show', 'main:guide.md')).toContain('New text');
  });

  it('refuses a conflicting merge and changes nothing', async () => {
    makeBranch();
    writeFiles(repo, { 'guide.md': '# Guide\n\nConflicting text on main.\n' });
    git(repo, 'commit', '--quiet', '-am', 'Conflicting edit');
    const before = git(repo, 'rev-parse', 'main').trim();

    const error = await review.merge(target()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('conflict');
    expect((error as Error).message).toContain('conflicts with main in guide.md');
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(before);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });

  it('refuses when local edits in the checked-out base branch would be overwritten', async () => {
    makeBranch();
    const before = git(repo, 'rev-parse', 'main').trim();
    writeFileSync(path.join(repo, 'guide.md'), 'uncommitted edit\n');
    await expect(review.merge(target())).rejects.toThrow(/local changes the merge would overwrite/);
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(before);
    expect(readFileSync(path.join(repo, 'guide.md'), 'utf8')).toBe('uncommitted edit\n');
  });

  it('says when the repository or branch does not exist', async () => {
    await expect(review.merge(target())).rejects.toThrow(`Branch "${BRANCH}" does not exist`);
    await expect(review.describe({ ...target(), repository: path.join(root, 'nowhere') })).rejects.toThrow(
      /No git repository/,
    );
  });
});

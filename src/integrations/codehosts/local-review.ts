import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { conflict, notFound } from '../../domain/errors.ts';
import type {
  BranchReview,
  BranchReviewer,
  MergeResult,
  ReviewFile,
  ReviewTarget,
} from '../../domain/review/branch-review.ts';
import { GitError, GitRunner, type GitRunOptions } from '../git/git-runner.ts';
import { KeyedMutex } from '../git/keyed-mutex.ts';
import { localRepositoryLocation, localRepositoryPath } from '../git/local-repository.ts';

export interface LocalReviewOptions {
  /** Where temporary merge worktrees are made (e.g. `<dataDir>/tmp`). */
  tempDir: string;
  /** Author and committer of merge commits. */
  author: { name: string; email: string };
  logger: Logger;
  maxDiffBytes?: number;
  maxCommits?: number;
}

/** Where a command runs: the repository (maybe bare), or a working tree of it. */
type Where = Pick<GitRunOptions, 'cwd' | 'bare'>;

const STATUS: Record<string, ReviewFile['status']> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
};

// Diffs are for people: never run a repository's external diff or textconv drivers.
const DIFF_FLAGS = ['--no-color', '--no-ext-diff', '--no-textconv', '-M'];

/**
 * The local code host's review: what a job's branch changes against its base branch, and a
 * merge into the base branch that refuses on conflict. The merge is made in a temporary
 * worktree of the repository, so the person's own checkout is never left half-merged.
 */
export class LocalReview implements BranchReviewer {
  private readonly opts: LocalReviewOptions;
  private readonly git: GitRunner;
  private readonly locks = new KeyedMutex();

  constructor(opts: LocalReviewOptions) {
    this.opts = opts;
    this.git = new GitRunner({ logger: opts.logger });
  }

  async describe(target: ReviewTarget): Promise<BranchReview> {
    const repo = await this.repository(target);
    const empty = {
      branch: target.branch,
      baseBranch: target.baseBranch,
      commits: [],
      files: [],
      diff: '',
      diffTruncated: false,
    };
    const refs = target.refs === 'mirrored' ? 'refs/remotes/origin' : 'refs/heads';
    const head = await this.resolve(repo, `${refs}/${target.branch}`);
    if (head === null) return { ...empty, state: 'missing' };
    const base = await this.resolve(repo, `${refs}/${target.baseBranch}`);
    if (base === null) throw notFound(`Base branch "${target.baseBranch}" does not exist in ${repo.cwd}`);

    const range = `${base}..${head}`;
    const log = await this.run(
      [
        'log',
        `--max-count=${this.opts.maxCommits ?? 200}`,
        '--format=%H%x1f%an <%ae>%x1f%aI%x1f%s%x1e',
        range,
        '--',
      ],
      repo,
    );
    const commits = log.stdout
      .split('\x1e')
      .map((record) => record.trim())
      .filter((record) => record !== '')
      .map((record) => {
        const [sha = '', author = '', date = '', subject = ''] = record.split('\x1f');
        return { sha, author, date, subject };
      });
    if (commits.length === 0) return { ...empty, state: 'merged' };

    // Three dots: the branch's own changes since it left the base, not the base's later work.
    const changes = `${base}...${head}`;
    const [nameStatus, numstat, diff] = await Promise.all([
      this.run(['diff', ...DIFF_FLAGS, '--name-status', '-z', changes, '--'], repo),
      this.run(['diff', ...DIFF_FLAGS, '--numstat', '-z', changes, '--'], repo),
      this.run(['diff', ...DIFF_FLAGS, changes, '--'], repo),
    ]);
    const max = this.opts.maxDiffBytes ?? 1024 * 1024;
    const bytes = Buffer.from(diff.stdout, 'utf8');
    return {
      branch: target.branch,
      baseBranch: target.baseBranch,
      state: 'open',
      commits,
      files: parseFiles(nameStatus.stdout, numstat.stdout),
      diff: bytes.length > max ? bytes.subarray(0, max).toString('utf8') : diff.stdout,
      diffTruncated: bytes.length > max,
    };
  }

  /**
   * `merged` when a branch's tip is in the base branch (what `describe` calls merged: no commit
   * of its own left), `missing` when the repository has no such branch, else `open`.
   */
  async branchStates(
    target: Omit<ReviewTarget, 'branch'>,
    branches: readonly string[],
  ): Promise<Map<string, BranchReview['state']>> {
    const states = new Map<string, BranchReview['state']>();
    if (branches.length === 0) return states;
    const repo = await this.repository({ ...target, branch: '' });
    const refs = target.refs === 'mirrored' ? 'refs/remotes/origin' : 'refs/heads';
    const base = await this.resolve(repo, `${refs}/${target.baseBranch}`);
    if (base === null) throw notFound(`Base branch "${target.baseBranch}" does not exist in ${repo.cwd}`);
    // Full ref names as patterns: for-each-ref lists only those (and refs below them, left out here).
    const patterns = branches.map((branch) => `${refs}/${branch}`);
    const listed = (output: string) => new Set(output.split('\n').filter((line) => line !== ''));
    const [present, merged] = await Promise.all([
      this.run(['for-each-ref', '--format=%(refname)', ...patterns], repo).then((r) => listed(r.stdout)),
      this.run(['for-each-ref', '--format=%(refname)', `--merged=${base}`, ...patterns], repo).then((r) =>
        listed(r.stdout),
      ),
    ]);
    for (const branch of branches) {
      const ref = `${refs}/${branch}`;
      states.set(branch, merged.has(ref) ? 'merged' : present.has(ref) ? 'open' : 'missing');
    }
    return states;
  }

  /** Merges the branch into the base branch with a merge commit; refuses on conflict. */
  async merge(target: ReviewTarget): Promise<MergeResult> {
    const repo = await this.repository(target);
    return this.locks.run(repo.cwd, async () => {
      const head = await this.resolve(repo, `refs/heads/${target.branch}`);
      if (head === null) throw notFound(`Branch "${target.branch}" does not exist in ${repo.cwd}`);
      const base = await this.resolve(repo, `refs/heads/${target.baseBranch}`);
      if (base === null) throw notFound(`Base branch "${target.baseBranch}" does not exist in ${repo.cwd}`);
      const ahead = await this.run(['rev-list', '--count', `${base}..${head}`], repo);
      if (ahead.stdout.trim() === '0')
        throw conflict(`Branch "${target.branch}" is already merged into ${target.baseBranch}`);

      const sha = await this.mergeInTemporaryWorktree(repo, target, base, head);
      const updatedWorktree = await this.advanceBase(repo, target.baseBranch, base, sha);
      this.opts.logger.info(
        { repository: repo.cwd, branch: target.branch, base: target.baseBranch, sha },
        'merged branch',
      );
      return { sha, updatedWorktree };
    });
  }

  private async mergeInTemporaryWorktree(
    repo: Where,
    target: ReviewTarget,
    base: string,
    head: string,
  ): Promise<string> {
    await mkdir(this.opts.tempDir, { recursive: true });
    const scratch = await mkdtemp(path.join(this.opts.tempDir, 'review-merge-'));
    const worktree = path.join(scratch, 'worktree');
    try {
      await this.run(['worktree', 'add', '--quiet', '--detach', worktree, base], repo);
      const { name, email } = this.opts.author;
      const merged = await this.run(
        [
          'merge',
          '--no-ff',
          '--no-edit',
          '--no-verify',
          '--quiet',
          '-m',
          `Merge branch '${target.branch}' into ${target.baseBranch}`,
          head,
        ],
        { cwd: worktree },
        { okCodes: [1], config: { 'user.name': name, 'user.email': email } },
      );
      if (merged.code !== 0) {
        const unmerged = await this.run(['diff', '--name-only', '--diff-filter=U', '-z'], { cwd: worktree });
        const files = unmerged.stdout.split('\0').filter((f) => f !== '');
        await this.run(['merge', '--abort'], { cwd: worktree }, { okCodes: [1, 128] });
        throw conflict(
          files.length > 0
            ? `Cannot merge: "${target.branch}" conflicts with ${target.baseBranch} in ${files.join(', ')}. Nothing was changed; resolve the conflict on the branch (or ask for a follow-up) and merge again.`
            : `Cannot merge "${target.branch}" into ${target.baseBranch}: ${merged.stdout.trim() || 'git refused'}`,
        );
      }
      return (await this.run(['rev-parse', 'HEAD'], { cwd: worktree })).stdout.trim();
    } finally {
      await this.run(['worktree', 'remove', '--force', '--force', worktree], repo).catch(() => undefined);
      await rm(scratch, { recursive: true, force: true });
      await this.run(['worktree', 'prune'], repo).catch(() => undefined);
    }
  }

  /**
   * Moves the base branch to the merge commit, only if it still is where the merge started.
   * If it is checked out somewhere (the person's own working tree), that checkout is
   * fast-forwarded so its files follow the branch; git refuses if local edits are in the way.
   */
  private async advanceBase(
    repo: Where,
    baseBranch: string,
    base: string,
    sha: string,
  ): Promise<string | null> {
    const checkout = await this.checkedOutAt(repo, baseBranch);
    if (checkout === null) {
      await this.run(
        ['update-ref', '-m', 'docwright: merge reviewed branch', `refs/heads/${baseBranch}`, sha, base],
        repo,
      ).catch((error: unknown) => {
        throw error instanceof GitError
          ? conflict(`${baseBranch} moved while merging; reload the page and merge again`)
          : error;
      });
      return null;
    }
    const current = await this.resolve(repo, `refs/heads/${baseBranch}`);
    if (current !== base)
      throw conflict(`${baseBranch} moved while merging; reload the page and merge again`);
    try {
      await this.run(['merge', '--ff-only', '--quiet', sha], { cwd: checkout });
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      throw conflict(
        `Cannot update ${baseBranch}: it is checked out at ${checkout} with local changes the merge would overwrite. Commit or stash them, then merge again.`,
      );
    }
    return checkout;
  }

  private async checkedOutAt(repo: Where, branch: string): Promise<string | null> {
    const { stdout } = await this.run(['worktree', 'list', '--porcelain'], repo);
    for (const block of stdout.split('\n\n')) {
      const lines = block.split('\n');
      const dir = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
      if (dir && lines.includes(`branch refs/heads/${branch}`) && !lines.includes('bare')) return dir;
    }
    return null;
  }

  private async repository(target: ReviewTarget): Promise<Where & { cwd: string }> {
    if (!path.isAbsolute(localRepositoryPath(target.repository)))
      throw notFound(`Repository ${target.repository} is not a path on this machine`);
    const repo = await localRepositoryLocation(target.repository);
    const inside = await this.run(['rev-parse', '--git-dir'], repo).catch(() => null);
    if (inside === null) throw notFound(`No git repository at ${repo.cwd}`);
    return repo;
  }

  private async resolve(repo: Where, ref: string): Promise<string | null> {
    const { stdout, code } = await this.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], repo, {
      okCodes: [1],
    });
    return code === 0 ? stdout.trim() : null;
  }

  private run(args: string[], where: Where, opts: Omit<GitRunOptions, 'cwd' | 'bare'> = {}) {
    return this.git.run(args, { ...where, timeoutMs: 120_000, ...opts });
  }
}

function parseFiles(nameStatus: string, numstat: string): ReviewFile[] {
  const files: ReviewFile[] = [];
  const parts = nameStatus.split('\0');
  for (let i = 0; i < parts.length; ) {
    const code = parts[i++] ?? '';
    if (code === '') continue;
    const letter = code[0] ?? '';
    if (letter === 'R' || letter === 'C') {
      const oldPath = parts[i++] ?? '';
      const newPath = parts[i++] ?? '';
      files.push({
        path: newPath,
        oldPath,
        status: STATUS[letter] ?? 'changed',
        additions: null,
        deletions: null,
      });
    } else {
      files.push({
        path: parts[i++] ?? '',
        status: STATUS[letter] ?? 'changed',
        additions: null,
        deletions: null,
      });
    }
  }
  // numstat -z: "add\tdel\tpath\0", or for renames "add\tdel\t\0old\0new\0"; "-" for binary.
  const stats = numstat.split('\0');
  const counts = new Map<string, { additions: number | null; deletions: number | null }>();
  for (let i = 0; i < stats.length; ) {
    const record = stats[i++] ?? '';
    if (record === '') continue;
    const [add = '-', del = '-', name = ''] = record.split('\t');
    let file = name;
    if (file === '') {
      i++; // the old path of a rename; counts are keyed by the new one
      file = stats[i++] ?? '';
    }
    counts.set(file, {
      additions: add === '-' ? null : Number(add),
      deletions: del === '-' ? null : Number(del),
    });
  }
  return files.map((f) => ({ ...f, ...counts.get(f.path) }));
}

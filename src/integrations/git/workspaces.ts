import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { WorkspaceRequest } from '../../domain/agent/documentation-agent.ts';
import type { DocsTree } from '../../domain/agent/tools/validation/docs-tree.ts';
import { OutboundPolicy } from '../../domain/network/outbound-policy.ts';
import { isLocalRepository } from '../../domain/projects/code-host-settings.ts';
import { committedTree } from './committed-tree.ts';
import { GitError, GitRunner, type GitRunOptions, redact } from './git-runner.ts';
import { KeyedMutex } from './keyed-mutex.ts';
import { localRepositoryLocation } from './local-repository.ts';
import { guardRemote, RemoteRefusedError } from './remote-guard.ts';

export type { GitCredentials } from '../../domain/agent/code-host.ts';
// The request shape is the agent's port (domain); this adapter implements it.
export type { WorkspaceRequest } from '../../domain/agent/documentation-agent.ts';
export { GitError } from './git-runner.ts';

export interface PreparedWorkspace {
  dir: string;
  /** True when the working copy was created now; false when an existing one was reset. */
  created: boolean;
  /** True when the job's branch already existed on the remote and the copy continues it. */
  continued: boolean;
  /** The commit the working copy starts from. */
  startSha: string;
}

export interface StartedWorkspace extends PreparedWorkspace {
  /** Settles when the working copy's files are all written. */
  ready: Promise<void>;
}

export interface GitWorkspacesOptions {
  dataDir: string;
  logger: Logger;
  author: { name: string; email: string };
  /** `Name <email>` entries added as Co-authored-by trailers; none unless configured. */
  coAuthors?: string[];
  /** Longest a single git command (clone, fetch, push) may run; default 10 minutes. */
  commandTimeoutMs?: number;
  /** Environment git runs in (tests); default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** Which addresses remotes may be fetched from and pushed to; default public ones only. */
  network?: OutboundPolicy;
}

// Finished working copies kept per project for reuse (each is a full copy of the site).
const PARKED_PER_PROJECT = 2;

/**
 * Per project, a bare mirror of the repository under `<dataDir>/mirrors/<projectId>.git`,
 * fetched before each turn; per job, a git worktree of that mirror under
 * `<dataDir>/workspaces/<jobId>` on the job's branch. Worktrees share the mirror's objects,
 * so a warm preparation is one fetch plus one checkout, never a clone.
 *
 * The mirror's remote-tracking refs (`refs/remotes/origin/*`) hold the remote's branches and
 * its local branches are the jobs' branches, so `fetch --prune` never touches a job's work.
 */
export class GitWorkspaces {
  private readonly opts: GitWorkspacesOptions;
  private readonly git: GitRunner;
  private readonly locks = new KeyedMutex();

  constructor(opts: GitWorkspacesOptions) {
    this.opts = opts;
    this.git = new GitRunner({ logger: opts.logger, ...(opts.env ? { env: opts.env } : {}) });
  }

  mirrorDir(projectId: string): string {
    return path.join(this.opts.dataDir, 'mirrors', `${safeName(projectId, 'project id')}.git`);
  }

  workspaceDir(jobId: string): string {
    return path.join(this.opts.dataDir, 'workspaces', safeName(jobId, 'job id'));
  }

  /** Fetches the mirror, then puts the job's working copy on `branch` (continuing it if it was pushed). */
  async prepare(req: WorkspaceRequest, signal?: AbortSignal): Promise<PreparedWorkspace> {
    const { ready, ...prepared } = await this.begin(req, signal);
    await ready;
    return prepared;
  }

  /**
   * Like prepare, but returns once the working copy is registered on its branch: a new
   * working copy's files (thousands, in a large site) are written in the background, and
   * `ready` settles when they are. The caller can meanwhile read the repository at
   * `startSha` (readCommittedFile) and start the model call.
   */
  async begin(req: WorkspaceRequest, signal?: AbortSignal): Promise<StartedWorkspace> {
    let ready: Promise<void> = Promise.resolve();
    const prepared = await this.register(req, signal, (checkout) => {
      ready = checkout;
    });
    return { ...prepared, ready };
  }

  /**
   * A regular file's text at `sha` in the project's mirror, cut to `maxBytes`; null when it
   * is absent or not a regular file (a symbolic link's target is never followed).
   */
  async readCommittedFile(
    projectId: string,
    sha: string,
    file: string,
    maxBytes: number,
  ): Promise<string | null> {
    checkBranch(sha, 'commit');
    const mirror = this.mirrorDir(projectId);
    const { stdout, code } = await this.inMirror(['ls-tree', '-z', sha, '--', file], mirror, {
      okCodes: [128],
    });
    const entry = /^(100644|100755) blob ([0-9a-f]{40,64})\t/.exec(stdout);
    if (code !== 0 || !entry?.[2]) return null;
    const blob = await this.inMirror(['cat-file', 'blob', entry[2]], mirror, {
      maxBuffer: Math.max(maxBytes, 8 * 1024 * 1024),
    }).catch(() => null);
    return blob === null ? null : blob.stdout.slice(0, maxBytes);
  }

  /**
   * The job's base: the commit where its branch left the base branch (for a first turn, the
   * base branch itself), as a tree to validate without a checkout.
   */
  async baseTree(req: WorkspaceRequest, startSha: string): Promise<DocsTree> {
    checkBranch(startSha, 'commit');
    checkBranch(req.baseBranch, 'base branch');
    const mirror = this.mirrorDir(req.projectId);
    const base = await this.inMirror(
      ['merge-base', `refs/remotes/origin/${req.baseBranch}`, startSha],
      mirror,
      {
        okCodes: [1],
      },
    );
    const sha = base.code === 0 ? base.stdout.trim() : startSha;
    return committedTree(this.git, { cwd: mirror, bare: true }, sha);
  }

  private async register(
    req: WorkspaceRequest,
    signal: AbortSignal | undefined,
    onCheckout: (checkout: Promise<void>) => void,
  ): Promise<PreparedWorkspace> {
    checkRequest(req);
    const mirror = this.mirrorDir(req.projectId);
    const dir = this.workspaceDir(req.jobId);
    return this.locks.run(mirror, async () => {
      await this.ensureMirror(mirror, req, signal);
      const pinned = await this.guard(req.repository, 'fetch');
      await this.inMirror(['fetch', '--prune', '--no-tags', '--quiet', 'origin'], mirror, {
        credentials: req.credentials,
        config: pinned,
        ...(signal ? { signal } : {}),
      }).catch((error: unknown) => {
        throw describeFetchFailure(error, req.repository);
      });
      const remoteBranch = await this.resolve(mirror, `refs/remotes/origin/${req.branch}`);
      const base = remoteBranch ? null : await this.resolve(mirror, `refs/remotes/origin/${req.baseBranch}`);
      const startSha = remoteBranch ?? base;
      if (startSha === null) {
        throw new GitError(
          `Base branch "${req.baseBranch}" does not exist in ${redact(req.repository)}`,
          null,
          '',
        );
      }
      let created = !(await exists(path.join(dir, '.git')));
      if (!created) {
        // A follow-up or a retried turn: start again from what the remote has, dropping
        // anything a crashed attempt left behind (reset rewrites only the files that differ).
        const reused = await this.resetWorktree(dir, req.branch, startSha).then(
          () => true,
          (error: unknown) => {
            this.opts.logger.warn(
              { err: error, jobId: req.jobId },
              'could not reset the working copy; recreating it',
            );
            return false;
          },
        );
        created = !reused;
      }
      if (created) {
        if (await exists(dir)) {
          await this.inMirror(['worktree', 'remove', '--force', '--force', dir], mirror).catch(
            () => undefined,
          );
        }
        await rm(dir, { recursive: true, force: true });
        await mkdir(path.dirname(dir), { recursive: true });
        await this.inMirror(['worktree', 'prune'], mirror);
        if (await this.adoptParked(mirror, req, dir, startSha)) {
          return { dir, created, continued: remoteBranch !== null, startSha };
        }
        await this.inMirror(
          ['worktree', 'add', '--quiet', '--no-track', '--no-checkout', '-B', req.branch, dir, startSha],
          mirror,
        );
        const checkout = this.run(['reset', '--hard', '--quiet', startSha], dir).then(() => undefined);
        // Observed here so a failure is never an unhandled rejection; the caller awaits `ready`.
        checkout.catch(() => undefined);
        onCheckout(checkout);
      }
      return { dir, created, continued: remoteBranch !== null, startSha };
    });
  }

  /** Stages everything and commits it; null (and no commit) when nothing changed. */
  async commitAll(dir: string, message: string): Promise<{ sha: string; files: string[] } | null> {
    const files = await this.changedFiles(dir);
    if (files.length === 0) return null;
    const { name, email } = this.opts.author;
    await this.run(
      [
        'commit',
        '--quiet',
        '--no-verify',
        '--cleanup=strip',
        '-m',
        commitMessage(message, this.opts.coAuthors),
      ],
      dir,
      {
        config: { 'user.name': name, 'user.email': email },
      },
    );
    const sha = (await this.run(['rev-parse', 'HEAD'], dir)).stdout.trim();
    return { sha, files };
  }

  /** Paths changed in the working copy since its last commit (stages them), sorted. */
  async changedFiles(dir: string): Promise<string[]> {
    await this.run(['add', '--all'], dir);
    const { stdout } = await this.run(['diff', '--cached', '--name-only', '--no-renames', '-z'], dir);
    return stdout
      .split('\0')
      .filter((f) => f !== '')
      .sort();
  }

  /**
   * Pushes the job's branch (fast-forward only: a follow-up builds on what was pushed). Into a
   * repository on this machine it is fetched instead, by a git of Docwright's own in that
   * repository: a push would run `git receive-pack` there with that repository's own hooks
   * and configuration, out of the git runner's reach.
   */
  async push(req: WorkspaceRequest, dir: string, signal?: AbortSignal): Promise<void> {
    checkRequest(req);
    const ref = `refs/heads/${req.branch}`;
    if (isLocalRepository(req.repository)) {
      await this.git.run(
        [
          'fetch',
          '--quiet',
          '--no-tags',
          '--no-write-fetch-head',
          '--',
          this.mirrorDir(req.projectId),
          `${ref}:${ref}`,
        ],
        {
          ...(await localRepositoryLocation(req.repository)),
          timeoutMs: this.opts.commandTimeoutMs ?? 10 * 60_000,
          ...(signal ? { signal } : {}),
        },
      );
      return;
    }
    const pinned = await this.guard(req.repository, 'push to');
    await this.run(['push', '--quiet', '--no-verify', 'origin', `${ref}:${ref}`], dir, {
      credentials: req.credentials,
      config: pinned,
      ...(signal ? { signal } : {}),
    });
  }

  /** Removes the job's working copy and its local branch; the mirror stays for the next job. */
  async remove(req: WorkspaceRequest): Promise<void> {
    const mirror = this.mirrorDir(req.projectId);
    const dir = this.workspaceDir(req.jobId);
    await this.locks.run(mirror, async () => {
      const hasMirror = await exists(path.join(mirror, 'HEAD'));
      if (hasMirror && (await exists(dir))) {
        const parked = await this.park(mirror, req.projectId, dir).catch(() => false);
        if (!parked) {
          await this.inMirror(['worktree', 'remove', '--force', '--force', dir], mirror).catch(
            () => undefined,
          );
        }
      }
      await rm(dir, { recursive: true, force: true });
      if (!hasMirror) return;
      await this.inMirror(['worktree', 'prune'], mirror);
      checkBranch(req.branch, 'branch');
      await this.inMirror(['branch', '--quiet', '-D', req.branch], mirror, { okCodes: [1] });
    });
  }

  /** Deletes everything of a project on disk: its mirror, parked copies and jobs' working copies. */
  async removeProject(projectId: string, jobIds: readonly string[]): Promise<void> {
    const mirror = this.mirrorDir(projectId);
    await this.locks.run(mirror, async () => {
      for (const jobId of jobIds) await rm(this.workspaceDir(jobId), { recursive: true, force: true });
      await rm(this.poolDir(projectId), { recursive: true, force: true });
      await rm(mirror, { recursive: true, force: true });
    });
  }

  /** Where finished jobs' working copies wait to be reused by the project's next jobs. */
  poolDir(projectId: string): string {
    return path.join(this.opts.dataDir, 'workspaces', '.pool', safeName(projectId, 'project id'));
  }

  /**
   * Keeps a finished job's working copy for the next job of the same project, detached from
   * the job's branch. Writing every file of a large site costs seconds on a slow disk; a parked
   * copy is brought to the next job's commit by rewriting only the files that differ.
   */
  private async park(mirror: string, projectId: string, dir: string): Promise<boolean> {
    const pool = this.poolDir(projectId);
    const parked = await readdir(pool).catch(() => []);
    if (parked.length >= PARKED_PER_PROJECT) return false;
    await this.run(['checkout', '--quiet', '--detach'], dir);
    await mkdir(pool, { recursive: true });
    await this.inMirror(['worktree', 'move', dir, path.join(pool, randomBytes(6).toString('hex'))], mirror);
    return true;
  }

  /** Moves a parked working copy to `dir` and puts it on the job's branch at `startSha`. */
  private async adoptParked(
    mirror: string,
    req: WorkspaceRequest,
    dir: string,
    startSha: string,
  ): Promise<boolean> {
    const pool = this.poolDir(req.projectId);
    for (const entry of await readdir(pool).catch(() => [])) {
      const parked = path.join(pool, entry);
      try {
        await this.inMirror(['worktree', 'move', parked, dir], mirror);
      } catch {
        // Taken by another process, or damaged: forget it and try the next.
        await this.inMirror(['worktree', 'remove', '--force', '--force', parked], mirror).catch(
          () => undefined,
        );
        await rm(parked, { recursive: true, force: true });
        continue;
      }
      try {
        await this.run(['checkout', '--quiet', '--force', '--no-track', '-B', req.branch, startSha], dir);
        await this.run(['clean', '-ffdxq'], dir);
        return true;
      } catch (error) {
        this.opts.logger.warn({ err: error, jobId: req.jobId }, 'could not reuse a parked working copy');
        await this.inMirror(['worktree', 'remove', '--force', '--force', dir], mirror).catch(() => undefined);
        await rm(dir, { recursive: true, force: true });
        return false;
      }
    }
    return false;
  }

  private async resetWorktree(dir: string, branch: string, startSha: string): Promise<void> {
    await this.run(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], dir);
    await this.run(['reset', '--hard', '--quiet', startSha], dir);
    await this.run(['clean', '-ffdxq'], dir);
  }

  private async ensureMirror(mirror: string, req: WorkspaceRequest, signal?: AbortSignal): Promise<void> {
    if (await exists(path.join(mirror, 'HEAD'))) {
      const { stdout } = await this.inMirror(['config', '--get', 'remote.origin.url'], mirror, {
        okCodes: [1],
      });
      if (stdout.trim() !== req.repository) {
        await this.inMirror(['remote', 'set-url', 'origin', req.repository], mirror);
      }
      return;
    }
    // Built aside and renamed into place, so a crash never leaves a half-made mirror.
    await mkdir(path.dirname(mirror), { recursive: true });
    const staging = `${mirror}.tmp-${randomBytes(4).toString('hex')}`;
    try {
      // An empty template: no hooks or samples from the host user's git setup.
      await this.run(['init', '--bare', '--quiet', '--template=', staging], path.dirname(mirror));
      await this.inMirror(['remote', 'add', 'origin', req.repository], staging);
      await this.inMirror(['config', 'remote.origin.tagOpt', '--no-tags'], staging);
      await this.inMirror(['config', 'gc.autoDetach', 'false'], staging);
      if (signal?.aborted) throw new GitError('git fetch was cancelled', null, '');
      await rename(staging, mirror);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  /** The outgoing-network check of the remote, just before git connects; its pinning settings. */
  private async guard(repository: string, what: string): Promise<Record<string, string>> {
    try {
      return await guardRemote(this.opts.network ?? OutboundPolicy.publicOnly(), repository);
    } catch (error) {
      if (!(error instanceof RemoteRefusedError)) throw error;
      throw new GitError(`Cannot ${what} ${redact(repository)}: ${error.message}`, null, '');
    }
  }

  private async resolve(mirror: string, ref: string): Promise<string | null> {
    const { stdout, code } = await this.inMirror(
      ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`],
      mirror,
      {
        okCodes: [1],
      },
    );
    return code === 0 ? stdout.trim() : null;
  }

  /** A git command in a job's working copy. */
  private run(args: string[], cwd: string, opts: Omit<GitRunOptions, 'cwd'> = {}) {
    return this.git.run(args, { cwd, timeoutMs: this.opts.commandTimeoutMs ?? 10 * 60_000, ...opts });
  }

  /** A git command in a project's bare mirror, named to git explicitly. */
  private inMirror(args: string[], mirror: string, opts: Omit<GitRunOptions, 'cwd'> = {}) {
    return this.run(args, mirror, { ...opts, bare: true });
  }
}

function commitMessage(message: string, coAuthors: string[] | undefined): string {
  const text = message.trim() || 'Update documentation';
  if (!coAuthors || coAuthors.length === 0) return text;
  return `${text}\n\n${coAuthors.map((a) => `Co-authored-by: ${a}`).join('\n')}`;
}

function describeFetchFailure(error: unknown, repository: string): unknown {
  if (!(error instanceof GitError)) return error;
  const where = redact(repository);
  if (
    /Authentication failed|could not read Username|terminal prompts disabled|\b401\b|\b403\b/.test(
      error.stderr,
    )
  ) {
    return new GitError(
      `Cannot fetch ${where}: the code host refused the credentials`,
      error.code,
      error.stderr,
    );
  }
  return new GitError(
    `Cannot fetch ${where}: ${error.message.replace(/^git fetch failed: /, '')}`,
    error.code,
    error.stderr,
  );
}

function checkRequest(req: WorkspaceRequest): void {
  safeName(req.projectId, 'project id');
  safeName(req.jobId, 'job id');
  checkBranch(req.branch, 'branch');
  checkBranch(req.baseBranch, 'base branch');
  if (req.repository.trim() === '' || req.repository.startsWith('-')) {
    throw new GitError(`Repository "${redact(req.repository)}" is not a git URL or path`, null, '');
  }
}

function safeName(value: string, what: string): string {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(value)) throw new GitError(`Invalid ${what} "${value}"`, null, '');
  return value;
}

// git's ref-name rules (git check-ref-format), without spawning git for them.
function checkBranch(branch: string, what: string): void {
  const bad =
    !/^[\w./-]+$/.test(branch) ||
    /(^[./-]|\.\.|\/\/|[./]$|\.lock$|\/\.|@\{)/.test(branch) ||
    branch.split('/').some((part) => part.endsWith('.lock'));
  if (bad) throw new GitError(`Invalid ${what} name "${branch}"`, null, '');
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { OutboundPolicy } from '../../domain/network/outbound-policy.ts';
import { isLocalRepository } from '../../domain/projects/code-host-settings.ts';
import type { RepositoryProbe, RepositoryProbeResult } from '../../domain/projects/repository-probe.ts';
import { GitError, GitRunner } from './git-runner.ts';
import { localRepositoryLocation, localRepositoryPath } from './local-repository.ts';
import { guardRemote, RemoteRefusedError } from './remote-guard.ts';

// A remote that does not answer this fast is reported as unreachable, not waited for.
const REMOTE_TIMEOUT_MS = 15_000;
const BRANCHES_SHOWN = 10;

/** Asks git whether a repository exists and has a branch: locally, or with `git ls-remote`. */
export class GitRepositoryProbe implements RepositoryProbe {
  private readonly git: GitRunner;
  private readonly network: OutboundPolicy;
  constructor(logger: Logger, network: OutboundPolicy) {
    this.git = new GitRunner({ logger });
    this.network = network;
  }

  async probe(repository: string, branch: string): Promise<RepositoryProbeResult> {
    if (isLocalRepository(repository)) return this.probeLocal(localRepositoryPath(repository), branch);
    let pinned: Record<string, string>;
    try {
      pinned = await guardRemote(this.network, repository);
    } catch (error) {
      if (!(error instanceof RemoteRefusedError)) throw error;
      // A name that does not resolve now may later; a refused address will not be fetched.
      return { kind: error.unresolved ? 'unreachable' : 'forbidden', detail: error.message };
    }
    try {
      // Without credentials: a private repository cannot answer yet (they are set after creation).
      const { stdout } = await this.git.run(['ls-remote', '--heads', '--', repository], {
        timeoutMs: REMOTE_TIMEOUT_MS,
        config: pinned,
      });
      return this.found(branch, headsOf(stdout));
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      return { kind: 'unreachable', detail: error.message };
    }
  }

  private async probeLocal(dir: string, branch: string): Promise<RepositoryProbeResult> {
    const isDirectory = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDirectory)
      return { kind: 'not-a-repository', detail: `${dir} does not exist or is not a directory` };
    const where = await localRepositoryLocation(dir);
    const run = (args: string[]) => this.git.run(args, { ...where, timeoutMs: REMOTE_TIMEOUT_MS });
    try {
      // Git looks at this directory only, never a repository around it: a folder inside some
      // other repository's working tree is not a repository of its own.
      await run(['rev-parse', '--git-dir']);
      const { stdout } = await run(['for-each-ref', '--format=%(refname)', 'refs/heads']);
      return this.found(branch, stdout.split('\n').filter(Boolean));
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      const top = await enclosingWorkingTree(dir);
      if (top !== null)
        return {
          kind: 'not-a-repository',
          detail: `${dir} is inside the git repository ${top}, not one itself`,
        };
      return {
        kind: 'not-a-repository',
        detail: `${dir} is not a git repository (neither a working tree with .git in it nor a bare repository)`,
      };
    }
  }

  private found(branch: string, refs: string[]): RepositoryProbeResult {
    if (refs.includes(`refs/heads/${branch}`)) return { kind: 'ok' };
    const branches = refs.map((ref) => ref.replace(/^refs\/heads\//, '')).slice(0, BRANCHES_SHOWN);
    return { kind: 'missing-branch', branches };
  }
}

/** The nearest directory above `dir` holding `.git`, if any (read from the file system, not by git). */
async function enclosingWorkingTree(dir: string): Promise<string | null> {
  for (let current = path.dirname(dir); ; current = path.dirname(current)) {
    if (
      await lstat(path.join(current, '.git')).then(
        () => true,
        () => false,
      )
    )
      return current;
    if (path.dirname(current) === current) return null;
  }
}

function headsOf(lsRemote: string): string[] {
  return lsRemote
    .split('\n')
    .map((line) => line.split('\t')[1])
    .filter((ref): ref is string => ref !== undefined);
}

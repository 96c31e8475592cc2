import path from 'node:path';
import { invalid } from '../errors.ts';
import { isLocalRepository } from './code-host-settings.ts';
import { requireUnderRoots } from './local-repository-roots.ts';
import type { RepositoryProbe } from './repository-probe.ts';

/** Who names a repository, and so where a path may lead. */
export interface RepositoryOrigin {
  /** What a relative path is relative to (default: this process's directory). */
  cwd?: string;
  /**
   * Directories a path must lie under: set for requests over HTTP (DOCWRIGHT_LOCAL_REPOSITORY_ROOTS);
   * absent for the command line, which runs with the server's own rights.
   */
  localRoots?: readonly string[];
}

/**
 * A repository as stored: a URL as given, a path made absolute and, when the origin sets
 * roots, held to them. Credentials in a URL are refused: they belong in the project's settings.
 */
export async function acceptRepository(repository: string, origin: RepositoryOrigin = {}): Promise<string> {
  const value = normaliseRepository(repository, origin.cwd ?? process.cwd());
  if (origin.localRoots && isLocalRepository(value)) await requireUnderRoots(value, origin.localRoots);
  return value;
}

/**
 * Refuses a local path that is not a git repository, and a repository that answers without
 * the branch (naming the branches it has). A remote that cannot be asked (no network, or
 * credentials needed, which are set after creation) is a warning: jobs will say more.
 */
export async function checkRepository(
  probe: RepositoryProbe | null,
  repository: string,
  branch: string,
): Promise<string[]> {
  if (!probe) return [];
  const found = await probe.probe(repository, branch);
  switch (found.kind) {
    case 'ok':
      return [];
    case 'not-a-repository':
      throw invalid(`Repository ${repository} cannot be used: ${found.detail}`);
    case 'missing-branch':
      throw invalid(
        `Repository ${repository} has no branch "${branch}"` +
          (found.branches.length > 0
            ? `; its branches include ${found.branches.join(', ')} (choose one with --ref)`
            : ' (it has no branches yet: push one first)'),
      );
    case 'forbidden':
      throw invalid(`repository ${repository} cannot be used: ${found.detail}`);
    case 'unreachable':
      return [
        `Could not check ${repository} now (${found.detail}). If it is private, store credentials with docwright projects update <id> --token-stdin; each job fetches it and reports a failure clearly.`,
      ];
  }
}

/** The subset of git's ref-name rules that matters for a branch a person types. */
export function validateBranch(branch: string): string {
  const value = branch.trim();
  if (!value || !/^[\w./-]+$/.test(value) || /(^[./-]|\.\.|\/\/|[./]$|\.lock$|@\{)/.test(value)) {
    throw invalid(`"${branch}" is not a valid branch name`);
  }
  return value;
}

/** Remote URLs are kept as given; anything else is a local path, stored absolute. */
function normaliseRepository(repository: string, cwd: string): string {
  const value = repository.trim();
  if (!value) throw invalid('Repository must not be empty: give a git URL or a local path');
  if (/^(https?|ssh|git|file):\/\//.test(value) || /^[\w.-]+@[\w.-]+:/.test(value)) {
    if (/^https?:\/\/[^/]*@/.test(value)) {
      throw invalid('Put credentials in the project settings, not in the repository URL');
    }
    return value;
  }
  return path.resolve(cwd, value);
}

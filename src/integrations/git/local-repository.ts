import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GitRunOptions } from './git-runner.ts';

/** A repository on this machine as stored: an absolute path or a file:// URL. */
export function localRepositoryPath(repository: string): string {
  return repository.startsWith('file://') ? fileURLToPath(repository) : repository;
}

/**
 * How git is pointed at a repository on this machine: its working tree when it holds `.git`,
 * otherwise the directory itself as a bare repository, named explicitly. The path is what the
 * project names, so this is the explicit use `safe.bareRepository=explicit` allows; a bare
 * layout found anywhere else (inside a working tree, say) is never used.
 */
export async function localRepositoryLocation(
  repository: string,
): Promise<Required<Pick<GitRunOptions, 'cwd' | 'bare'>>> {
  const dir = localRepositoryPath(repository);
  const hasDotGit = await lstat(path.join(dir, '.git')).then(
    () => true,
    () => false,
  );
  return { cwd: dir, bare: !hasDotGit };
}

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Runs git synchronously for test set-up, with a fixed identity and no user config. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C' },
    maxBuffer: 256 * 1024 * 1024,
  });
}

export function tempDir(prefix = 'docwright-git-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A non-bare repository at `dir` on branch `main` with one commit of `files`
 * (path → content). Returns the commit id.
 */
export function createRepository(dir: string, files: Record<string, string>, branch = 'main'): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '--quiet', `--initial-branch=${branch}`);
  writeFiles(dir, files);
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '-m', 'Initial documentation');
  return git(dir, 'rev-parse', 'HEAD').trim();
}

/** A bare repository at `bareDir` holding `files` on `main` (made through a scratch clone). */
export function createBareRepository(bareDir: string, files: Record<string, string>): string {
  const scratch = `${bareDir}.src`;
  const sha = createRepository(scratch, files);
  git(path.dirname(bareDir), 'clone', '--quiet', '--bare', scratch, bareDir);
  rmSync(scratch, { recursive: true, force: true });
  return sha;
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    const target = path.join(dir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

/** Commits `files` on `branch` of a bare repository by way of a temporary clone. */
export function commitToBare(
  bareDir: string,
  branch: string,
  files: Record<string, string>,
  message: string,
): string {
  const { dir, cleanup } = tempDir();
  try {
    git(dir, 'clone', '--quiet', bareDir, 'work');
    const work = path.join(dir, 'work');
    git(work, 'checkout', '--quiet', '-B', branch, `origin/${branch}`);
    writeFiles(work, files);
    git(work, 'add', '--all');
    git(work, 'commit', '--quiet', '-m', message);
    git(work, 'push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`);
    return git(work, 'rev-parse', 'HEAD').trim();
  } finally {
    cleanup();
  }
}

/** Branch names of a repository (bare or not). */
export function branches(repo: string): string[] {
  return git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads')
    .split('\n')
    .filter((b) => b !== '');
}

import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { invalid } from '../errors.ts';

/**
 * Refuses a repository path on this machine that does not lie under one of `roots` (the
 * setting DOCWRIGHT_LOCAL_REPOSITORY_ROOTS), symbolic links resolved as far as they exist.
 * Whether the path exists, is a file or is a link to nothing, the refusal is the same words,
 * so the API cannot be used to learn what the server's disks hold outside the roots.
 */
export async function requireUnderRoots(repository: string, roots: readonly string[]): Promise<void> {
  const dir = repository.startsWith('file://') ? fileURLToPath(repository) : repository;
  const real = await resolvedLocation(path.resolve(dir));
  for (const root of roots) {
    const realRoot = await realpath(root).catch(() => path.resolve(root));
    if (real !== null && (real === realRoot || real.startsWith(realRoot + path.sep))) return;
  }
  throw invalid(
    `repository: a path on this server must lie under ${roots.length === 1 ? 'the directory' : 'one of the directories'} ${roots.join(', ')} (DOCWRIGHT_LOCAL_REPOSITORY_ROOTS); give a git URL, or ask the server's operator to allow the directory`,
  );
}

/**
 * Where `absolute` really is: the real path of its deepest existing ancestor with the missing
 * rest appended; null when an existing part cannot be resolved (a link to nothing, a loop).
 */
async function resolvedLocation(absolute: string): Promise<string | null> {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    const exists = await lstat(current).then(
      () => true,
      () => false,
    );
    if (exists) {
      const real = await realpath(current).catch(() => null);
      return real === null ? null : path.join(real, ...missing.reverse());
    }
    const parent = path.dirname(current);
    if (parent === current) return null;
    missing.push(path.basename(current));
    current = parent;
  }
}

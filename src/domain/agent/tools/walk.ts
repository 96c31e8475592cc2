import { readdir } from 'node:fs/promises';
import { posix } from 'node:path';
import { isSkippedDirectoryName } from './workspace.ts';

export interface WalkEntry {
  /** Repository-relative path, forward slashes. */
  relative: string;
  /** Absolute path (under the real root, no symbolic link followed on the way). */
  absolute: string;
  /** A symbolic link is reported, never followed. */
  kind: 'file' | 'symlink';
}

/**
 * Every file under `start`, depth first in name order, without following symbolic links and
 * without entering `.git` or `node_modules`. `start` is an already-checked real directory.
 */
export async function* walkFiles(
  start: { absolute: string; relative: string },
  signal?: AbortSignal,
): AsyncGenerator<WalkEntry> {
  const pending = [start];
  while (pending.length > 0) {
    signal?.throwIfAborted();
    const dir = pending.pop();
    if (dir === undefined) break;
    const entries = await readdir(dir.absolute, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirectories: { absolute: string; relative: string }[] = [];
    for (const entry of entries) {
      // `.git` may also be a file (a worktree's pointer to its git directory) or a link.
      if (isSkippedDirectoryName(entry.name)) continue;
      const relative = dir.relative === '.' ? entry.name : `${dir.relative}/${entry.name}`;
      const absolute = posix.join(dir.absolute, entry.name);
      if (entry.isDirectory()) {
        subdirectories.push({ absolute, relative });
      } else if (entry.isSymbolicLink()) {
        yield { relative, absolute, kind: 'symlink' };
      } else if (entry.isFile()) {
        yield { relative, absolute, kind: 'file' };
      }
    }
    // Pushed in reverse so the stack pops them in name order.
    for (const sub of subdirectories.reverse()) pending.push(sub);
  }
}

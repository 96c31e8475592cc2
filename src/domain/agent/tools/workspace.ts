import { constants } from 'node:fs';
import { lstat, mkdir, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { posix, sep } from 'node:path';
import { ToolError } from './tool-error.ts';

/** A path inside the working copy: as the model named it, and where it really is on disk. */
export interface RepoPath {
  /** Normalised, repository-relative, forward slashes; `.` for the root. */
  relative: string;
  /** The real (symlink-free) absolute path; for a path yet to be created, its would-be real path. */
  real: string;
}

// Open flags that refuse a symbolic link as the final component, closing the gap between
// the realpath check and the open.
export const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
export const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW;

const MAX_PATH_CHARS = 1_024;

// Characters that HFS+ ignores in names, so `.g\u200cit` would be `.git` there (git guards the same).
const IGNORABLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u206A-\u206F\uFEFF]/g;

/**
 * True for a name that is, or on some file system would be, the `.git` directory: any casing,
 * trailing dots or spaces (Windows drops them), HFS+-ignorable characters, the 8.3 short name.
 */
export function isGitName(segment: string): boolean {
  const name = segment
    .normalize('NFC')
    .replace(IGNORABLE, '')
    .toLowerCase()
    .replace(/[. ]+$/, '');
  return name === '.git' || name === 'git~1';
}

/** Names never listed, searched or validated: git's own data and installed dependencies. */
export function isSkippedDirectoryName(name: string): boolean {
  return isGitName(name) || name === 'node_modules';
}

/**
 * Checks a path as the model wrote it and normalises it. This is the string-level half of the
 * confinement; the other half (realpath checks) is in {@link Workspace}.
 */
export function normalizeRepoPath(input: unknown, what = 'path'): string {
  if (typeof input !== 'string') throw new ToolError(`${what} must be a string`);
  if (input.length === 0) throw new ToolError(`${what} is empty`);
  if (input.length > MAX_PATH_CHARS)
    throw new ToolError(`${what} is longer than ${MAX_PATH_CHARS} characters`);
  if (input.includes('\0')) throw new ToolError(`${what} contains a NUL character`);
  if (input.includes('\\')) {
    throw new ToolError(`${what} contains a backslash; use forward slashes, e.g. guides/intro.mdx`);
  }
  if (posix.isAbsolute(input) || /^[A-Za-z]:/.test(input)) {
    throw new ToolError(
      'absolute paths are not allowed; use a path relative to the repository root, e.g. guides/intro.mdx',
    );
  }
  let normalized = posix.normalize(input);
  while (normalized.length > 1 && normalized.endsWith('/')) normalized = normalized.slice(0, -1);
  if (normalized === '..' || normalized.startsWith('../')) {
    throw new ToolError(`path escapes the repository: ${input}`);
  }
  if (normalized.split('/').some(isGitName)) {
    throw new ToolError(`access to the .git directory is not allowed: ${input}`);
  }
  return normalized;
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === 'ENOENT';
}

/** ENOENT, or ENOTDIR: a file where a directory was expected, which walking up will name. */
function isMissing(error: unknown): boolean {
  return isNotFound(error) || (error instanceof Error && (error as { code?: unknown }).code === 'ENOTDIR');
}

/**
 * The job's working copy as the tools see it. Every path goes through here: string checks
 * first, then the real path (all symbolic links resolved) must stay inside the working copy
 * and outside `.git`.
 */
export class Workspace {
  readonly workdir: string;
  #root: Promise<string> | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(workdir: string) {
    this.workdir = workdir;
  }

  /**
   * Runs tool calls one at a time. A model may call several tools at once; serialising them
   * means no call can swap a directory for a symbolic link between another call's check and
   * its open.
   */
  exclusive<T>(run: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** The working copy's own real path (it may itself sit behind a symlink such as /tmp). */
  root(): Promise<string> {
    this.#root ??= realpath(this.workdir).catch(() => {
      // Not remembered: the working copy may yet appear.
      this.#root = undefined;
      throw new ToolError('the working copy is missing');
    });
    return this.#root;
  }

  /** The repository-relative form of a real path, or null when it is outside the working copy. */
  async relativeOf(real: string): Promise<string | null> {
    const root = await this.root();
    if (real === root) return '.';
    if (!real.startsWith(root + sep)) return null;
    return real
      .slice(root.length + 1)
      .split(sep)
      .join('/');
  }

  async #checkReal(real: string, requested: string): Promise<void> {
    const relative = await this.relativeOf(real);
    if (relative === null) {
      throw new ToolError(`path escapes the repository through a symbolic link: ${requested}`);
    }
    if (relative.split('/').some(isGitName)) {
      throw new ToolError(`access to the .git directory is not allowed: ${requested}`);
    }
  }

  async #realpath(absolute: string, requested: string): Promise<string> {
    try {
      return await realpath(absolute);
    } catch (error) {
      if (isNotFound(error)) {
        // lstat succeeds where realpath fails: a symbolic link to nothing. Writing through it
        // would create its target, wherever that is.
        const link = await lstat(absolute).catch(() => null);
        if (link?.isSymbolicLink()) {
          throw new ToolError(`${requested} is a symbolic link to a missing target`);
        }
        throw new ToolError(`${requested} does not exist`);
      }
      throw error;
    }
  }

  /** A path that must exist (file or directory), symbolic links resolved and checked. */
  async existing(input: unknown, what = 'path'): Promise<RepoPath> {
    const relative = normalizeRepoPath(input, what);
    const root = await this.root();
    const real = await this.#realpath(posix.join(root, relative), relative);
    await this.#checkReal(real, relative);
    return { relative, real };
  }

  /** An existing regular file, refusing directories, devices, FIFOs and hard-linked files. */
  async existingFile(input: unknown, what = 'path'): Promise<RepoPath & { size: number }> {
    const path = await this.existing(input, what);
    const info = await stat(path.real);
    if (info.isDirectory()) throw new ToolError(`${path.relative} is a directory, not a file`);
    if (!info.isFile()) throw new ToolError(`${path.relative} is not a regular file`);
    // A hard link is another name for a file that may live outside the working copy.
    if (info.nlink > 1) throw new ToolError(`${path.relative} has several hard links; refusing to use it`);
    return { ...path, size: info.size };
  }

  /**
   * An existing directory entry itself, not followed if it is a symbolic link: what
   * moving or deleting acts on. Its parent is resolved and checked like {@link existing}.
   */
  async entry(input: unknown, what = 'path'): Promise<RepoPath & { kind: 'file' | 'directory' | 'symlink' }> {
    const relative = normalizeRepoPath(input, what);
    if (relative === '.') throw new ToolError(`${what} names the repository root`);
    const parent = await this.existing(posix.dirname(relative), what);
    const real = posix.join(parent.real, posix.basename(relative));
    await this.#checkReal(real, relative);
    const info = await lstat(real).catch((error: unknown) => {
      if (isNotFound(error)) throw new ToolError(`${relative} does not exist`);
      throw error;
    });
    if (info.isSymbolicLink()) return { relative, real, kind: 'symlink' };
    if (info.isDirectory()) return { relative, real, kind: 'directory' };
    if (info.isFile()) return { relative, real, kind: 'file' };
    throw new ToolError(`${relative} is not a regular file`);
  }

  /**
   * A path that may or may not exist yet, to be written or created. When it exists it is
   * checked like {@link existing}; otherwise its deepest existing ancestor is, and the missing
   * rest is appended to that ancestor's real path.
   */
  async target(input: unknown, what = 'path'): Promise<RepoPath & { exists: boolean }> {
    const relative = normalizeRepoPath(input, what);
    if (relative === '.') throw new ToolError(`${what} names the repository root, not a file`);
    const root = await this.root();
    const missing: string[] = [];
    let current = relative;
    for (;;) {
      const absolute = posix.join(root, current);
      const exists = await lstat(absolute).then(
        () => true,
        (error: unknown) => {
          if (isMissing(error)) return false;
          throw error;
        },
      );
      if (exists) {
        const real = await this.#realpath(absolute, current);
        await this.#checkReal(real, relative);
        if (missing.length === 0) return { relative, real, exists: true };
        if (!(await stat(real)).isDirectory()) throw new ToolError(`${current} is a file, not a directory`);
        return { relative, real: posix.join(real, ...missing.reverse()), exists: false };
      }
      missing.push(posix.basename(current));
      const parent = posix.dirname(current);
      if (parent === current) break;
      current = parent;
    }
    // Unreachable in practice: the root itself exists.
    throw new ToolError(`${relative} cannot be resolved`);
  }

  /**
   * Refuses moving `source` to `destination` when it is, or (a directory) holds, a symbolic link
   * that leads outside the working copy or into `.git`, where it is now or where it would be:
   * a relative link's target moves with it. Reading and writing through such links are refused
   * already; moving one would carry it, committed, to wherever the branch is merged.
   */
  async checkLinksMove(
    source: RepoPath & { kind: 'file' | 'directory' | 'symlink' },
    destination: RepoPath,
  ): Promise<void> {
    const links =
      source.kind === 'symlink'
        ? [source.real]
        : source.kind === 'directory'
          ? (await readdir(source.real, { recursive: true, withFileTypes: true }))
              .filter((entry) => entry.isSymbolicLink())
              .map((entry) => posix.join(entry.parentPath, entry.name))
          : [];
    for (const link of links) {
      const target = await readlink(link);
      const moved = destination.real + link.slice(source.real.length);
      for (const [where, when] of [
        [link, 'leads'],
        [moved, 'would lead after the move'],
      ] as const) {
        if (!(await this.#leadsInside(posix.resolve(posix.dirname(where), target)))) {
          const name = (await this.relativeOf(link)) ?? source.relative;
          throw new ToolError(
            `cannot move ${source.relative}: ${name} is a symbolic link that ${when} outside the working copy (or into .git)`,
          );
        }
      }
    }
  }

  /** Whether a path, symbolic links resolved as far as they exist, is inside the working copy and outside `.git`. */
  async #leadsInside(absolute: string): Promise<boolean> {
    const missing: string[] = [];
    let current = absolute;
    for (;;) {
      const exists = await lstat(current).then(
        () => true,
        () => false,
      );
      if (exists) {
        const real = await realpath(current).catch(() => null);
        if (real === null) return false;
        const relative = await this.relativeOf(posix.join(real, ...missing.reverse()));
        return relative !== null && !relative.split('/').some(isGitName);
      }
      const parent = posix.dirname(current);
      if (parent === current) return false;
      missing.push(posix.basename(current));
      current = parent;
    }
  }

  /** Creates the parent directories of a target and re-checks where they really are. */
  async ensureParent(path: RepoPath): Promise<void> {
    const parent = posix.dirname(path.real);
    await mkdir(parent, { recursive: true });
    await this.#checkReal(await realpath(parent), path.relative);
  }
}

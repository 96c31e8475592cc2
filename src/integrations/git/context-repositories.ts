import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { Logger } from 'pino';
import type { GitCredentials } from '../../domain/agent/code-host.ts';
import type {
  ConnectedRepository,
  ContextFile,
  ContextFilesPort,
  ContextRepositoryEntry,
  ContextSearchRequest,
  ContextSearchResult,
} from '../../domain/agent/research/connected-repositories.ts';
import { OutboundPolicy } from '../../domain/network/outbound-policy.ts';
import { repositoryPathFromUrl } from '../../domain/projects/code-host-settings.ts';
import { GitError, GitRunner, type GitRunOptions, redact } from './git-runner.ts';
import { KeyedMutex } from './keyed-mutex.ts';
import { guardRemote, RemoteRefusedError } from './remote-guard.ts';

export interface GitContextRepositoriesOptions {
  dataDir: string;
  logger: Logger;
  /** How long a fetched mirror is used before the next turn fetches it again. */
  refreshMs: number;
  network?: OutboundPolicy;
  commandTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/**
 * Folders of code that is not the product's own: never listed or searched (node_modules,
 * vendored dependencies, virtual environments, generated bundles).
 */
export const VENDORED_FOLDERS = [
  'node_modules',
  'vendor',
  'third_party',
  'third-party',
  'bower_components',
  'jspm_packages',
  '.venv',
  'venv',
  'Pods',
  'Carthage',
  '.yarn',
];
const VENDORED = new Set(VENDORED_FOLDERS);
// A regular file (not a link, not a submodule) in `ls-tree -r -l -z`: mode, type, id, size, path.
const TREE_ENTRY = /^(100644|100755) blob ([0-9a-f]{40,64}) +(\d+)\t(.*)$/s;
const LISTINGS_KEPT = 8;
const MAX_LINE_CHARS = 240;
const STAMP = 'docwright-fetched';

interface Listing {
  files: ContextFile[];
  byPath: Map<string, ContextFile>;
  skipped: (file: string) => boolean;
}

/**
 * A project's connected repositories, each a bare mirror under
 * `<dataDir>/context/<projectId>/<name>.git` holding the one branch it reads, fetched when a
 * turn opens it and the last fetch is older than `refreshMs`. Files are read from git objects at
 * the turn's commit (`ls-tree`, `cat-file`, `grep`): nothing is checked out, so nothing can be
 * written. Every command goes through the git runner.
 */
export class GitContextRepositories implements ContextFilesPort {
  private readonly opts: GitContextRepositoriesOptions;
  private readonly git: GitRunner;
  private readonly locks = new KeyedMutex();
  // Listings by mirror and commit: a 50,000-file tree is listed once, not per call.
  private readonly listings = new Map<string, Promise<Listing>>();
  // Which mirror each repository this adapter opened reads from.
  private readonly mirrors = new WeakMap<ConnectedRepository, string>();

  constructor(opts: GitContextRepositoriesOptions) {
    this.opts = opts;
    this.git = new GitRunner({ logger: opts.logger, ...(opts.env ? { env: opts.env } : {}) });
  }

  mirrorDir(projectId: string, name: string): string {
    return path.join(this.projectDir(projectId), `${safeName(name)}.git`);
  }

  projectDir(projectId: string): string {
    return path.join(this.opts.dataDir, 'context', safeName(projectId));
  }

  async open(
    projectId: string,
    entries: readonly ContextRepositoryEntry[],
    options: {
      credentialsFor: (repository: string) => GitCredentials | null;
      pinned?: ReadonlyMap<string, string>;
      signal?: AbortSignal;
    },
  ) {
    const repositories: ConnectedRepository[] = [];
    const unavailable: Array<{ name: string; reason: string }> = [];
    const opened = await Promise.all(
      entries.map((entry) =>
        this.openOne(
          projectId,
          entry,
          options.credentialsFor(entry.repository),
          options.pinned?.get(entry.name),
          options.signal,
        ).then(
          (commit) => ({ entry, commit, reason: null }),
          (error: unknown) => ({ entry, commit: null, reason: describe(error) }),
        ),
      ),
    );
    for (const { entry, commit, reason } of opened) {
      if (commit === null) {
        this.opts.logger.warn(
          { repository: entry.name, reason },
          'connected repository unavailable for this turn',
        );
        unavailable.push({ name: entry.name, reason: reason ?? 'unknown' });
        continue;
      }
      const repository: ConnectedRepository = {
        name: entry.name,
        repository: entry.repository,
        ref: entry.ref,
        commit,
        fileUrl: (file) => fileUrlOf(entry.repository, commit, file),
      };
      this.mirrors.set(repository, this.mirrorDir(projectId, entry.name));
      repositories.push(repository);
    }
    return { repositories, unavailable };
  }

  async list(repository: ConnectedRepository): Promise<ContextFile[]> {
    return (await this.listing(repository)).files;
  }

  async read(repository: ConnectedRepository, file: string, maxBytes: number) {
    const entry = (await this.listing(repository)).byPath.get(file);
    if (entry === undefined) return null;
    if (entry.size > maxBytes) return 'too-large' as const;
    const { stdout } = await this.run(
      ['cat-file', 'blob', `${repository.commit}:${file}`],
      this.mirrorOf(repository),
      {
        binary: true,
        maxBuffer: maxBytes + 1024,
      },
    );
    const bytes = Buffer.from(stdout, 'latin1');
    return bytes.includes(0) ? ('binary' as const) : bytes.toString('utf8');
  }

  async search(repository: ConnectedRepository, request: ContextSearchRequest): Promise<ContextSearchResult> {
    const listing = await this.listing(repository);
    const where = request.path === undefined || request.path === '.' ? [] : [`:(literal)${request.path}`];
    const excluded = VENDORED_FOLDERS.map((folder) => `:(exclude,glob)**/${folder}/**`);
    // Lines beyond those shown are read, then dropped by the glob and .gitignore.
    const maxLines = request.maxMatches * 20;
    const result = await this.run(
      [
        'grep',
        '-n',
        '-z',
        '-I',
        '--no-color',
        '-P',
        ...(request.caseInsensitive ? ['-i'] : []),
        '-e',
        request.pattern,
        repository.commit,
        '--',
        ...(where.length > 0 ? where : ['.']),
        ...excluded,
      ],
      this.mirrorOf(repository),
      {
        okCodes: [1],
        maxLines,
        timeoutMs: request.timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        // Bigger files count as binary, and -I leaves binaries out.
        config: { 'core.bigFileThreshold': '1m' },
        ...(request.signal ? { signal: request.signal } : {}),
      },
    );
    const prefix = `${repository.commit}:`;
    const base =
      request.path === undefined || request.path === '.' ? '' : `${request.path.replace(/\/+$/, '')}/`;
    const matches: ContextSearchResult['matches'] = [];
    let more = result.truncated === true;
    for (const line of result.stdout.split('\n')) {
      const [name, number, ...rest] = line.split('\0');
      if (name === undefined || number === undefined || rest.length === 0 || !name.startsWith(prefix))
        continue;
      const file = name.slice(prefix.length);
      if (listing.skipped(file)) continue;
      const relative = base !== '' && file.startsWith(base) ? file.slice(base.length) : file;
      if (!request.matches(relative)) continue;
      if (matches.length === request.maxMatches) {
        more = true;
        break;
      }
      const text = rest.join('\0');
      matches.push({
        file,
        line: Number(number),
        text: text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text,
      });
    }
    return { matches, more };
  }

  /** Deletes a disconnected repository's mirror (or all of a project's, without `name`). */
  async remove(projectId: string, name?: string): Promise<void> {
    const target = name === undefined ? this.projectDir(projectId) : this.mirrorDir(projectId, name);
    await this.locks.run(target, () => rm(target, { recursive: true, force: true }));
  }

  private async openOne(
    projectId: string,
    entry: ContextRepositoryEntry,
    credentials: GitCredentials | null,
    pinned: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const mirror = this.mirrorDir(projectId, entry.name);
    return this.locks.run(mirror, async () => {
      await this.ensureMirror(mirror, entry.repository);
      const tracking = `refs/remotes/origin/${entry.ref}`;
      const fetched = await stat(path.join(mirror, STAMP)).then(
        (s) => s.mtimeMs,
        () => 0,
      );
      const stale = Date.now() - fetched >= this.opts.refreshMs;
      const wanted = pinned ?? tracking;
      if (stale || (await this.resolve(mirror, wanted)) === null) {
        await this.fetch(mirror, entry, credentials, signal);
      }
      const commit = await this.resolve(mirror, wanted);
      if (commit === null) {
        throw new GitError(
          pinned !== undefined
            ? `commit ${pinned} is not on branch ${entry.ref} of ${redact(entry.repository)}`
            : `branch ${entry.ref} does not exist in ${redact(entry.repository)}`,
          null,
          '',
        );
      }
      return commit;
    });
  }

  private async fetch(
    mirror: string,
    entry: ContextRepositoryEntry,
    credentials: GitCredentials | null,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    let pinned: Record<string, string>;
    try {
      pinned = await guardRemote(this.opts.network ?? OutboundPolicy.publicOnly(), entry.repository);
    } catch (error) {
      if (error instanceof RemoteRefusedError) throw new GitError(`cannot fetch: ${error.message}`, null, '');
      throw error;
    }
    await this.run(
      [
        'fetch',
        '--prune',
        '--no-tags',
        '--quiet',
        'origin',
        `+refs/heads/${entry.ref}:refs/remotes/origin/${entry.ref}`,
      ],
      mirror,
      { credentials, config: pinned, ...(signal ? { signal } : {}) },
    );
    const stamp = path.join(mirror, STAMP);
    const now = new Date();
    await utimes(stamp, now, now).catch(() => writeFile(stamp, ''));
  }

  private async ensureMirror(mirror: string, repository: string): Promise<void> {
    if (await exists(path.join(mirror, 'HEAD'))) {
      const { stdout } = await this.run(['config', '--get', 'remote.origin.url'], mirror, { okCodes: [1] });
      if (stdout.trim() !== repository) {
        await this.run(['remote', 'set-url', 'origin', repository], mirror);
        await rm(path.join(mirror, STAMP), { force: true });
      }
      return;
    }
    // Built aside and renamed into place, so a crash never leaves a half-made mirror.
    await mkdir(path.dirname(mirror), { recursive: true });
    const staging = `${mirror}.tmp-${randomBytes(4).toString('hex')}`;
    try {
      await this.git.run(['init', '--bare', '--quiet', '--template=', staging], {
        cwd: path.dirname(mirror),
      });
      await this.run(['remote', 'add', 'origin', repository], staging);
      await this.run(['config', 'gc.autoDetach', 'false'], staging);
      await rename(staging, mirror);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  private listing(repository: ConnectedRepository): Promise<Listing> {
    const mirror = this.mirrorOf(repository);
    const key = `${mirror}@${repository.commit}`;
    let listing = this.listings.get(key);
    if (listing === undefined) {
      listing = this.readListing(mirror, repository.commit);
      listing.catch(() => this.listings.delete(key));
      this.listings.set(key, listing);
      while (this.listings.size > LISTINGS_KEPT) {
        const oldest = this.listings.keys().next().value;
        if (oldest === undefined) break;
        this.listings.delete(oldest);
      }
    }
    return listing;
  }

  private async readListing(mirror: string, commit: string): Promise<Listing> {
    const { stdout } = await this.run(['ls-tree', '-r', '-l', '-z', '--full-tree', commit], mirror, {
      maxBuffer: 512 * 1024 * 1024,
    });
    const all: Array<ContextFile & { blob: string }> = [];
    for (const record of stdout.split('\0')) {
      const entry = TREE_ENTRY.exec(record);
      if (entry?.[2] && entry[3] && entry[4] !== undefined) {
        all.push({ path: entry[4], size: Number(entry[3]), blob: entry[2] });
      }
    }
    const skipped = await this.ignoredBy(
      mirror,
      all.filter((f) => path.posix.basename(f.path) === '.gitignore'),
    );
    const files = all
      .filter((f) => !skipped(f.path))
      .map(({ path: file, size }) => ({ path: file, size }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { files, byPath: new Map(files.map((f) => [f.path, f])), skipped };
  }

  /** Whether a path lies in a vendored folder or is named by a .gitignore of its folder or above. */
  private async ignoredBy(
    mirror: string,
    gitignores: Array<{ path: string; blob: string; size: number }>,
  ): Promise<(file: string) => boolean> {
    const rules = new Map<string, Ignore>();
    const readable = gitignores.filter((g) => g.size <= 256 * 1024).slice(0, 2_000);
    if (readable.length > 0) {
      const { stdout } = await this.run(['cat-file', '--batch'], mirror, {
        input: `${readable.map((g) => g.blob).join('\n')}\n`,
        maxBuffer: 600 * 1024 * 1024,
      });
      let at = 0;
      for (const gitignore of readable) {
        const header = stdout.indexOf('\n', at);
        if (header === -1) break;
        const size = Number(stdout.slice(at, header).split(' ')[2]);
        if (!Number.isFinite(size)) break;
        const text = stdout.slice(header + 1, header + 1 + size);
        rules.set(path.posix.dirname(gitignore.path), ignore().add(text));
        at = header + 1 + size + 1;
      }
    }
    return (file: string) => {
      const parts = file.split('/');
      if (parts.slice(0, -1).some((part) => VENDORED.has(part))) return true;
      for (let depth = 0; depth < parts.length; depth++) {
        const dir = depth === 0 ? '.' : parts.slice(0, depth).join('/');
        const rule = rules.get(dir);
        if (rule?.ignores(parts.slice(depth).join('/'))) return true;
      }
      return false;
    };
  }

  private async resolve(mirror: string, ref: string): Promise<string | null> {
    const { stdout, code } = await this.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], mirror, {
      okCodes: [1],
    });
    return code === 0 ? stdout.trim() : null;
  }

  private mirrorOf(repository: ConnectedRepository): string {
    const mirror = this.mirrors.get(repository);
    if (mirror === undefined) throw new Error(`${repository.name} was not opened by this adapter`);
    return mirror;
  }

  private run(args: string[], mirror: string, opts: Omit<GitRunOptions, 'cwd' | 'bare'> = {}) {
    return this.git.run(args, {
      cwd: mirror,
      bare: true,
      timeoutMs: this.opts.commandTimeoutMs ?? 10 * 60_000,
      ...opts,
    });
  }
}

/** A link to the file at the commit on GitHub or GitLab (by the repository URL's host); null elsewhere. */
export function fileUrlOf(repository: string, commit: string, file: string): string | null {
  const repoPath = repositoryPathFromUrl(repository);
  if (repoPath === null) return null;
  const host =
    /^[\w.-]+@([\w.-]+):/.exec(repository)?.[1] ??
    (URL.canParse(repository) ? new URL(repository).hostname : '');
  const encoded = file.split('/').map(encodeURIComponent).join('/');
  if (host === 'github.com') return `https://github.com/${repoPath}/blob/${commit}/${encoded}`;
  if (host === 'gitlab.com') return `https://gitlab.com/${repoPath}/-/blob/${commit}/${encoded}`;
  return null;
}

function describe(error: unknown): string {
  return error instanceof Error ? redact(error.message) : String(error);
}

function safeName(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(value) || value.includes('..')) {
    throw new GitError(`Invalid name "${value}"`, null, '');
  }
  return value;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { GitCredentials } from '../../domain/agent/code-host.ts';
import { FIXED_CONFIG, overridesFor, parseConfigListing, SUBCOMMANDS, setsGitProxy } from './git-safety.ts';

export interface GitRunOptions {
  /**
   * The repository's working tree (or, with `bare`, the bare repository itself); omitted for a
   * command that needs no repository (`ls-remote`), which then runs outside every repository.
   * Git never looks for a repository above it.
   */
  cwd?: string;
  /** `cwd` is a bare repository, named to git explicitly (bare ones are never discovered). */
  bare?: boolean;
  /** Sent as an HTTP Authorization header for this one command only. */
  credentials?: GitCredentials | null;
  /** Extra `-c key=value` settings for this command. */
  config?: Record<string, string>;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Largest stdout kept, in bytes; more fails the command (default 64 MiB). */
  maxBuffer?: number;
  /** Exit codes that count as success (default [0]). */
  okCodes?: number[];
  /** Written to the command's standard input (e.g. object ids for `cat-file --batch`). */
  input?: string;
  /** stdout as bytes, for output that is not all text (`cat-file --batch`). */
  binary?: boolean;
  /**
   * Stops the command once stdout holds more than this many lines: the result then has the
   * lines read so far (the last one maybe cut) and `truncated` (`grep` over a large tree).
   */
  maxLines?: number;
}

export interface GitResult {
  /** Text, or latin1 (one character per byte) with `binary`. */
  stdout: string;
  stderr: string;
  code: number;
  /** Stopped at `maxLines`. */
  truncated?: boolean;
}

/** A failed git command. The message names the subcommand and git's own words, never a secret. */
export class GitError extends Error {
  readonly code: number | null;
  readonly stderr: string;
  constructor(message: string, code: number | null, stderr: string) {
    super(message);
    this.name = 'GitError';
    this.code = code;
    this.stderr = stderr;
  }
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/**
 * Runs git through execFile, never a shell. Credentials travel in the child's environment
 * as git configuration (GIT_CONFIG_COUNT/KEY/VALUE, git ≥ 2.31): they never appear on the
 * command line (visible in `ps`), in any config file, in remote URLs or in logs.
 */
export class GitRunner {
  private readonly logger: Logger;
  private readonly env: NodeJS.ProcessEnv;
  constructor(opts: { logger: Logger; env?: NodeJS.ProcessEnv }) {
    this.logger = opts.logger;
    // The child inherits this process's environment (PATH, HOME, proxies): passed through, not read.
    this.env = opts.env ?? process.env;
  }

  async run(args: string[], opts: GitRunOptions): Promise<GitResult> {
    const started = performance.now();
    const subcommand = args[0] ?? '';
    const flags = SUBCOMMANDS[subcommand];
    if (flags === undefined) {
      throw new GitError(
        `git ${subcommand} is not a command Docwright runs: add it to SUBCOMMANDS in src/integrations/git/git-safety.ts once you have checked what it can run`,
        null,
        '',
      );
    }
    const where = await this.location(opts);
    // Fixed settings last: a caller's own `config` cannot turn a safety setting off.
    const config = { ...opts.config, ...FIXED_CONFIG };
    const globals = [
      '--no-pager',
      ...Object.entries(config).flatMap(([key, value]) => ['-c', `${key}=${value}`]),
    ];
    const env = this.environment(where);
    // First the configuration this command would see, to neutralise what it names. A failure
    // here (a broken config file) is reported as the command's own.
    const listing = await this.exec(
      subcommand,
      [...globals, 'config', '--list', '--show-scope', '--name-only', '-z'],
      {
        cwd: where.cwd,
        env,
        maxBuffer: 16 << 20,
        ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      },
    );
    const entries = parseConfigListing(listing.stdout);
    const settings: Array<[string, string]> = [
      ...overridesFor(entries),
      ...credentialSettings(opts.credentials),
    ];
    if (setsGitProxy(entries) && env.GIT_PROXY_COMMAND === undefined) env.GIT_PROXY_COMMAND = '';
    const argv = [...globals, subcommand, ...flags, ...args.slice(1)];
    const result = await this.exec(subcommand, argv, {
      ...opts,
      cwd: where.cwd,
      env: { ...env, ...configEnv(settings) },
    });
    this.logger.debug(
      {
        git: redact(args.slice(0, 3).join(' '), secretsOf(opts.credentials)),
        ms: Math.round(performance.now() - started),
      },
      'git',
    );
    return result;
  }

  /** Where git runs, and the environment that holds it to that repository and no other. */
  private async location(opts: GitRunOptions): Promise<{ cwd: string; gitDir: string | null }> {
    if (opts.cwd === undefined) return { cwd: await outsideEveryRepository(), gitDir: null };
    const cwd = path.resolve(opts.cwd);
    return { cwd, gitDir: opts.bare ? cwd : null };
  }

  private environment(where: { cwd: string; gitDir: string | null }): NodeJS.ProcessEnv {
    return {
      ...withoutRepositoryOverrides(this.env),
      // Git looks for the repository in cwd only, never in a directory above it.
      GIT_CEILING_DIRECTORIES: path.dirname(where.cwd),
      ...(where.gitDir ? { GIT_DIR: where.gitDir } : {}),
      GIT_CONFIG_COUNT: '0',
      GIT_TERMINAL_PROMPT: '0',
      GIT_ASKPASS: '',
      SSH_ASKPASS: '',
      GCM_INTERACTIVE: 'never',
      GIT_PAGER: 'cat',
      GIT_EDITOR: 'true',
      GIT_SEQUENCE_EDITOR: 'true',
      // Keep git's messages in English so errors read the same everywhere.
      LC_ALL: 'C',
    };
  }

  /** One git process; failures are named `git <subcommand>`. */
  private exec(
    subcommand: string,
    argv: string[],
    opts: GitRunOptions & { cwd: string; env: NodeJS.ProcessEnv },
  ): Promise<GitResult> {
    const secrets = secretsOf(opts.credentials);
    return new Promise<GitResult>((resolve, reject) => {
      let truncated = false;
      const child = execFile(
        'git',
        argv,
        {
          cwd: opts.cwd,
          env: opts.env,
          timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          killSignal: 'SIGKILL',
          maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024,
          encoding: opts.binary ? 'latin1' : 'utf8',
          windowsHide: true,
          ...(opts.signal ? { signal: opts.signal } : {}),
        },
        (error, stdout, stderr) => {
          if (truncated) return resolve({ stdout, stderr, code: 0, truncated });
          if (!error) return resolve({ stdout, stderr, code: 0 });
          const code = typeof error.code === 'number' ? error.code : null;
          if (code !== null && opts.okCodes?.includes(code)) return resolve({ stdout, stderr, code });
          reject(this.failure(subcommand, error, code, stderr, secrets));
        },
      );
      if (opts.input !== undefined) child.stdin?.end(opts.input);
      const maxLines = opts.maxLines;
      if (maxLines !== undefined) {
        let lines = 0;
        child.stdout?.on('data', (chunk: string | Buffer) => {
          for (let i = chunk.indexOf('\n'); i !== -1 && !truncated; i = chunk.indexOf('\n', i + 1)) {
            if (++lines > maxLines) {
              truncated = true;
              child.kill('SIGKILL');
            }
          }
        });
      }
    });
  }

  private failure(
    subcommand: string,
    error: Error & { killed?: boolean; code?: unknown },
    code: number | null,
    stderr: string,
    secrets: string[],
  ): GitError {
    const command = `git ${subcommand}`.trim();
    if (error.name === 'AbortError') return new GitError(`${command} was cancelled`, code, '');
    if (error.code === 'ENOENT') {
      return new GitError('git is not installed or not on PATH; Docwright needs git 2.31 or later', null, '');
    }
    if (error.killed) return new GitError(`${command} timed out and was stopped`, code, '');
    if (error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
      return new GitError(`${command} produced more output than allowed`, code, '');
    }
    const clean = redact(stderr, secrets).trim();
    const detail = clean.split('\n').slice(-6).join('\n');
    return new GitError(
      `${command} failed${detail ? `: ${detail}` : ` with exit code ${code}`}`,
      code,
      clean,
    );
  }
}

// Variables that would point git at another repository, index or object store than `cwd`
// (set, say, when Docwright is started from inside a git hook).
const REPOSITORY_OVERRIDES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_CEILING_DIRECTORIES',
  'GIT_CONFIG_PARAMETERS',
  // `git config` would read this file instead of the repository's configuration.
  'GIT_CONFIG',
  'GIT_EXTERNAL_DIFF',
];

function withoutRepositoryOverrides(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const name of REPOSITORY_OVERRIDES) delete copy[name];
  for (const name of Object.keys(copy)) if (/^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(name)) delete copy[name];
  return copy;
}

/** The Basic header git sends; GitHub wants `x-access-token`, GitLab accepts `oauth2`. */
function basicHeader(credentials: GitCredentials): string {
  const user = credentials.username ?? 'x-access-token';
  return `Authorization: Basic ${Buffer.from(`${user}:${credentials.token}`).toString('base64')}`;
}

function credentialSettings(credentials: GitCredentials | null | undefined): Array<[string, string]> {
  return credentials ? [['http.extraHeader', basicHeader(credentials)]] : [];
}

/** Settings as GIT_CONFIG_COUNT/KEY/VALUE: no shell or `-c` parsing, any subsection name. */
function configEnv(settings: ReadonlyArray<readonly [string, string]>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { GIT_CONFIG_COUNT: String(settings.length) };
  settings.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

let emptyDirectory: Promise<string> | null = null;

/**
 * A private empty directory to run repository-less commands in: the server's own working
 * directory may be inside some repository, whose configuration git would otherwise read.
 */
function outsideEveryRepository(): Promise<string> {
  emptyDirectory ??= mkdtemp(path.join(tmpdir(), 'docwright-git-')).then((dir) => {
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  });
  return emptyDirectory;
}

function secretsOf(credentials: GitCredentials | null | undefined): string[] {
  if (!credentials) return [];
  const header = basicHeader(credentials);
  return [credentials.token, header.slice(header.lastIndexOf(' ') + 1)].filter((s) => s.length >= 4);
}

/** Removes known secrets and any user:password in URLs from text meant for people. */
export function redact(text: string, secrets: string[] = []): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('[redacted]');
  return out.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1[redacted]@');
}

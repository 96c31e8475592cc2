import { execFile } from 'node:child_process';
import type { Logger } from 'pino';
import type { GitCredentials } from '../../domain/agent/code-host.ts';

export interface GitRunOptions {
  cwd: string;
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
}

export interface GitResult {
  /** Text, or latin1 (one character per byte) with `binary`. */
  stdout: string;
  stderr: string;
  code: number;
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

// Settings that keep git non-interactive and independent of the host user's habits:
// no credential helpers (credentials come from Docwright only), no signing prompts.
const BASE_CONFIG: Record<string, string> = {
  'credential.helper': '',
  'commit.gpgSign': 'false',
  'tag.gpgSign': 'false',
  'advice.detachedHead': 'false',
  'init.defaultBranch': 'main',
};

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
    const config = { ...BASE_CONFIG, ...opts.config };
    const argv = [...Object.entries(config).flatMap(([key, value]) => ['-c', `${key}=${value}`]), ...args];
    const secrets = secretsOf(opts.credentials);
    const env: NodeJS.ProcessEnv = {
      ...withoutRepositoryOverrides(this.env),
      GIT_TERMINAL_PROMPT: '0',
      GIT_ASKPASS: '',
      SSH_ASKPASS: '',
      GCM_INTERACTIVE: 'never',
      // Keep git's messages in English so errors read the same everywhere.
      LC_ALL: 'C',
      ...credentialEnv(opts.credentials),
    };
    const started = performance.now();
    const result = await new Promise<GitResult>((resolve, reject) => {
      const child = execFile(
        'git',
        argv,
        {
          cwd: opts.cwd,
          env,
          timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          killSignal: 'SIGKILL',
          maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024,
          encoding: opts.binary ? 'latin1' : 'utf8',
          windowsHide: true,
          ...(opts.signal ? { signal: opts.signal } : {}),
        },
        (error, stdout, stderr) => {
          if (!error) return resolve({ stdout, stderr, code: 0 });
          const code = typeof error.code === 'number' ? error.code : null;
          if (code !== null && opts.okCodes?.includes(code)) return resolve({ stdout, stderr, code });
          reject(this.failure(args, error, code, stderr, secrets));
        },
      );
      if (opts.input !== undefined) child.stdin?.end(opts.input);
    });
    this.logger.debug(
      { git: redact(args.slice(0, 3).join(' '), secrets), ms: Math.round(performance.now() - started) },
      'git',
    );
    return result;
  }

  private failure(
    args: string[],
    error: Error & { killed?: boolean; code?: unknown },
    code: number | null,
    stderr: string,
    secrets: string[],
  ): GitError {
    const command = `git ${args[0] ?? ''}`.trim();
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

function credentialEnv(credentials: GitCredentials | null | undefined): NodeJS.ProcessEnv {
  if (!credentials) return { GIT_CONFIG_COUNT: '0' };
  return {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: basicHeader(credentials),
  };
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

import path from 'node:path';
import { invalid } from '../errors.ts';
import { type SecretBox, SecretBoxError } from '../secrets/secret-box.ts';

// A project's code host as stored in its settings (`codeHost`), opened for use, and the
// repository facts it depends on. The CodeHost port the agent talks to is in domain/agent.

export const CODE_HOST_KINDS = ['github', 'gitlab', 'local'] as const;
export type CodeHostKind = (typeof CODE_HOST_KINDS)[number];

export type GitHubAuth =
  | { type: 'token'; token: string }
  | { type: 'app'; appId: string; privateKey: string; installationId: number };

/** A project's code host with its credentials opened: for use in memory only, never logged. */
export type CodeHostSettings =
  | {
      kind: 'github';
      /** REST API root: https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server. */
      apiUrl: string;
      /** `owner/name`; derived from the repository URL when absent. */
      repository?: string;
      auth: GitHubAuth;
    }
  | {
      kind: 'gitlab';
      /** REST API root, e.g. https://gitlab.com/api/v4. */
      apiUrl: string;
      /** `group/subgroup/project`; derived from the repository URL when absent. */
      repository?: string;
      token: string;
    }
  | { kind: 'local' };

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';
export const DEFAULT_GITLAB_API_URL = 'https://gitlab.com/api/v4';

/**
 * How the code host is kept in the project's `settings` JSON (key `codeHost`). The
 * credentials are one sealed string (SecretBox) bound to the project id.
 */
export interface StoredCodeHost {
  kind: CodeHostKind;
  apiUrl?: string;
  repository?: string;
  /** Sealed JSON: {"token"} or {"appId","privateKey","installationId"}. */
  credentials?: string;
}

/** The secret half of a code host's settings, as sealed inside `StoredCodeHost.credentials`. */
export type CodeHostCredentials =
  | { token: string }
  | { appId: string; privateKey: string; installationId: number };

export const credentialsContext = (projectId: string) => `project:${projectId}:code-host`;

/** Reads `settings.codeHost`; null when absent. Malformed content is a clear error. */
export function storedCodeHost(settings: Record<string, unknown>): StoredCodeHost | null {
  const raw = settings.codeHost;
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw invalid('Project setting codeHost is not an object');
  const value = raw as Record<string, unknown>;
  const kind = value.kind;
  if (typeof kind !== 'string' || !(CODE_HOST_KINDS as readonly string[]).includes(kind)) {
    throw invalid(`Project setting codeHost.kind must be one of ${CODE_HOST_KINDS.join(', ')}`);
  }
  const stored: StoredCodeHost = { kind: kind as CodeHostKind };
  for (const key of ['apiUrl', 'repository', 'credentials'] as const) {
    const field = value[key];
    if (field === undefined || field === null) continue;
    if (typeof field !== 'string') throw invalid(`Project setting codeHost.${key} must be a string`);
    stored[key] = field;
  }
  return stored;
}

/**
 * The code host a project's jobs use, credentials opened. Without a configured host, a
 * repository that is a path on this machine uses the local review page; anything else
 * must be configured (`docwright projects update`).
 */
export function resolveCodeHostSettings(
  project: { id: string; repository: string },
  settings: Record<string, unknown>,
  box: SecretBox | null,
): CodeHostSettings {
  const stored = storedCodeHost(settings);
  const kind = stored?.kind ?? (isLocalRepository(project.repository) ? 'local' : null);
  if (kind === null) {
    throw invalid(
      `Project ${project.id} has a remote repository but no code host: run docwright projects update ${project.id} --host github|gitlab --token-stdin`,
    );
  }
  if (kind === 'local') return { kind: 'local' };
  const credentials = openCredentials(project.id, stored, box);
  const repository = stored?.repository !== undefined ? { repository: stored.repository } : {};
  if (kind === 'gitlab') {
    if (!('token' in credentials)) throw invalid(`Project ${project.id}: GitLab needs a token`);
    return {
      kind,
      apiUrl: stored?.apiUrl ?? DEFAULT_GITLAB_API_URL,
      ...repository,
      token: credentials.token,
    };
  }
  const auth: GitHubAuth =
    'token' in credentials ? { type: 'token', ...credentials } : { type: 'app', ...credentials };
  return { kind, apiUrl: stored?.apiUrl ?? DEFAULT_GITHUB_API_URL, ...repository, auth };
}

function openCredentials(
  projectId: string,
  stored: StoredCodeHost | null,
  box: SecretBox | null,
): CodeHostCredentials {
  if (!stored?.credentials) {
    throw invalid(
      `Project ${projectId} has no code host credentials: run docwright projects update ${projectId} --token-stdin`,
    );
  }
  if (!box) {
    throw invalid(
      'Project credentials are stored encrypted but DOCWRIGHT_SECRET_KEY is not configured: start the server with the DOCWRIGHT_SECRET_KEY they were stored with',
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(box.open(stored.credentials, credentialsContext(projectId)));
  } catch (error) {
    if (error instanceof SecretBoxError) throw invalid(`Project ${projectId}: ${error.message}`);
    throw invalid(`Project ${projectId}: stored credentials are unreadable`);
  }
  return parseCredentials(parsed);
}

/** Validates credentials given by a person or read back from storage. */
export function parseCredentials(value: unknown): CodeHostCredentials {
  if (typeof value === 'object' && value !== null) {
    const v = value as Record<string, unknown>;
    if (typeof v.token === 'string' && v.token.trim() !== '') return { token: v.token.trim() };
    if (
      typeof v.appId === 'string' &&
      typeof v.privateKey === 'string' &&
      typeof v.installationId === 'number' &&
      Number.isSafeInteger(v.installationId)
    ) {
      return { appId: v.appId, privateKey: v.privateKey, installationId: v.installationId };
    }
  }
  throw invalid('Credentials must be a token, or a GitHub App id, private key and installation id');
}

/** Draft or ready pull requests: a project setting, draft unless set to false. */
export function draftPullRequests(settings: Record<string, unknown>): boolean {
  return settings.draft !== false;
}

/** A path on this machine (or a file:// URL) rather than a remote git URL. */
export function isLocalRepository(repository: string): boolean {
  if (repository.startsWith('file://')) return true;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(repository) || /^[\w.-]+@[\w.-]+:/.test(repository)) return false;
  return path.isAbsolute(repository);
}

/**
 * The `owner/name` (GitHub) or `group/…/project` (GitLab) path inside a repository URL:
 * https://host/owner/name(.git), ssh://git@host/owner/name.git or git@host:owner/name.git.
 */
export function repositoryPathFromUrl(repository: string): string | null {
  let pathname: string | null = null;
  const scp = /^[\w.-]+@[\w.-]+:(?!\/\/)(.+)$/.exec(repository);
  if (scp?.[1]) pathname = scp[1];
  else if (URL.canParse(repository)) pathname = new URL(repository).pathname;
  if (pathname === null) return null;
  const cleaned = decodeURIComponent(pathname)
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/, '');
  return cleaned.split('/').length >= 2 ? cleaned : null;
}

import type { components } from '@octokit/openapi-webhooks-types';
import { invalid } from '../../errors.ts';

// What a code host's webhook says, reduced to the one thing automations act on: a pull
// request (GitHub) or merge request (GitLab) that was merged. Everything else is answered
// with a reason and starts nothing.

export type CodeHostProvider = 'github' | 'gitlab';

/** A merged pull request or merge request, as its webhook tells it. */
export interface MergedPullRequest {
  provider: CodeHostProvider;
  /** `owner/name` (GitHub) or `group/…/project` (GitLab), as the host spells it. */
  repository: string;
  /** The pull request's number (GitLab: the merge request's iid). */
  number: number;
  url: string;
  title: string;
  description: string;
  /** GitHub: the author's login. GitLab's hook names the author by id only (see authorId). */
  author: string | null;
  /** GitLab: the author's user id. */
  authorId: number | null;
  /** The commit the merge made (GitLab: the squash or last commit when it made none). */
  mergeCommitSha: string | null;
  /** The branch it was merged into. */
  baseBranch: string;
  /** The repository's clone URL over https as the host gives it (GitHub `clone_url`, GitLab `git_http_url`). */
  cloneUrl: string | null;
  /** The host's id for this delivery, the same when the host redelivers it. */
  deliveryId: string | null;
}

export type HookEvent =
  | { kind: 'merged'; pullRequest: MergedPullRequest }
  | { kind: 'ignored'; reason: string };

type Headers = Record<string, string | string[] | undefined>;

const header = (headers: Headers, name: string): string | null => {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first !== '' ? first : null;
};

/** The published payload of GitHub's `pull_request` event with action `closed`. */
type GitHubPullRequestClosed = components['schemas']['webhook-pull-request-closed'];

/**
 * A GitHub delivery: `X-GitHub-Event` names the event; the body is the JSON payload (or,
 * for a webhook set to application/x-www-form-urlencoded, that JSON in a `payload` field).
 */
export function parseGitHubEvent(headers: Headers, rawBody: Buffer): HookEvent {
  const event = header(headers, 'x-github-event');
  if (event === null) throw invalid('X-GitHub-Event header is required');
  if (event === 'ping') return { kind: 'ignored', reason: 'ping: the webhook is set up' };
  if (event !== 'pull_request') {
    return { kind: 'ignored', reason: `${event} events start nothing; only pull_request is used` };
  }
  const payload = readJson(rawBody, header(headers, 'content-type'));
  const action = field(payload, 'action', 'string');
  if (action !== 'closed')
    return { kind: 'ignored', reason: `pull_request ${action}: only a merge starts a run` };
  const body = payload as GitHubPullRequestClosed;
  const pr = object(body.pull_request, 'pull_request');
  if (field(pr, 'merged', 'boolean', 'pull_request') !== true) {
    return { kind: 'ignored', reason: 'pull_request closed without merging' };
  }
  const repository = object(body.repository, 'repository');
  const user = pr.user === null ? null : object(pr.user, 'pull_request.user');
  const base = object(pr.base, 'pull_request.base');
  return {
    kind: 'merged',
    pullRequest: {
      provider: 'github',
      repository: field(repository, 'full_name', 'string', 'repository'),
      number: field(pr, 'number', 'integer', 'pull_request'),
      url: field(pr, 'html_url', 'string', 'pull_request'),
      title: field(pr, 'title', 'string', 'pull_request'),
      description: optionalString(pr, 'body', 'pull_request') ?? '',
      author: user ? field(user, 'login', 'string', 'pull_request.user') : null,
      authorId: null,
      mergeCommitSha: optionalString(pr, 'merge_commit_sha', 'pull_request'),
      baseBranch: field(base, 'ref', 'string', 'pull_request.base'),
      cloneUrl: optionalString(repository, 'clone_url', 'repository'),
      deliveryId: header(headers, 'x-github-delivery'),
    },
  };
}

/**
 * A GitLab delivery: `X-Gitlab-Event: Merge Request Hook` with `object_attributes.action`
 * `merge` (https://docs.gitlab.com/user/project/integrations/webhook_events/#merge-request-events).
 * The delivery id is `Idempotency-Key` (kept across GitLab's retries), else `X-Gitlab-Event-UUID`.
 */
export function parseGitLabEvent(headers: Headers, rawBody: Buffer): HookEvent {
  const event = header(headers, 'x-gitlab-event');
  if (event === null) throw invalid('X-Gitlab-Event header is required');
  if (event !== 'Merge Request Hook') {
    return { kind: 'ignored', reason: `${event} events start nothing; only Merge Request Hook is used` };
  }
  const payload = readJson(rawBody, header(headers, 'content-type'));
  const attributes = object(payload.object_attributes, 'object_attributes');
  const action = optionalString(attributes, 'action', 'object_attributes');
  if (action !== 'merge') {
    return { kind: 'ignored', reason: `merge request ${action ?? 'event'}: only a merge starts a run` };
  }
  const project = object(payload.project, 'project');
  const lastCommit =
    attributes.last_commit === undefined || attributes.last_commit === null
      ? null
      : object(attributes.last_commit, 'object_attributes.last_commit');
  const authorId = attributes.author_id;
  return {
    kind: 'merged',
    pullRequest: {
      provider: 'gitlab',
      repository: field(project, 'path_with_namespace', 'string', 'project'),
      number: field(attributes, 'iid', 'integer', 'object_attributes'),
      url: field(attributes, 'url', 'string', 'object_attributes'),
      title: field(attributes, 'title', 'string', 'object_attributes'),
      description: optionalString(attributes, 'description', 'object_attributes') ?? '',
      author: null,
      authorId: typeof authorId === 'number' && Number.isSafeInteger(authorId) ? authorId : null,
      mergeCommitSha:
        optionalString(attributes, 'merge_commit_sha', 'object_attributes') ??
        optionalString(attributes, 'squash_commit_sha', 'object_attributes') ??
        (lastCommit ? optionalString(lastCommit, 'id', 'object_attributes.last_commit') : null),
      baseBranch: field(attributes, 'target_branch', 'string', 'object_attributes'),
      cloneUrl: optionalString(project, 'git_http_url', 'project'),
      deliveryId: header(headers, 'idempotency-key') ?? header(headers, 'x-gitlab-event-uuid'),
    },
  };
}

type Json = Record<string, unknown>;

function readJson(rawBody: Buffer, contentType: string | null): Json {
  let text = rawBody.toString('utf8');
  if (contentType !== null && /^application\/x-www-form-urlencoded\b/i.test(contentType)) {
    const payload = new URLSearchParams(text).get('payload');
    if (payload === null) throw invalid('payload: a form-encoded delivery needs a payload field');
    text = payload;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('body: not valid JSON');
  }
  return object(value, 'body');
}

function object(value: unknown, name: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`${name}: must be an object`);
  }
  return value as Json;
}

type Kinds = { string: string; boolean: boolean; integer: number };

function field<K extends keyof Kinds>(from: Json, key: string, kind: K, parent?: string): Kinds[K] {
  const value = from[key];
  const ok =
    kind === 'integer' ? typeof value === 'number' && Number.isSafeInteger(value) : typeof value === kind;
  if (!ok)
    throw invalid(`${parent ? `${parent}.` : ''}${key}: must be ${kind === 'integer' ? 'an' : 'a'} ${kind}`);
  return value as Kinds[K];
}

function optionalString(from: Json, key: string, parent: string): string | null {
  const value = from[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid(`${parent}.${key}: must be a string`);
  return value;
}

import { randomUUID } from 'node:crypto';
import { gitHubSignatureHeader } from '../../src/domain/automations/code-change/signature.ts';
import { gitHubExample } from './fake-github.ts';

// Webhooks as GitHub and GitLab send them: payloads built from the hosts' published shapes
// (GitHub's from the examples of its OpenAPI description, checked against the webhook schema
// in the tests; GitLab's from its documented merge request event), and senders that POST them
// with the hosts' own headers.

export interface GitHubMergedInput {
  repository: string;
  number: number;
  title?: string;
  body?: string | null;
  author?: string;
  base?: string;
  mergeCommitSha?: string;
  merged?: boolean;
  /** Where the repository's API lives (urls in the payload point there). */
  apiUrl?: string;
  /** The web origin of html_url (https://github.com for github.com). */
  webOrigin?: string;
  /** The repository's clone URL (default: the web origin's `<owner>/<name>.git`). */
  cloneUrl?: string;
}

type Json = Record<string, unknown>;

/** A `pull_request` event with action `closed` (merged unless `merged: false`). */
export function gitHubMergedPayload(input: GitHubMergedInput) {
  const api = (input.apiUrl ?? 'https://api.github.com').replace(/\/+$/, '');
  const web = input.webOrigin ?? 'https://github.com';
  const [owner = 'acme', name = 'api'] = input.repository.split('/');
  const pull = gitHubExample('pull-request') as Json;
  const repo = gitHubExample('full-repository') as Json;
  const user = { ...(gitHubExample('simple-user') as Json), login: input.author ?? 'octocat' };
  const ownerUser = { ...(repo.owner as Json), login: owner };
  // The example's template_repository has a null language, which the webhook schema does not allow.
  const { template_repository: _template, ...repoFields } = repo;
  const repository = {
    ...repoFields,
    name,
    full_name: input.repository,
    owner: ownerUser,
    html_url: `${web}/${input.repository}`,
    clone_url: input.cloneUrl ?? `${web}/${input.repository}.git`,
    url: `${api}/repos/${input.repository}`,
    default_branch: input.base ?? 'main',
  };
  const merged = input.merged ?? true;
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const side = (template: unknown, ref: string) => ({
    ...(template as Json),
    ref,
    label: `${owner}:${ref}`,
    repo: repository,
    user: ownerUser,
  });
  const pullRequest = {
    ...pull,
    number: input.number,
    url: `${api}/repos/${input.repository}/pulls/${input.number}`,
    html_url: `${web}/${input.repository}/pull/${input.number}`,
    title: input.title ?? `Change #${input.number}`,
    body: input.body === undefined ? 'What changed and why.' : input.body,
    user,
    state: 'closed',
    merged,
    merged_at: merged ? now : null,
    closed_at: now,
    merge_commit_sha: input.mergeCommitSha ?? 'e5bd3914e2e596debea16f433f57875b5b90bcd6',
    base: side(pull.base, input.base ?? 'main'),
    head: side(pull.head, `feature-${input.number}`),
    requested_teams: [],
  };
  return {
    action: 'closed' as string,
    number: input.number,
    pull_request: pullRequest,
    repository,
    sender: user,
  };
}

export interface GitLabMergedInput {
  projectPath: string;
  iid: number;
  title?: string;
  description?: string;
  authorId?: number;
  target?: string;
  mergeCommitSha?: string | null;
  origin?: string;
}

/**
 * A "Merge Request Hook" with action `merge`, shaped like the example of
 * https://docs.gitlab.com/user/project/integrations/webhook_events/#merge-request-events.
 */
export function gitLabMergedPayload(input: GitLabMergedInput) {
  const origin = input.origin ?? 'https://gitlab.example.com';
  const name = input.projectPath.split('/').at(-1) ?? 'project';
  const project = {
    id: 1,
    name,
    description: null,
    web_url: `${origin}/${input.projectPath}`,
    avatar_url: null,
    git_ssh_url: `git@${new URL(origin).host}:${input.projectPath}.git`,
    git_http_url: `${origin}/${input.projectPath}.git`,
    namespace: input.projectPath.split('/').slice(0, -1).join('/'),
    visibility_level: 0,
    path_with_namespace: input.projectPath,
    default_branch: input.target ?? 'main',
    ci_config_path: null,
    homepage: `${origin}/${input.projectPath}`,
    url: `git@${new URL(origin).host}:${input.projectPath}.git`,
    ssh_url: `git@${new URL(origin).host}:${input.projectPath}.git`,
    http_url: `${origin}/${input.projectPath}.git`,
  };
  const now = new Date()
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  const lastCommit = {
    id: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
    message: 'Last commit of the merge request',
    title: 'Last commit of the merge request',
    timestamp: new Date().toISOString(),
    url: `${origin}/${input.projectPath}/-/commit/da1560886d4f094c3e6c9ef40349f7d38b5d27d7`,
    author: { name: 'Ada', email: 'ada@example.com' },
  };
  const authorId = input.authorId ?? 51;
  return {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: { id: 1, name: 'Merger', username: 'merger', avatar_url: null, email: '[REDACTED]' },
    project,
    object_attributes: {
      id: 99,
      iid: input.iid,
      target_branch: input.target ?? 'main',
      source_branch: `feature-${input.iid}`,
      source_project_id: 1,
      author_id: authorId,
      assignee_ids: [],
      assignee_id: null,
      reviewer_ids: [],
      title: input.title ?? `Change !${input.iid}`,
      created_at: now,
      updated_at: now,
      merged_at: now,
      merge_user_id: 1,
      milestone_id: null,
      state: 'merged',
      state_id: 3,
      blocking_discussions_resolved: true,
      work_in_progress: false,
      draft: false,
      first_contribution: false,
      merge_status: 'can_be_merged',
      detailed_merge_status: 'not_open',
      target_project_id: 1,
      description: input.description ?? 'What changed and why.',
      prepared_at: now,
      total_time_spent: 0,
      time_change: 0,
      human_total_time_spent: null,
      human_time_change: null,
      human_time_estimate: null,
      url: `${origin}/${input.projectPath}/-/merge_requests/${input.iid}`,
      source: project,
      target: project,
      last_commit: lastCommit,
      merge_commit_sha:
        input.mergeCommitSha === undefined
          ? 'f0cc0bd5bd1e1bcdc00d8b1ac88fd4c8b0bb5ba3'
          : input.mergeCommitSha,
      squash_commit_sha: null,
      labels: [],
      action: 'merge' as string,
      system: false,
    },
    labels: [],
    changes: { state_id: { previous: 1, current: 3 }, updated_at: { previous: now, current: now } },
    repository: { name, url: project.url, description: null, homepage: project.homepage },
  };
}

export interface SentHook {
  status: number;
  body: Json;
}

/** POSTs a GitHub delivery: the JSON body signed with `secret`, and GitHub's headers. */
export async function sendGitHubHook(
  url: string,
  options: {
    event: string;
    payload: unknown;
    secret: string | null;
    deliveryId?: string;
    signature?: string;
  },
): Promise<SentHook> {
  const body = JSON.stringify(options.payload);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'GitHub-Hookshot/044aadd',
    'x-github-event': options.event,
    'x-github-delivery': options.deliveryId ?? randomUUID(),
    'x-github-hook-id': '292430182',
    'x-github-hook-installation-target-id': '79929171',
    'x-github-hook-installation-target-type': 'repository',
  };
  if (options.signature !== undefined) headers['x-hub-signature-256'] = options.signature;
  else if (options.secret !== null)
    headers['x-hub-signature-256'] = gitHubSignatureHeader(options.secret, body);
  return post(url, headers, body);
}

/** POSTs a GitLab delivery: the JSON body with the secret token in X-Gitlab-Token, and GitLab's headers. */
export async function sendGitLabHook(
  url: string,
  options: { event: string; payload: unknown; token: string | null; idempotencyKey?: string },
): Promise<SentHook> {
  const key = options.idempotencyKey ?? randomUUID();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'GitLab/18.6.0',
    'x-gitlab-event': options.event,
    'x-gitlab-event-uuid': randomUUID(),
    'x-gitlab-webhook-uuid': '0b4e9a3f-4d5c-4a3b-9c53-2c5c2bd8d4c1',
    'x-gitlab-instance': 'https://gitlab.example.com',
    'idempotency-key': key,
  };
  if (options.token !== null) headers['x-gitlab-token'] = options.token;
  return post(url, headers, JSON.stringify(options.payload));
}

async function post(url: string, headers: Record<string, string>, body: string): Promise<SentHook> {
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Json) };
}

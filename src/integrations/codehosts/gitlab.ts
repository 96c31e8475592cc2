import { STATUS_CODES } from 'node:http';
import type { CodeHost, GitCredentials, PullRequestRef } from '../../domain/agent/code-host.ts';
import type {
  ChangedFile,
  PullRequestChanges,
} from '../../domain/automations/code-change/pull-request-changes.ts';
import { CodeHostError, limitBody } from './code-host-error.ts';

export interface GitLabCodeHostOptions {
  /** REST API root, e.g. https://gitlab.com/api/v4 or https://gitlab.example.com/api/v4. */
  apiUrl: string;
  /** `group/subgroup/project` (or the numeric project id). */
  projectPath: string;
  /** A personal, project or group access token with the `api` scope (write_repository for git). */
  token: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

interface MergeRequest {
  iid: number;
  web_url: string;
  source_branch: string;
  state: string;
}

/** One entry of GET /projects/:id/merge_requests/:iid/diffs. */
interface MergeRequestDiff {
  old_path: string;
  new_path: string;
  diff: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  too_large?: boolean;
  collapsed?: boolean;
}

// GitLab's limit for descriptions is 1,048,576 characters.
const MAX_DESCRIPTION = 1_000_000;
// Diffs are read 100 a page (GitLab's most), up to this many files.
const DIFFS_PER_PAGE = 100;
const MAX_LISTED_FILES = 3_000;

/** Merge requests through GitLab's REST API (v4). Drafts are marked the documented way: a `Draft:` title. */
export class GitLabCodeHost implements CodeHost {
  private readonly opts: GitLabCodeHostOptions;
  private readonly api: string;
  private readonly base: string;

  constructor(opts: GitLabCodeHostOptions) {
    this.opts = opts;
    this.api = opts.apiUrl.replace(/\/+$/, '');
    this.base = `/projects/${encodeURIComponent(opts.projectPath)}/merge_requests`;
  }

  async findOpenPullRequest(branch: string): Promise<PullRequestRef | null> {
    const query = new URLSearchParams({ state: 'opened', source_branch: branch, per_page: '10' });
    const list = await this.request<MergeRequest[]>(
      'GET',
      `?${query}`,
      undefined,
      `looking for an open merge request from ${branch}`,
    );
    const found = list.find((mr) => mr.source_branch === branch && mr.state === 'opened');
    return found ? { url: found.web_url, number: found.iid } : null;
  }

  async createPullRequest(input: {
    branch: string;
    base: string;
    title: string;
    body: string;
    draft: boolean;
  }): Promise<PullRequestRef> {
    const title = (input.title.trim() || 'Documentation changes').slice(0, 240);
    try {
      const mr = await this.request<MergeRequest>(
        'POST',
        '',
        {
          source_branch: input.branch,
          target_branch: input.base,
          title: input.draft && !/^draft:/i.test(title) ? `Draft: ${title}` : title,
          description: limitBody(input.body, MAX_DESCRIPTION),
        },
        `creating a merge request from ${input.branch}`,
      );
      return { url: mr.web_url, number: mr.iid };
    } catch (error) {
      // 409: another attempt opened it first; use that one.
      if (error instanceof CodeHostError && error.status === 409) {
        const existing = await this.findOpenPullRequest(input.branch);
        if (existing) return existing;
      }
      throw error;
    }
  }

  async updatePullRequest(ref: PullRequestRef, input: { body: string }): Promise<void> {
    await this.request(
      'PUT',
      `/${ref.number}`,
      { description: limitBody(input.body, MAX_DESCRIPTION) },
      `updating merge request !${ref.number}`,
    );
  }

  /** Assigns the merge request to GitLab users by user name (looked up to their ids first). */
  async requestReviewers(ref: PullRequestRef, logins: string[]): Promise<void> {
    if (logins.length === 0) return;
    const ids: number[] = [];
    for (const login of logins) {
      const query = new URLSearchParams({ username: login });
      const users = await this.request<{ id: number; username: string }[]>(
        'GET',
        `/users?${query}`,
        undefined,
        `looking up the GitLab user ${login}`,
        true,
      );
      const user = users.find((u) => u.username.toLowerCase() === login.toLowerCase());
      if (!user) throw new CodeHostError(`GitLab: there is no user ${login} to assign`, 404);
      ids.push(user.id);
    }
    await this.request(
      'PUT',
      `${this.base}/${ref.number}`,
      { assignee_ids: ids },
      `assigning merge request !${ref.number} to ${logins.join(', ')}`,
      true,
    );
  }

  /**
   * A merge request's author and files with their diffs (GET …/merge_requests/:iid and
   * …/:iid/diffs, GitLab 15.7 and later). A diff GitLab holds back as too large has none.
   */
  async pullRequestChanges(iid: number, maxFiles = MAX_LISTED_FILES): Promise<PullRequestChanges> {
    const mr = await this.request<{ author?: { username?: string } | null }>(
      'GET',
      `${this.base}/${iid}`,
      undefined,
      `reading merge request !${iid}`,
      true,
    );
    const diffs: MergeRequestDiff[] = [];
    let truncated = false;
    for (let page = 1; ; page++) {
      const query = new URLSearchParams({ page: String(page), per_page: String(DIFFS_PER_PAGE) });
      const batch = await this.request<MergeRequestDiff[]>(
        'GET',
        `${this.base}/${iid}/diffs?${query}`,
        undefined,
        `listing the diffs of merge request !${iid}`,
        true,
      );
      diffs.push(...batch);
      if (batch.length < DIFFS_PER_PAGE) break;
      if (diffs.length >= maxFiles) {
        truncated = true;
        break;
      }
    }
    const files = diffs.slice(0, maxFiles).map(changedFile);
    return { files, truncated: truncated || diffs.length > maxFiles, author: mr.author?.username ?? null };
  }

  async gitCredentials(): Promise<GitCredentials> {
    return { username: 'oauth2', token: this.opts.token };
  }

  /** `path` is below the merge requests of the project unless `fromApiRoot`. */
  private async request<T>(
    method: string,
    path: string,
    body: unknown,
    what: string,
    fromApiRoot = false,
  ): Promise<T> {
    const doFetch = this.opts.fetch ?? fetch;
    let response: Response;
    try {
      response = await doFetch(`${this.api}${fromApiRoot ? '' : this.base}${path}`, {
        method,
        headers: {
          'private-token': this.opts.token,
          accept: 'application/json',
          'user-agent': 'docwright',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
      });
    } catch (error) {
      throw new CodeHostError(`GitLab: ${what} failed: ${(error as Error).message}`, null);
    }
    const text = await response.text();
    if (!response.ok) {
      // The status and its standard words only: the body is the host's (or whatever answers at
      // the API root) and may hold anything, so none of it goes into a job's failure reason.
      const hint =
        response.status === 401
          ? ' (check the token)'
          : response.status === 403
            ? ' (the token needs the api scope and Developer access)'
            : response.status === 404
              ? ' (check the project path and that the token can see it)'
              : '';
      throw new CodeHostError(
        `GitLab: ${what} failed with ${response.status} ${STATUS_CODES[response.status] ?? 'error'}${hint}`,
        response.status,
      );
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CodeHostError(`GitLab: ${what}: the answer was not JSON`, response.status);
    }
  }
}

/** A diff entry as a changed file; GitLab gives no counts, so they are counted from the diff. */
function changedFile(entry: MergeRequestDiff): ChangedFile {
  let additions = 0;
  let deletions = 0;
  let inHunk = false;
  for (const line of entry.diff.split('\n')) {
    if (line.startsWith('@@')) inHunk = true;
    else if (inHunk && line.startsWith('+')) additions++;
    else if (inHunk && line.startsWith('-')) deletions++;
  }
  const status: ChangedFile['status'] = entry.new_file
    ? 'added'
    : entry.deleted_file
      ? 'removed'
      : entry.renamed_file
        ? 'renamed'
        : 'modified';
  return {
    path: entry.new_path,
    previousPath: entry.renamed_file ? entry.old_path : null,
    status,
    additions,
    deletions,
    patch: entry.diff === '' || entry.too_large ? null : entry.diff,
  };
}

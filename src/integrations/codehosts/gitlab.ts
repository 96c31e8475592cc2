import type { CodeHost, GitCredentials, PullRequestRef } from '../../domain/agent/code-host.ts';
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

// GitLab's limit for descriptions is 1,048,576 characters.
const MAX_DESCRIPTION = 1_000_000;

/** Merge requests through GitLab's REST API (v4). Drafts are marked the documented way: a `Draft:` title. */
export class GitLabCodeHost implements CodeHost {
  private readonly opts: GitLabCodeHostOptions;
  private readonly base: string;

  constructor(opts: GitLabCodeHostOptions) {
    this.opts = opts;
    this.base = `${opts.apiUrl.replace(/\/+$/, '')}/projects/${encodeURIComponent(opts.projectPath)}/merge_requests`;
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

  async gitCredentials(): Promise<GitCredentials> {
    return { username: 'oauth2', token: this.opts.token };
  }

  private async request<T>(method: string, suffix: string, body: unknown, what: string): Promise<T> {
    const doFetch = this.opts.fetch ?? fetch;
    let response: Response;
    try {
      response = await doFetch(`${this.base}${suffix}`, {
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
      const hint =
        response.status === 401
          ? ' (check the token)'
          : response.status === 403
            ? ' (the token needs the api scope and Developer access)'
            : response.status === 404
              ? ' (check the project path and that the token can see it)'
              : '';
      throw new CodeHostError(
        `GitLab: ${what} failed with ${response.status}: ${errorText(text)}${hint}`,
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

/** GitLab errors come as {"message": …} (string, list or object) or {"error": …}. */
function errorText(text: string): string {
  try {
    const data = JSON.parse(text) as { message?: unknown; error?: unknown };
    const value = data.message ?? data.error;
    if (typeof value === 'string') return value;
    if (value !== undefined) return JSON.stringify(value).slice(0, 500);
  } catch {
    // not JSON: fall through
  }
  return text.slice(0, 200) || 'no details';
}

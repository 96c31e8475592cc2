import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import type { Logger } from 'pino';
import type { CodeHost, GitCredentials, PullRequestRef } from '../../domain/agent/code-host.ts';
import type {
  ChangedFile,
  PullRequestChanges,
} from '../../domain/automations/code-change/pull-request-changes.ts';
import type { GitHubAuth } from '../../domain/projects/code-host-settings.ts';
import { CodeHostError, limitBody } from './code-host-error.ts';

export interface GitHubCodeHostOptions {
  /** https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server. */
  apiUrl: string;
  owner: string;
  repo: string;
  auth: GitHubAuth;
  logger?: Logger;
  /** Injected in tests only; Octokit uses the global fetch otherwise. */
  fetch?: typeof fetch;
}

// GitHub refuses bodies longer than 65,536 characters.
const MAX_BODY = 65_536;
// GitHub lists at most this many files of a pull request.
const MAX_LISTED_FILES = 3_000;

const FILE_STATUS: Record<string, ChangedFile['status']> = {
  added: 'added',
  copied: 'added',
  removed: 'removed',
  renamed: 'renamed',
  modified: 'modified',
  changed: 'modified',
  unchanged: 'modified',
};

/** Pull requests on GitHub or GitHub Enterprise Server through Octokit, with a token or a GitHub App. */
export class GitHubCodeHost implements CodeHost {
  private readonly octokit: Octokit;
  private readonly owner: string;
  private readonly repo: string;
  private readonly auth: GitHubAuth;

  constructor(opts: GitHubCodeHostOptions) {
    this.owner = opts.owner;
    this.repo = opts.repo;
    this.auth = opts.auth;
    const log = opts.logger;
    const common = {
      baseUrl: opts.apiUrl.replace(/\/+$/, ''),
      userAgent: 'docwright',
      request: { ...(opts.fetch ? { fetch: opts.fetch } : {}), retries: 0 },
      // Octokit would otherwise write deprecation warnings to the console.
      log: {
        debug: () => {},
        info: () => {},
        warn: (message: string) => log?.warn({ github: message }, 'GitHub API warning'),
        error: (message: string) => log?.error({ github: message }, 'GitHub API error'),
      },
    };
    this.octokit =
      opts.auth.type === 'token'
        ? new Octokit({ ...common, auth: opts.auth.token })
        : new Octokit({
            ...common,
            authStrategy: createAppAuth,
            auth: {
              appId: opts.auth.appId,
              privateKey: opts.auth.privateKey,
              installationId: opts.auth.installationId,
            },
          });
  }

  async findOpenPullRequest(branch: string): Promise<PullRequestRef | null> {
    const { data } = await this.call(`looking for an open pull request from ${branch}`, () =>
      this.octokit.rest.pulls.list({
        owner: this.owner,
        repo: this.repo,
        state: 'open',
        head: `${this.owner}:${branch}`,
        per_page: 10,
      }),
    );
    const pull = data.find((p) => p.head.ref === branch);
    return pull ? { url: pull.html_url, number: pull.number } : null;
  }

  async createPullRequest(input: {
    branch: string;
    base: string;
    title: string;
    body: string;
    draft: boolean;
  }): Promise<PullRequestRef> {
    const create = (draft: boolean) =>
      this.octokit.rest.pulls.create({
        owner: this.owner,
        repo: this.repo,
        head: input.branch,
        base: input.base,
        title: input.title.slice(0, 256) || 'Documentation changes',
        body: limitBody(input.body, MAX_BODY),
        draft,
      });
    try {
      const { data } = await create(input.draft);
      return { url: data.html_url, number: data.number };
    } catch (error) {
      const message = validationMessage(error);
      // Another attempt got there first: use its pull request rather than failing.
      if (/already exists/i.test(message)) {
        const existing = await this.findOpenPullRequest(input.branch);
        if (existing) return existing;
      }
      // Private repositories on some plans have no drafts: open it ready instead.
      if (input.draft && /draft pull requests are not supported/i.test(message)) {
        const { data } = await this.call(`creating a pull request from ${input.branch}`, () => create(false));
        return { url: data.html_url, number: data.number };
      }
      throw describe(`creating a pull request from ${input.branch}`, error);
    }
  }

  async updatePullRequest(ref: PullRequestRef, input: { body: string }): Promise<void> {
    await this.call(`updating pull request #${ref.number}`, () =>
      this.octokit.rest.pulls.update({
        owner: this.owner,
        repo: this.repo,
        pull_number: ref.number,
        body: limitBody(input.body, MAX_BODY),
      }),
    );
  }

  async requestReviewers(ref: PullRequestRef, logins: string[]): Promise<void> {
    if (logins.length === 0) return;
    await this.call(`requesting a review of pull request #${ref.number} from ${logins.join(', ')}`, () =>
      this.octokit.rest.pulls.requestReviewers({
        owner: this.owner,
        repo: this.repo,
        pull_number: ref.number,
        reviewers: logins,
      }),
    );
  }

  /**
   * A pull request's files with their patches (GET …/pulls/{n}/files, 100 a page). GitHub
   * lists at most 3,000 files and leaves out the patch of a file whose diff is too large.
   */
  async pullRequestChanges(number: number, maxFiles = MAX_LISTED_FILES): Promise<PullRequestChanges> {
    let count = 0;
    const entries = await this.call(`listing the files of pull request #${number}`, () =>
      this.octokit.paginate(
        this.octokit.rest.pulls.listFiles,
        { owner: this.owner, repo: this.repo, pull_number: number, per_page: 100 },
        (response, done) => {
          count += response.data.length;
          if (count >= maxFiles) done();
          return response.data;
        },
      ),
    );
    const files: ChangedFile[] = entries.slice(0, maxFiles).map((entry) => ({
      path: entry.filename,
      previousPath: entry.previous_filename ?? null,
      status: FILE_STATUS[entry.status] ?? 'modified',
      additions: entry.additions,
      deletions: entry.deletions,
      patch: entry.patch ?? null,
    }));
    return {
      files,
      truncated: entries.length >= MAX_LISTED_FILES || entries.length > maxFiles,
      author: null,
    };
  }

  async gitCredentials(): Promise<GitCredentials> {
    if (this.auth.type === 'token') return { username: 'x-access-token', token: this.auth.token };
    // An installation token (cached by auth-app until shortly before it expires).
    const auth = (await this.call('getting a GitHub App installation token', () =>
      this.octokit.auth({ type: 'installation' }),
    )) as { token: string };
    return { username: 'x-access-token', token: auth.token };
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw describe(what, error);
    }
  }
}

interface OctokitError {
  status?: number;
  message?: string;
  response?: { data?: unknown };
}

/** GitHub's own words for a 422: the message plus each error's message. */
function validationMessage(error: unknown): string {
  const data = (error as OctokitError).response?.data as
    | { message?: string; errors?: { message?: string; code?: string; field?: string }[] }
    | undefined;
  const parts = [data?.message, ...(data?.errors ?? []).map((e) => e.message ?? [e.field, e.code].join(' '))];
  return parts.filter(Boolean).join(': ');
}

function describe(what: string, error: unknown): CodeHostError {
  const { status, response } = error as OctokitError;
  if (typeof status !== 'number' || response === undefined) {
    // Never reached GitHub (Octokit reports that as a 500 without a response).
    return new CodeHostError(`GitHub: ${what} failed: ${(error as Error).message}`, null);
  }
  const detail = validationMessage(error) || (error as Error).message;
  const hint =
    status === 401
      ? ' (check the token or GitHub App credentials)'
      : status === 404
        ? ' (check the repository name and that the credentials can see it)'
        : status === 403
          ? ' (the credentials lack permission, or a rate limit was hit)'
          : '';
  return new CodeHostError(`GitHub: ${what} failed with ${status}: ${detail}${hint}`, status);
}

/** Credentials for git over HTTPS. Only ever passed to one command at a time, never stored in git. */
export interface GitCredentials {
  /** The Basic-auth user; default `x-access-token` (GitHub). GitLab uses `oauth2`. */
  username?: string;
  token: string;
}

export interface PullRequestRef {
  url: string;
  /** The host's number for it (GitHub PR number, GitLab MR iid; 0 for the local review page). */
  number: number;
}

/** Where a job's branch becomes reviewable: a GitHub pull request, a GitLab merge request, a local page. */
export interface CodeHost {
  findOpenPullRequest(branch: string): Promise<PullRequestRef | null>;
  createPullRequest(input: {
    branch: string;
    base: string;
    title: string;
    body: string;
    draft: boolean;
  }): Promise<PullRequestRef>;
  updatePullRequest(ref: PullRequestRef, input: { body: string }): Promise<void>;
  /**
   * Asks people, by login, to review the pull request (GitHub: requested reviewers; GitLab:
   * assignees, as GitLab user names). Absent where the host has no such thing (the local
   * review page). The host may refuse (the author of a pull request cannot review it, an
   * outsider cannot be asked): the caller treats a failure as a note, not an error.
   */
  requestReviewers?(ref: PullRequestRef, logins: string[]): Promise<void>;
  /** Credentials for fetching and pushing the repository (null: none needed, e.g. a local path). */
  gitCredentials?(): Promise<GitCredentials | null>;
}

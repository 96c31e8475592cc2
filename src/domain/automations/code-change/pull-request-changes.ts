import type { CodeHostProvider } from './events.ts';

/** One file of a pull request, as the host's API lists it. */
export interface ChangedFile {
  path: string;
  /** The old path of a renamed file; otherwise null. */
  previousPath: string | null;
  status: 'added' | 'modified' | 'removed' | 'renamed';
  additions: number;
  deletions: number;
  /** The unified diff of the file (hunks only); null when the host has none (binary, too large). */
  patch: string | null;
}

export interface PullRequestChanges {
  files: ChangedFile[];
  /** True when the host listed no more files than these although the pull request has more. */
  truncated: boolean;
  /** The author's login (GitLab names it in the merge request, not in the webhook). */
  author: string | null;
}

/**
 * Reads a source pull request's files through the host's API (GitHub: pulls/{n}/files;
 * GitLab: merge_requests/{iid}/diffs), with the project's code host credentials.
 */
export interface PullRequestReader {
  changes(pr: {
    provider: CodeHostProvider;
    repository: string;
    number: number;
  }): Promise<PullRequestChanges>;
}

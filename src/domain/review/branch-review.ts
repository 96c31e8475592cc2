import type { TurnSource } from '../jobs/turn-sources.ts';
/** What the review of a local job branch shows, and the port that produces it (git, in integrations/). */

export interface ReviewTarget {
  /** The local repository: an absolute path or a file:// URL. */
  repository: string;
  branch: string;
  baseBranch: string;
  /**
   * Where the branches are: the repository's own (`refs/heads/…`, the default), or, in a
   * project's mirror of a remote repository, its copies of the remote's (`refs/remotes/origin/…`).
   */
  refs?: 'own' | 'mirrored';
}

export interface ReviewCommit {
  sha: string;
  author: string;
  date: string;
  subject: string;
}

export interface ReviewFile {
  path: string;
  /** Set for renames and copies. */
  oldPath?: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'changed';
  /** null for binary files. */
  additions: number | null;
  deletions: number | null;
}

export interface BranchReview {
  branch: string;
  baseBranch: string;
  /** missing: the branch is not in the repository; merged: everything on it is in the base branch. */
  state: 'open' | 'merged' | 'missing';
  commits: ReviewCommit[];
  files: ReviewFile[];
  /** Unified diff of the branch against where it left the base branch. */
  diff: string;
  diffTruncated: boolean;
}

/** A branch's review with what the job's turns relied on (their Sources), as the API shows it. */
export interface JobReview extends BranchReview {
  sources: TurnSource[];
}

/** A job's changes as the dashboard shows them, for any code host. */
export interface JobChanges extends JobReview {
  /**
   * repository: read from the project's repository on this machine, as it is now.
   * mirror: read from this server's mirror of the remote repository, as the agent last pushed
   * and fetched it (the pull request on the code host is the reference).
   */
  source: 'repository' | 'mirror';
  /** Why nothing is shown, when the branch is not here to read. */
  note: string | null;
}

export interface MergeResult {
  sha: string;
  /** The working tree that had the base branch checked out and was brought up to date, if any. */
  updatedWorktree: string | null;
}

/** Describes and merges branches of a repository on this machine. */
export interface BranchReviewer {
  describe(target: ReviewTarget): Promise<BranchReview>;
  /**
   * The state of each of `branches` against one base branch, as `describe` would say it, in a
   * couple of git calls whatever their number (a page of the jobs list asks for them all).
   */
  branchStates(
    target: Omit<ReviewTarget, 'branch'>,
    branches: readonly string[],
  ): Promise<Map<string, BranchReview['state']>>;
  /** Merges the branch into its base branch; a DomainError `conflict` when it cannot. */
  merge(target: ReviewTarget): Promise<MergeResult>;
}

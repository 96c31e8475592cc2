/** What the review of a local job branch shows, and the port that produces it (git, in integrations/). */

export interface ReviewTarget {
  /** The local repository: an absolute path or a file:// URL. */
  repository: string;
  branch: string;
  baseBranch: string;
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

export interface MergeResult {
  sha: string;
  /** The working tree that had the base branch checked out and was brought up to date, if any. */
  updatedWorktree: string | null;
}

/** Describes and merges branches of a repository on this machine. */
export interface BranchReviewer {
  describe(target: ReviewTarget): Promise<BranchReview>;
  /** Merges the branch into its base branch; a DomainError `conflict` when it cannot. */
  merge(target: ReviewTarget): Promise<MergeResult>;
}

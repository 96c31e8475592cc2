import type { Storage } from '../../storage/database.ts';
import { findJob } from '../../storage/queries/jobs.ts';
import { notFound } from '../errors.ts';
import { isLocalRepository } from '../projects/code-host-settings.ts';
import type { BranchReview, BranchReviewer, MergeResult, ReviewTarget } from './branch-review.ts';

/**
 * The review of a job whose repository is on this machine (the local code host): its branch's
 * commits and diff against the base branch, and the merge. Jobs of other code hosts are
 * reviewed on GitHub or GitLab, so here they do not exist.
 */
export class ReviewService {
  private readonly storage: Storage;
  private readonly reviewer: BranchReviewer;
  constructor(storage: Storage, reviewer: BranchReviewer) {
    this.storage = storage;
    this.reviewer = reviewer;
  }

  /** Throws `not_found` unless the job is in the project and reviewed here. */
  async check(projectId: string, jobId: string): Promise<void> {
    await this.target(projectId, jobId);
  }

  async describe(projectId: string, jobId: string): Promise<BranchReview> {
    return this.reviewer.describe(await this.target(projectId, jobId));
  }

  async merge(projectId: string, jobId: string): Promise<MergeResult & { baseBranch: string }> {
    const target = await this.target(projectId, jobId);
    return { ...(await this.reviewer.merge(target)), baseBranch: target.baseBranch };
  }

  private async target(projectId: string, jobId: string): Promise<ReviewTarget> {
    const row = await findJob(this.storage.db, projectId, jobId);
    if (!row || !isLocalRepository(row.repository)) {
      throw notFound(`No locally reviewed job ${jobId} in this project`);
    }
    return { repository: row.repository, branch: row.branch, baseBranch: row.base_branch };
  }
}

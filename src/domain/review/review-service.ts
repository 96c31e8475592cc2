import type { Storage } from '../../storage/database.ts';
import { findJob, findJobs } from '../../storage/queries/jobs.ts';
import { listTurns } from '../../storage/queries/turns.ts';
import type { JobRow } from '../../storage/schema.ts';
import { conflict, DomainError, notFound } from '../errors.ts';
import { parseTurnSources, sourceId, type TurnSource } from '../jobs/turn-sources.ts';
import { isLocalRepository } from '../projects/code-host-settings.ts';
import type {
  BranchReview,
  BranchReviewer,
  JobChanges,
  JobReview,
  MergeResult,
  ReviewTarget,
} from './branch-review.ts';

/** Where this server keeps its mirror of a project's remote repository (see integrations/git). */
export interface ProjectMirrors {
  mirrorDir(projectId: string): string;
}

/**
 * The review of a job's branch. For a repository on this machine (the local code host): its
 * commits and diff against the base branch, and the merge. For a remote repository (GitHub,
 * GitLab) the pull request is reviewed and merged on the code host; the dashboard still shows
 * the changes, read from this server's mirror of the repository.
 */
export class ReviewService {
  private readonly storage: Storage;
  private readonly reviewer: BranchReviewer;
  private readonly mirrors: ProjectMirrors | null;
  constructor(storage: Storage, reviewer: BranchReviewer, mirrors: ProjectMirrors | null = null) {
    this.storage = storage;
    this.reviewer = reviewer;
    this.mirrors = mirrors;
  }

  /** Throws `not_found` unless the job is in the project and reviewed here. */
  async check(projectId: string, jobId: string): Promise<void> {
    await this.target(projectId, jobId);
  }

  async describe(projectId: string, jobId: string): Promise<JobReview> {
    const target = await this.target(projectId, jobId);
    const [review, sources] = await Promise.all([this.reviewer.describe(target), this.sources(jobId)]);
    return { ...review, sources };
  }

  /** What the job's turns relied on beyond the docs repository, each once, in the order first read. */
  private async sources(jobId: string): Promise<TurnSource[]> {
    const seen = new Map<string, TurnSource>();
    for (const turn of await listTurns(this.storage.db, jobId)) {
      for (const source of parseTurnSources(turn.sources)) {
        if (!seen.has(sourceId(source))) seen.set(sourceId(source), source);
      }
    }
    return [...seen.values()];
  }

  async merge(projectId: string, jobId: string): Promise<MergeResult & { baseBranch: string }> {
    const target = await this.target(projectId, jobId);
    return { ...(await this.reviewer.merge(target)), baseBranch: target.baseBranch };
  }

  /** The job's changes, whatever its code host (see `JobChanges.source`). */
  async changes(projectId: string, jobId: string): Promise<JobChanges> {
    const row = await this.job(projectId, jobId);
    const sources = await this.sources(row.id);
    if (isLocalRepository(row.repository)) {
      return {
        ...(await this.reviewer.describe(localTarget(row))),
        sources,
        source: 'repository',
        note: null,
      };
    }
    const unavailable = (note: string): JobChanges => ({
      branch: row.branch,
      baseBranch: row.base_branch,
      state: 'missing',
      commits: [],
      files: [],
      diff: '',
      diffTruncated: false,
      sources,
      source: 'mirror',
      note,
    });
    const elsewhere =
      "This server has no copy of the job's branch: nothing was pushed yet, or a worker on another machine pushed it. The pull request on the code host shows the changes.";
    if (!this.mirrors) return unavailable(elsewhere);
    try {
      const review = await this.reviewer.describe({
        repository: this.mirrors.mirrorDir(row.project_id),
        branch: row.branch,
        baseBranch: row.base_branch,
        refs: 'mirrored',
      });
      if (review.state === 'missing') return unavailable(elsewhere);
      return { ...review, sources, source: 'mirror', note: null };
    } catch (error) {
      // No mirror here yet, or it lacks the base branch: the same answer as a missing branch.
      if (error instanceof DomainError && error.kind === 'not_found') return unavailable(elsewhere);
      throw error;
    }
  }

  /**
   * The review state of each of these jobs (a page of the list) that has a review on this
   * machine: a local repository's job with its review link. Read from the repository as it is
   * now, as the job's page reads it, so a branch merged by hand shows merged too. One pair of
   * git calls per repository and base branch; a repository that is gone leaves its jobs out.
   */
  async localReviewStates(
    projectId: string,
    jobIds: readonly string[],
  ): Promise<Map<string, BranchReview['state']>> {
    const rows = (await findJobs(this.storage.db, projectId, jobIds)).filter(
      (row) => row.pr_link !== null && isLocalRepository(row.repository),
    );
    const groups = new Map<string, JobRow[]>();
    for (const row of rows) {
      const key = JSON.stringify([row.repository, row.base_branch]);
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    const states = new Map<string, BranchReview['state']>();
    await Promise.all(
      [...groups.values()].map(async (group) => {
        const [{ repository, base_branch: baseBranch }] = group as [JobRow, ...JobRow[]];
        try {
          const byBranch = await this.reviewer.branchStates(
            { repository, baseBranch },
            group.map((row) => row.branch),
          );
          for (const row of group) {
            const state = byBranch.get(row.branch);
            if (state) states.set(row.id, state);
          }
        } catch (error) {
          if (!(error instanceof DomainError && error.kind === 'not_found')) throw error;
        }
      }),
    );
    return states;
  }

  /** Merges a local job's branch; a job of a remote repository is merged on its code host (409). */
  async mergeJob(projectId: string, jobId: string): Promise<MergeResult & { baseBranch: string }> {
    const row = await this.job(projectId, jobId);
    if (!isLocalRepository(row.repository)) {
      throw conflict(
        `Job ${jobId} works on a remote repository (${row.repository}): merge its pull request on the code host`,
      );
    }
    const target = localTarget(row);
    return { ...(await this.reviewer.merge(target)), baseBranch: target.baseBranch };
  }

  private async target(projectId: string, jobId: string): Promise<ReviewTarget> {
    const row = await findJob(this.storage.db, projectId, jobId);
    if (!row || !isLocalRepository(row.repository)) {
      throw notFound(`No locally reviewed job ${jobId} in this project`);
    }
    return localTarget(row);
  }

  private async job(projectId: string, jobId: string): Promise<JobRow> {
    const row = await findJob(this.storage.db, projectId, jobId);
    if (!row) throw notFound(`Job ${jobId} not found in project ${projectId}`);
    return row;
  }
}

function localTarget(row: JobRow): ReviewTarget {
  return { repository: row.repository, branch: row.branch, baseBranch: row.base_branch };
}

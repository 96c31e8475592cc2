import { type Logger, pino } from 'pino';
import type { CodeHost, PullRequestRef } from '../../domain/agent/code-host.ts';
import { GitRunner } from '../git/git-runner.ts';
import { localRepositoryLocation } from '../git/local-repository.ts';

export interface LocalCodeHostOptions {
  /** Docwright's public base URL; the review page is `{publicUrl}/review/{jobId}`. */
  publicUrl: string;
  jobId: string;
  /** The repository: an absolute path on this machine or a file:// URL. */
  repository: string;
  logger?: Logger;
}

/**
 * A repository on this machine: the job's branch is pushed to it by the workspace, and the
 * "pull request" is Docwright's own review page, which reads the branch live from the
 * repository, so there is nothing to create or update beyond the link.
 */
export class LocalCodeHost implements CodeHost {
  private readonly opts: LocalCodeHostOptions;
  private readonly git: GitRunner;

  constructor(opts: LocalCodeHostOptions) {
    this.opts = opts;
    this.git = new GitRunner({ logger: opts.logger ?? pino({ level: 'silent' }) });
  }

  get reviewUrl(): string {
    return `${this.opts.publicUrl.replace(/\/+$/, '')}/review/${encodeURIComponent(this.opts.jobId)}`;
  }

  async findOpenPullRequest(branch: string): Promise<PullRequestRef | null> {
    const { code } = await this.git.run(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
      ...(await localRepositoryLocation(this.opts.repository)),
      okCodes: [1],
    });
    return code === 0 ? this.ref() : null;
  }

  async createPullRequest(): Promise<PullRequestRef> {
    return this.ref();
  }

  async updatePullRequest(): Promise<void> {
    // The review page shows the branch as it is now: nothing to update.
  }

  async gitCredentials(): Promise<null> {
    return null;
  }

  private ref(): PullRequestRef {
    return { url: this.reviewUrl, number: 0 };
  }
}

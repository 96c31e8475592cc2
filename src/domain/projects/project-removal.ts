import type { Storage } from '../../storage/database.ts';
import { countApiKeys } from '../../storage/queries/api-keys.ts';
import { listJobIds } from '../../storage/queries/jobs.ts';
import { deleteProject, findProject } from '../../storage/queries/projects.ts';
import { deleteRateLimitWindowsOf } from '../../storage/queries/rate-limits.ts';
import { notFound } from '../errors.ts';
import { type Project, toProject } from './project.ts';

/** Where a project's working copies live (git mirrors and worktrees, in integrations/). */
export interface ProjectWorkingCopies {
  removeProject(projectId: string, jobIds: readonly string[]): Promise<void>;
}

/** A project's analytics (the analytics store). */
export interface ProjectAnalytics {
  deleteProject(projectId: string): Promise<void>;
}

/** What deleting a project removes. */
export interface ProjectFootprint {
  project: Project;
  jobs: number;
  keys: number;
}

/**
 * Deletes a project and everything it owns: analytics and working copies first, then, in one
 * transaction, the project row with its jobs, turns, messages, keys, sessions and settings
 * (cascading) and its rate-limit windows. If a step fails, running the deletion again
 * finishes it: the project is gone only once the rest is.
 */
export class ProjectRemoval {
  private readonly storage: Storage;
  private readonly workingCopies: ProjectWorkingCopies;
  private readonly analytics: ProjectAnalytics;
  constructor(storage: Storage, workingCopies: ProjectWorkingCopies, analytics: ProjectAnalytics) {
    this.storage = storage;
    this.workingCopies = workingCopies;
    this.analytics = analytics;
  }

  async describe(projectId: string): Promise<ProjectFootprint> {
    const row = await findProject(this.storage.db, projectId);
    if (!row) throw notFound(`Project ${projectId} not found`);
    const [jobIds, keys] = await Promise.all([
      listJobIds(this.storage.db, projectId),
      countApiKeys(this.storage.db, projectId),
    ]);
    return { project: toProject(row), jobs: jobIds.length, keys };
  }

  async delete(projectId: string): Promise<ProjectFootprint> {
    const footprint = await this.describe(projectId);
    await this.analytics.deleteProject(projectId);
    await this.workingCopies.removeProject(projectId, await listJobIds(this.storage.db, projectId));
    await this.storage.db.transaction().execute(async (tx) => {
      await deleteRateLimitWindowsOf(tx, projectId);
      await deleteProject(tx, projectId);
    });
    return footprint;
  }
}

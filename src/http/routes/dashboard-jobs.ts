import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import type { JobService } from '../../domain/jobs/job-service.ts';
import type { ReviewService } from '../../domain/review/review-service.ts';
import { BranchReview, Job, JobListQuery } from '../schemas.ts';
import { changeDocs, dashboardErrors, readDocs } from './dashboard-docs.ts';

export interface DashboardJobRoutesOptions {
  jobs: JobService;
  review: ReviewService;
}

const JobPathParams = Type.Object({
  projectId: Type.String({ minLength: 1, maxLength: 64 }),
  jobId: Type.String({ minLength: 1, maxLength: 64, description: 'The job id.' }),
});

/** A job in the dashboard's list: the Job of the public API, with three more fields. */
export const DashboardJob = Type.Object({
  ...Job.properties,
  title: Type.String({ description: 'The first prompt, on one line, cut near 200 characters.' }),
  turns: Type.Integer({ description: 'Prompts sent to the job: the first and every follow-up.' }),
  reviewState: Type.Union([Type.Enum(['open', 'merged', 'missing']), Type.Null()], {
    description:
      'For a job of a repository on this machine with a review link: its branch against the base branch, read from the repository now (merged: everything on it is in the base branch; missing: no such branch). null for other jobs.',
  }),
});
export type DashboardJobType = Static<typeof DashboardJob>;

export const DashboardJobList = Type.Object({
  jobs: Type.Array(DashboardJob),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as cursor to get the next page; null on the last.',
  }),
});

/** A BranchReview (as the local review gives it), and where it was read. */
export const JobChanges = Type.Object({
  ...BranchReview.properties,
  source: Type.Enum(['repository', 'mirror'], {
    description:
      "repository: the project's repository on this machine, as it is now. mirror: this server's mirror of the remote repository, as the agent last pushed it; the pull request is the reference.",
  }),
  note: Type.Union([Type.String(), Type.Null()], {
    description: 'Why nothing is shown, when the branch is not on this server.',
  }),
});
export type JobChangesType = Static<typeof JobChanges>;

/**
 * `/dashboard/api/projects/{projectId}/jobs…`: the job list with titles and search, a job's
 * changes for any code host, and the merge of a local repository's job.
 */
export const dashboardJobRoutes: FastifyPluginAsyncTypebox<DashboardJobRoutesOptions> = async (
  app,
  { jobs, review },
) => {
  app.get(
    '/projects/:projectId/jobs',
    {
      schema: {
        summary: "List a project's jobs",
        description:
          'Newest first, each with its title and number of turns; filter by status and by text in any prompt (q, case-insensitive); follow nextCursor for more.',
        ...readDocs,
        params: Type.Object({ projectId: JobPathParams.properties.projectId }),
        querystring: JobListQuery,
        response: { 200: DashboardJobList, ...dashboardErrors },
      },
    },
    async (request) => {
      const { projectId } = request.params;
      const page = await jobs.listSummaries(projectId, {
        status: request.query.status,
        q: request.query.q,
        limit: request.query.limit ?? 20,
        cursor: request.query.cursor,
      });
      const states = await review.localReviewStates(
        projectId,
        page.jobs.map((job) => job.id),
      );
      return { ...page, jobs: page.jobs.map((job) => ({ ...job, reviewState: states.get(job.id) ?? null })) };
    },
  );

  app.get(
    '/projects/:projectId/jobs/:jobId/changes',
    {
      schema: {
        summary: "A job's changes",
        description:
          "The job branch's commits, changed files and diff against where it left its base branch, for any code host (see source and note).",
        ...readDocs,
        params: JobPathParams,
        response: { 200: JobChanges, ...dashboardErrors },
      },
    },
    (request) => review.changes(request.params.projectId, request.params.jobId),
  );

  app.post(
    '/projects/:projectId/jobs/:jobId/merge',
    {
      schema: {
        summary: "Merge a local job's branch",
        description:
          "Merges the job branch into its base branch with a merge commit (repositories on this machine only). 409 when the job's repository is remote (merge the pull request there), when the branch conflicts, is already merged, or the base branch moved meanwhile.",
        ...changeDocs,
        params: JobPathParams,
        response: {
          200: Type.Object({
            merged: Type.Literal(true),
            sha: Type.String({ description: 'The merge commit.' }),
          }),
          409: Type.Ref('Error', {
            description: 'A remote repository, a conflict, already merged, or the base branch moved.',
          }),
          ...dashboardErrors,
        },
      },
    },
    async (request) => {
      const result = await review.mergeJob(request.params.projectId, request.params.jobId);
      return { merged: true as const, sha: result.sha };
    },
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ProjectService } from '../../domain/projects/project-service.ts';
import { dashboardErrors, readDocs } from './dashboard-docs.ts';

/** `GET /dashboard/api/jobs/{jobId}`: where a job lives, for links that name only the job (/review/{jobId}). */
export const dashboardJobLookupRoutes: FastifyPluginAsyncTypebox<{ projects: ProjectService }> = async (
  app,
  { projects },
) => {
  app.get(
    '/jobs/:jobId',
    {
      schema: {
        summary: 'Find the project of a job',
        ...readDocs,
        params: Type.Object({ jobId: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: {
          200: Type.Object({ projectId: Type.String(), jobId: Type.String() }),
          ...dashboardErrors,
        },
      },
    },
    async (request) => {
      const { jobId } = request.params;
      return { projectId: await projects.projectOfJob(jobId), jobId };
    },
  );
};

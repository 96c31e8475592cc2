import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { JobService } from '../../domain/jobs/job-service.ts';
import type { ProjectService } from '../../domain/projects/project-service.ts';
import type { RateLimiter } from '../../domain/rate-limit/rate-limiter.ts';
import {
  errorResponses,
  JobListQuery,
  JobParams,
  ok,
  ProjectParams,
  promptBody,
  turnErrorResponses,
} from '../schemas.ts';

export interface AgentJobRoutesOptions {
  jobs: JobService;
  projects: ProjectService;
  rateLimiter: RateLimiter;
  maxPromptLength: number;
}

const tags = ['Agent jobs'];
const security = [{ bearerAuth: [] }];

/** `/v2/agent/{projectId}/…`: thin handlers, parse → authorize (hook) → domain → respond. */
export const agentJobRoutes: FastifyPluginAsyncTypebox<AgentJobRoutesOptions> = async (app, options) => {
  const { jobs, projects, rateLimiter } = options;
  const PromptBody = promptBody(options.maxPromptLength);

  app.post(
    '/v2/agent/:projectId/job',
    {
      schema: {
        summary: 'Create an agent job',
        description:
          "Queues the prompt as the first turn of a new job and answers at once; poll the job for progress. Answers 402 when the project's monthly budget is spent.",
        tags,
        security,
        params: ProjectParams,
        body: PromptBody,
        response: { 201: ok('Job', 'The new job, active.'), ...turnErrorResponses },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params;
      await rateLimiter.hit(`jobs:${projectId}`);
      const project = await projects.get(projectId);
      return reply.code(201).send(await jobs.create(project, request.body.prompt));
    },
  );

  app.get(
    '/v2/agent/:projectId/job/:id',
    {
      schema: {
        summary: 'Get an agent job',
        tags,
        security,
        params: JobParams,
        response: { 200: ok('Job', 'The job.'), ...errorResponses },
      },
    },
    (request) => jobs.get(request.params.projectId, request.params.id),
  );

  app.post(
    '/v2/agent/:projectId/job/:id/message',
    {
      schema: {
        summary: 'Send a follow-up message',
        description:
          "Queues the prompt as the next turn: behind a running turn, or re-opening a completed or failed job. Archived jobs answer 409; 402 when the project's monthly budget is spent.",
        tags,
        security,
        params: JobParams,
        body: PromptBody,
        response: { 200: ok('Job', 'The job, active again.'), ...turnErrorResponses },
      },
    },
    async (request) => {
      const { projectId, id } = request.params;
      await rateLimiter.hit(`jobs:${projectId}`);
      return jobs.message(projectId, id, request.body.prompt);
    },
  );

  app.get(
    '/v2/agent/:projectId/jobs',
    {
      schema: {
        summary: 'List agent jobs',
        description:
          'Newest first; filter by status and by text in any of its prompts (q); follow nextCursor for more.',
        tags,
        security,
        params: ProjectParams,
        querystring: JobListQuery,
        response: { 200: ok('JobList', 'A page of jobs, newest first.'), ...errorResponses },
      },
    },
    (request) =>
      jobs.list(request.params.projectId, {
        status: request.query.status,
        q: request.query.q,
        limit: request.query.limit ?? 20,
        cursor: request.query.cursor,
      }),
  );

  app.post(
    '/v2/agent/:projectId/job/:id/archive',
    {
      schema: {
        summary: 'Archive an agent job',
        description:
          'Stops pending and running turns and ends the job. Archiving an archived job changes nothing.',
        tags,
        security,
        params: JobParams,
        response: { 200: ok('Job', 'The archived job.'), ...errorResponses },
      },
    },
    (request) => jobs.archive(request.params.projectId, request.params.id),
  );

  app.get(
    '/v2/agent/:projectId/job/:id/messages',
    {
      schema: {
        summary: "Get a job's conversation",
        description: 'Each turn, and every prompt and what the agent did and said, in order.',
        tags,
        security,
        params: JobParams,
        response: { 200: ok('Conversation', 'Turns and messages, oldest first.'), ...errorResponses },
      },
    },
    (request) => jobs.conversation(request.params.projectId, request.params.id),
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  type ContextRepositoryService,
  MAX_CONTEXT_REPOSITORIES,
} from '../../domain/projects/context-repositories.ts';
import { ConnectContextRepositoryBody, ContextRepositoryParams } from '../context-repository-schemas.ts';
import { bodyErrorResponses, error, errorResponses, ok, ProjectParams } from '../schemas.ts';

export interface ContextRepositoryRoutesOptions {
  contextRepositories: ContextRepositoryService;
  /** A repository path given over HTTP must lie under one of these (the CLI may name any). */
  localRepositoryRoots: readonly string[];
}

const tags = ['Connected repositories'];
const security = [{ bearerAuth: [] }];

/**
 * `/v2/agent/{projectId}/context…`: the source repositories a project's agent may read.
 * Listing needs a read key; connecting and disconnecting an admin key (the default permissions).
 */
export const contextRepositoryRoutes: FastifyPluginAsyncTypebox<ContextRepositoryRoutesOptions> = async (
  app,
  options,
) => {
  const { contextRepositories } = options;
  const origin = { localRoots: options.localRepositoryRoots };

  app.get(
    '/v2/agent/:projectId/context',
    {
      schema: {
        summary: 'List connected repositories',
        tags,
        security,
        params: ProjectParams,
        response: {
          200: ok('ContextRepositoryList', 'The connected repositories, by name.'),
          ...errorResponses,
        },
      },
    },
    async (request) => ({ repositories: await contextRepositories.list(request.params.projectId) }),
  );

  app.post(
    '/v2/agent/:projectId/context',
    {
      schema: {
        summary: 'Connect a source repository',
        description: `Gives the project's documentation agent read-only access to it. Checked like the project's own repository: a path on the server must lie under DOCWRIGHT_LOCAL_REPOSITORY_ROOTS and be a git repository with that branch (400 otherwise); a remote that cannot be asked now is a warning. At most ${MAX_CONTEXT_REPOSITORIES} per project.`,
        tags,
        security,
        params: ProjectParams,
        body: ConnectContextRepositoryBody,
        response: {
          201: ok('ConnectedContextRepository', 'The connected repository, and what could not be checked.'),
          ...bodyErrorResponses,
          409: error('A repository of that name is already connected to the project.'),
        },
      },
    },
    async (request, reply) => {
      const { warnings, ...repository } = await contextRepositories.add(
        request.params.projectId,
        request.body,
        origin,
      );
      return reply.code(201).send({ repository, warnings });
    },
  );

  app.delete(
    '/v2/agent/:projectId/context/:name',
    {
      schema: {
        summary: 'Disconnect a repository',
        description: 'Jobs from now on no longer see it; a turn already running keeps what it has read.',
        tags,
        security,
        params: ContextRepositoryParams,
        response: {
          204: { type: 'null', description: 'Disconnected.' },
          ...errorResponses,
          404: error('Unknown project, or no repository of that name is connected to it.'),
        },
      },
    },
    async (request, reply) => {
      await contextRepositories.remove(request.params.projectId, request.params.name);
      return reply.code(204).send(null);
    },
  );
};

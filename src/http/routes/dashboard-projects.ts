import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { permits } from '../../domain/access/principal.ts';
import { DomainError } from '../../domain/errors.ts';
import type { ProjectRemoval } from '../../domain/projects/project-removal.ts';
import type { ProjectService } from '../../domain/projects/project-service.ts';
import { ProjectParams } from '../schemas.ts';
import { changeDocs, dashboardBodyErrors, dashboardErrors, NoContent, readDocs } from './dashboard-docs.ts';

export interface DashboardProjectRoutesOptions {
  projects: ProjectService;
  removal: ProjectRemoval;
  /** A repository path given here must lie under one of these (the CLI may name any). */
  localRepositoryRoots: readonly string[];
}

export const Project = Type.Object({
  id: Type.String(),
  name: Type.String(),
  repository: Type.String({ description: 'A git URL, or a path on the server.' }),
  baseBranch: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});
export type ProjectType = Static<typeof Project>;

export const CheckedProject = Type.Object({
  project: Project,
  warnings: Type.Array(Type.String(), {
    description: 'What could not be checked yet, e.g. a private remote before its credentials are stored.',
  }),
});

const NonEmpty = (description: string) => Type.String({ pattern: '\\S', maxLength: 1000, description });

export const NewProjectBody = Type.Object({
  name: NonEmpty('A name people recognise.'),
  repository: NonEmpty('A git URL, or a path on the server.'),
  baseBranch: Type.Optional(NonEmpty('The branch pull requests go to (default main).')),
});

export const ProjectChangeBody = Type.Object({
  name: Type.Optional(NonEmpty('A new name.')),
  repository: Type.Optional(NonEmpty('Another git URL or path on the server.')),
  baseBranch: Type.Optional(NonEmpty('Another base branch.')),
});

/** `/dashboard/api/projects`: list, create, rename or move, delete. */
export const dashboardProjectRoutes: FastifyPluginAsyncTypebox<DashboardProjectRoutesOptions> = async (
  app,
  options,
) => {
  const { projects, removal } = options;
  const origin = { localRoots: options.localRepositoryRoots };

  app.get(
    '/projects',
    {
      schema: {
        summary: 'List projects',
        ...readDocs,
        response: { 200: Type.Object({ projects: Type.Array(Project) }), ...dashboardErrors },
      },
    },
    async () => ({ projects: await projects.list() }),
  );

  app.post(
    '/projects',
    {
      config: { permission: 'manage' },
      schema: {
        summary: 'Create a project',
        description:
          'The repository and base branch are checked first: a path on the server must lie under DOCWRIGHT_LOCAL_REPOSITORY_ROOTS and be a git repository with that branch (400 otherwise); a remote on an address DOCWRIGHT_ALLOW_PRIVATE_NETWORKS does not open is a 400 naming repository; a remote that cannot be asked now is a warning.',
        ...changeDocs,
        body: NewProjectBody,
        response: { 201: CheckedProject, ...dashboardBodyErrors },
      },
    },
    async (request, reply) => {
      const { warnings, ...project } = await projects.create(request.body, origin);
      return reply.code(201).send({ project, warnings });
    },
  );

  app.get(
    '/projects/:projectId',
    {
      schema: {
        summary: 'Get a project',
        ...readDocs,
        params: ProjectParams,
        response: { 200: Project, ...dashboardErrors },
      },
    },
    async (request) => {
      // Named fields only: the project's stored settings (sealed credentials) never leave.
      const { id, name, repository, baseBranch, createdAt } = await projects.get(request.params.projectId);
      return { id, name, repository, baseBranch, createdAt };
    },
  );

  app.patch(
    '/projects/:projectId',
    {
      schema: {
        summary: 'Rename a project or move it',
        description:
          'A new repository or base branch is checked like at creation; jobs made before keep theirs. Changing the repository needs the owner role (403 otherwise): it decides what this server runs git in.',
        ...changeDocs,
        params: ProjectParams,
        body: ProjectChangeBody,
        response: { 200: CheckedProject, ...dashboardBodyErrors },
      },
    },
    async (request) => {
      if (
        request.body.repository !== undefined &&
        !(request.principal && permits(request.principal, 'manage'))
      ) {
        throw new DomainError(
          'forbidden',
          "Only an owner can change a project's repository: it decides where this server runs git",
        );
      }
      const { warnings, ...project } = await projects.relocate(
        request.params.projectId,
        request.body,
        origin,
      );
      return { project, warnings };
    },
  );

  app.delete(
    '/projects/:projectId',
    {
      config: { permission: 'manage' },
      schema: {
        summary: 'Delete a project',
        description: 'With its jobs, API keys, settings, working copies and analytics. Cannot be undone.',
        ...changeDocs,
        params: ProjectParams,
        response: { 204: NoContent, ...dashboardErrors },
      },
    },
    async (request, reply) => {
      await removal.delete(request.params.projectId);
      return reply.code(204).send(null);
    },
  );
};

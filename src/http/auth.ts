import type { FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import type { KeyService, Principal } from '../domain/keys/key-service.ts';
import type { ProjectService } from '../domain/projects/project-service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Key scopes that may call the route; admin only when absent. */
    scopes?: readonly string[];
  }
}

/**
 * Resolves `Authorization: Bearer <key>` and checks the key belongs to the project in the
 * path. Runs before the body is read, so an unauthenticated caller learns nothing else.
 */
export function projectAuthenticator(keys: KeyService, projects: ProjectService) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization;
    if (!header) {
      throw new DomainError(
        'unauthenticated',
        'Missing Authorization header: send "Authorization: Bearer <API key>"',
      );
    }
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match?.[1])
      throw new DomainError('unauthenticated', 'Authorization header must be "Bearer <API key>"');
    const principal = await keys.authenticate(match[1]);
    const { projectId } = request.params as { projectId?: string };
    if (projectId !== undefined && principal.projectId !== projectId) {
      // Existence is checked only for a valid key, and project ids are unguessable.
      const exists = await projects.get(projectId).then(
        () => true,
        () => false,
      );
      if (!exists) throw new DomainError('not_found', `Project ${projectId} not found`);
      throw new DomainError('forbidden', 'This API key belongs to another project');
    }
    const scopes = request.routeOptions.config.scopes ?? ['admin'];
    if (!scopes.includes(principal.scope)) {
      throw new DomainError(
        'forbidden',
        `An API key with scope "${principal.scope}" cannot call this endpoint`,
      );
    }
    request.principal = principal;
  };
}

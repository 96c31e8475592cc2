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

/** The key in `Authorization: Bearer <key>`, null without the header; `unauthenticated` if malformed. */
export function bearerKey(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header === undefined) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!match?.[1])
    throw new DomainError('unauthenticated', 'Authorization header must be "Bearer <API key>"');
  return match[1];
}

/** Refuses a principal whose scope is not among `scopes` (403, naming the scope). */
export function requireScope(principal: Principal, scopes: readonly string[]): void {
  if (!scopes.includes(principal.scope)) {
    throw new DomainError(
      'forbidden',
      `An API key with scope "${principal.scope}" cannot call this endpoint`,
    );
  }
}

/**
 * Resolves `Authorization: Bearer <key>` and checks the key belongs to the project in the
 * path and has a scope the route accepts. Runs before the body is read, so an
 * unauthenticated caller learns nothing else.
 */
export function projectAuthenticator(keys: KeyService, projects: ProjectService) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const key = bearerKey(request);
    if (key === null) {
      throw new DomainError(
        'unauthenticated',
        'Missing Authorization header: send "Authorization: Bearer <API key>"',
      );
    }
    const principal = await keys.authenticate(key);
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
    requireScope(principal, request.routeOptions.config.scopes ?? ['admin']);
    request.principal = principal;
  };
}

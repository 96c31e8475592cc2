import type { FastifyRequest } from 'fastify';
import { type Permission, type Principal, permits } from '../domain/access/principal.ts';
import { DomainError } from '../domain/errors.ts';
import type { KeyService } from '../domain/keys/key-service.ts';
import type { ProjectService } from '../domain/projects/project-service.ts';
import type { ClientIp } from './client-ip.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** What the caller must be permitted; absent: `read` for GET and HEAD, `write` otherwise. */
    permission?: Permission;
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

/** The permission a route needs: its own, else `read` for GET and HEAD and `write` otherwise. */
export function routePermission(request: FastifyRequest): Permission {
  const declared = request.routeOptions.config.permission;
  if (declared) return declared;
  return request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
}

/** Refuses a principal without the permission (403, naming its scope or role). */
export function requirePermission(principal: Principal, permission: Permission): void {
  if (permits(principal, permission)) return;
  throw new DomainError(
    'forbidden',
    principal.kind === 'key'
      ? `An API key with scope "${principal.scope}" cannot call this endpoint`
      : `An account with role "${principal.role}" cannot do this`,
  );
}

/**
 * Resolves `Authorization: Bearer <key>` and checks the key is live (not revoked, not
 * expired), is used from an address it allows, belongs to the project in the path and has a
 * scope the route accepts. Runs before the body is read, so an unauthenticated caller learns
 * nothing else.
 */
export function projectAuthenticator(keys: KeyService, projects: ProjectService, clientIp: ClientIp) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const key = bearerKey(request);
    if (key === null) {
      throw new DomainError(
        'unauthenticated',
        'Missing Authorization header: send "Authorization: Bearer <API key>"',
      );
    }
    const principal = await keys.authenticate(key, { clientIp: clientIp(request) });
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
    requirePermission(principal, routePermission(request));
    request.principal = principal;
  };
}

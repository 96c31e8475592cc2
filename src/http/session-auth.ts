import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import type { ProjectService } from '../domain/projects/project-service.ts';
import type { AccountSession, SessionService } from '../domain/sessions/session-service.ts';
import { requirePermission, routePermission } from './auth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard session of the caller (dashboard routes only), and its token. */
    accountSession: AccountSession | null;
    sessionToken: string | null;
  }
  interface FastifyContextConfig {
    /** A dashboard route that needs no session: signing in. */
    anonymous?: boolean;
  }
}

export const SESSION_COOKIE = 'docwright_session';
const STATE_CHANGING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

export interface SessionAuthOptions {
  sessions: SessionService;
  projects: ProjectService;
  /** DOCWRIGHT_PUBLIC_URL: its host is a trusted Origin (a reverse proxy may rewrite Host). */
  publicUrl: string;
}

/**
 * The dashboard's door: the `docwright_session` cookie, never a bearer key. A state-changing
 * request must come from this site (Sec-Fetch-Site, else Origin) and carry the session's CSRF
 * token in `X-CSRF-Token`. Then the project in the path must exist and the account's role
 * must grant the route's permission. Runs before the body is read.
 */
export function sessionAuthenticator({ sessions, projects, publicUrl }: SessionAuthOptions) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    if (request.headers.authorization !== undefined) {
      throw new DomainError(
        'unauthenticated',
        'API keys do not open the dashboard API: sign in to the dashboard, or call /v1 and /v2 with the key',
      );
    }
    const changesState = STATE_CHANGING.has(request.method);
    if (changesState && !sameSite(request, publicUrl)) {
      throw new DomainError('forbidden', 'Refused: this request came from another site');
    }
    if (request.routeOptions.config.anonymous) return;
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (!token) throw new DomainError('unauthenticated', 'Not signed in: sign in to the dashboard first');
    const session = await sessions.authenticate(token);
    if (changesState && !sessions.csrfMatches(token, header(request, 'x-csrf-token'))) {
      throw new DomainError(
        'forbidden',
        'Missing or wrong X-CSRF-Token header: send the csrfToken that GET /dashboard/api/session returns',
      );
    }
    const { projectId } = request.params as { projectId?: string };
    if (projectId !== undefined) await projects.get(projectId); // 404 for an unknown project
    requirePermission(session.principal, routePermission(request));
    request.principal = session.principal;
    request.accountSession = session;
    request.sessionToken = token;
  };
}

/** The session cookie: `HttpOnly; SameSite=Strict; Path=/`, `Secure` behind an https public URL. */
export function setSessionCookie(
  reply: FastifyReply,
  publicUrl: string,
  token: string,
  maxAgeSeconds: number,
) {
  const secure = publicUrl.startsWith('https:') ? '; Secure' : '';
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`,
  );
}

export function clearSessionCookie(reply: FastifyReply, publicUrl: string) {
  setSessionCookie(reply, publicUrl, '', 0);
}

/**
 * A request from another site is refused even before SameSite is considered. Browsers send
 * Sec-Fetch-Site; older ones only Origin, compared with the Host the request came to or the
 * public URL's. A request with neither is not from a browser page, so not a forgery.
 */
export function sameSite(request: FastifyRequest, publicUrl: string): boolean {
  const site = header(request, 'sec-fetch-site');
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = header(request, 'origin');
  if (origin === undefined) return true;
  if (!URL.canParse(origin)) return false;
  const { host } = new URL(origin);
  return host === request.headers.host || (URL.canParse(publicUrl) && new URL(publicUrl).host === host);
}

export function readCookie(cookieHeader: string | undefined, name: string): string | null {
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return null;
    }
  }
  return null;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

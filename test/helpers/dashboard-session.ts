import { randomBytes } from 'node:crypto';
import type { Role } from '../../src/domain/access/principal.ts';
import type { TestApp } from './app.ts';

export interface DashboardSession {
  userId: string;
  email: string;
  password: string;
  /** `docwright_session=…`, for a Cookie header. */
  cookie: string;
  csrfToken: string;
  /**
   * Headers of a signed-in browser request from the dashboard itself: the cookie, the CSRF
   * token and `Sec-Fetch-Site: same-origin`; `extra` is merged over them (pass a header as
   * undefined to leave it out).
   */
  headers(extra?: Record<string, string | undefined>): Record<string, string>;
  /** fetch() against the app as this session (no API key), JSON body if given. */
  request(
    method: string,
    path: string,
    options?: { body?: unknown; headers?: Record<string, string | undefined> },
  ): Promise<Response>;
}

/**
 * Creates an account with `role` (owner by default) and signs it in over HTTP, as the
 * dashboard does: POST /dashboard/api/session, then GET it for the CSRF token.
 */
export async function signIn(
  t: TestApp,
  {
    role = 'owner',
    email,
    password = `pw-${randomBytes(12).toString('base64url')}`,
  }: {
    role?: Role;
    email?: string;
    password?: string;
  } = {},
): Promise<DashboardSession> {
  const user = await t.services.users.create({
    email: email ?? `${role}-${randomBytes(4).toString('hex')}@example.com`,
    password,
    role,
  });
  return signInAs(t, user.email, password, user.id);
}

/** Signs an existing account in over HTTP. */
export async function signInAs(
  t: TestApp,
  email: string,
  password: string,
  userId?: string,
): Promise<DashboardSession> {
  const response = await fetch(`${t.baseUrl}/dashboard/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200) {
    throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  }
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const { csrfToken, user } = (await response.json()) as { csrfToken: string; user: { id: string } };
  const headers = (extra: Record<string, string | undefined> = {}) => {
    const merged: Record<string, string | undefined> = {
      cookie,
      'x-csrf-token': csrfToken,
      'sec-fetch-site': 'same-origin',
      ...extra,
    };
    return Object.fromEntries(
      Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
  };
  return {
    userId: userId ?? user.id,
    email,
    password,
    cookie,
    csrfToken,
    headers,
    request: (method, path, { body, headers: extra } = {}) =>
      fetch(`${t.baseUrl}${path}`, {
        method,
        headers: headers({
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...extra,
        }),
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
        redirect: 'manual',
      }),
  };
}

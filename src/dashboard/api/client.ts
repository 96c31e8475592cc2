/**
 * The dashboard's one way to the server: same-origin JSON under /dashboard/api, the session
 * cookie sent by the browser, the CSRF token on every write, `{ error }` bodies turned into
 * ApiErrors, and a 401 handed to whoever signs the person in again.
 */

export const API_BASE = '/dashboard/api';

/** A refused or failed request, with the server's own words. */
export class ApiError extends Error {
  readonly status: number;
  readonly details: readonly { message: string }[];
  readonly requestId: string | null;
  /** Seconds to wait before trying again (429), when the server said. */
  readonly retryAfter: number | null;
  constructor(
    status: number,
    message: string,
    extra: { details?: { message: string }[]; requestId?: string | null; retryAfter?: number | null } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.details = extra.details ?? [];
    this.requestId = extra.requestId ?? null;
    this.retryAfter = extra.retryAfter ?? null;
  }
}

let csrfToken: string | null = null;
let onUnauthorized: (() => void) | null = null;

/** The token `GET /dashboard/api/session` returned; sent as X-CSRF-Token on writes. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when a request is refused for want of a session (401), except the session calls themselves. */
export function setUnauthorizedHandler(handler: (() => void) | null): void {
  onUnauthorized = handler;
}

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RequestOptions {
  body?: unknown;
  signal?: AbortSignal;
  /** Do not hand a 401 to the unauthorized handler (signing in, asking whether signed in). */
  quiet401?: boolean;
}

export async function apiRequest<T>(method: Method, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'Cannot reach the Docwright server. Check that it is running, then try again.');
  }
  if (response.status === 204) return undefined as T;
  const body: unknown = await response.json().catch(() => null);
  if (response.ok) return body as T;
  const error = toApiError(response, body);
  if (error.status === 401 && !options.quiet401) onUnauthorized?.();
  throw error;
}

function toApiError(response: Response, body: unknown): ApiError {
  const payload = (typeof body === 'object' && body !== null ? body : {}) as {
    error?: unknown;
    details?: unknown;
    requestId?: unknown;
  };
  const message =
    typeof payload.error === 'string'
      ? payload.error
      : `The server answered ${response.status} ${response.statusText}`.trim();
  const retryAfter = Number(response.headers.get('retry-after'));
  return new ApiError(response.status, message, {
    details: Array.isArray(payload.details) ? (payload.details as { message: string }[]) : [],
    requestId: typeof payload.requestId === 'string' ? payload.requestId : null,
    retryAfter: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
  });
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => apiRequest<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) =>
    apiRequest<T>('POST', path, { ...options, body: body ?? {} }),
  patch: <T>(path: string, body: unknown, options?: RequestOptions) =>
    apiRequest<T>('PATCH', path, { ...options, body }),
  delete: <T = void>(path: string, options?: RequestOptions) => apiRequest<T>('DELETE', path, options),
};

/** A path segment, escaped. */
export const seg = (value: string) => encodeURIComponent(value);

/** The server refused or failed a request: `message` is its `error`, `status` the HTTP status. */
export class DocwrightApiError extends Error {
  readonly status: number;
  /** The server's requestId, to quote when reporting a problem. */
  readonly requestId: string | undefined;
  readonly details: { message: string }[] | undefined;
  /**
   * Seconds to wait before sending the request again, from Retry-After (429: rate limited;
   * 503: storage unavailable for a moment); undefined when the server did not say.
   */
  readonly retryAfterSeconds: number | undefined;
  constructor(status: number, body: unknown, headers?: Headers) {
    const error = body as { error?: unknown; requestId?: unknown; details?: unknown } | null;
    super(
      typeof error?.error === 'string'
        ? error.error
        : `Docwright answered ${status} without an error message`,
    );
    this.name = 'DocwrightApiError';
    this.status = status;
    this.requestId = typeof error?.requestId === 'string' ? error.requestId : undefined;
    this.details = Array.isArray(error?.details) ? (error.details as { message: string }[]) : undefined;
    this.retryAfterSeconds = retryAfter(headers?.get('retry-after') ?? null);
  }

  /**
   * True when the same request may succeed later unchanged: rate limited (429), or the server
   * or a proxy in front of it could not answer for now (502, 503, 504).
   */
  get transient(): boolean {
    return TRANSIENT_STATUSES.has(this.status);
  }
}

const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** Retry-After as seconds: a number of seconds, or an HTTP date from now. */
function retryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** A code host API call that failed; the message is safe to show (it never holds a credential). */
export class CodeHostError extends Error {
  /** The HTTP status, or null when the host could not be reached. */
  readonly status: number | null;
  constructor(message: string, status: number | null) {
    super(message);
    this.name = 'CodeHostError';
    this.status = status;
  }

  /** Worth another try later: the host was unreachable, overloaded or rate limiting. */
  get transient(): boolean {
    return this.status === null || this.status === 429 || this.status >= 500;
  }
}

/** Cuts a pull request body to what the host accepts, saying so at the end. */
export function limitBody(body: string, max: number): string {
  if (body.length <= max) return body;
  const note = '\n\n…(shortened: the full text was longer than the code host accepts)';
  return body.slice(0, max - note.length) + note;
}

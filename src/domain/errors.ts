/**
 * Errors the domain raises on purpose. Each kind maps to one HTTP status in the HTTP layer
 * and to a non-zero exit in the CLI; the message is safe to show to the caller.
 */
export type DomainErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  /** The project's monthly budget is spent: no new turns until it is raised or the month ends. */
  | 'budget_spent';

export class DomainError extends Error {
  readonly kind: DomainErrorKind;
  readonly retryAfterSeconds: number | undefined;
  constructor(kind: DomainErrorKind, message: string, options: { retryAfterSeconds?: number } = {}) {
    super(message);
    this.name = 'DomainError';
    this.kind = kind;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export const notFound = (message: string) => new DomainError('not_found', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const invalid = (message: string) => new DomainError('invalid', message);

import { LockLostError } from './locks.ts';

/**
 * A storage engine that cannot answer for now (a connection refused, cut or timed out, a server
 * shutting down or overloaded): the request may succeed if sent again a little later. Adapters
 * throw it for their engine's own transient failures (ClickHouse's error codes); the drivers'
 * own errors are recognised as they are (`isStorageUnavailable`).
 */
export class StorageUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}

// Node's codes for a connection that could not be made or was lost (net, dns, undici's fetch).
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

// PostgreSQL SQLSTATEs worth a retry: the connection (class 08), a server shutting down or
// starting (57P01–57P03), too many connections or no resources (53…), a transaction that lost a
// serialization conflict or a deadlock (40001, 40P01).
const POSTGRES_STATES = /^(08...|57P0[123]|53...|40001|40P01)$/;

// SQLite: the database file stayed locked by another connection past the busy timeout.
const SQLITE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_LOCKED']);

// pg's own errors for a connection that ended or could not be made in time (they carry no code).
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
];

/**
 * True when `error` (or an error it wraps, as `cause` or in an AggregateError) says that the
 * storage could not answer for now, rather than that the request or the code is wrong: the HTTP
 * API answers such a failure 503 with Retry-After instead of 500.
 */
export function isStorageUnavailable(error: unknown): boolean {
  return someInChain(error, (e) => {
    if (e instanceof StorageUnavailableError || e instanceof LockLostError) return true;
    const { code, name, message } = e as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (NETWORK_CODES.has(code) || SQLITE_CODES.has(code)) return true;
      // A pg DatabaseError (its class is not exported by every pg version: recognised by shape).
      if (POSTGRES_STATES.test(code) && 'severity' in (e as object)) return true;
    }
    // fetch's AbortSignal.timeout.
    if (name === 'TimeoutError') return true;
    return typeof message === 'string' && PG_CONNECTION_MESSAGES.some((m) => message.startsWith(m));
  });
}

function someInChain(error: unknown, test: (e: object) => boolean, depth = 0): boolean {
  if (depth > 8 || typeof error !== 'object' || error === null) return false;
  if (test(error)) return true;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  if (someInChain(cause, test, depth + 1)) return true;
  return Array.isArray(errors) && errors.some((inner) => someInChain(inner, test, depth + 1));
}

import { StorageUnavailableError } from '../../../storage/unavailable.ts';

// ClickHouse's error codes for a server that cannot answer for now (overloaded, out of memory,
// read-only while its coordination is down, too many parts to merge, a timeout): a retry later
// may succeed. Any other code is the query's fault, or the schema's, and a retry changes nothing.
const TRANSIENT_CODES = new Set([
  159, // TIMEOUT_EXCEEDED
  202, // TOO_MANY_SIMULTANEOUS_QUERIES
  203, // NO_FREE_CONNECTION
  209, // SOCKET_TIMEOUT
  210, // NETWORK_ERROR
  241, // MEMORY_LIMIT_EXCEEDED
  242, // TABLE_IS_READ_ONLY
  252, // TOO_MANY_PARTS
  279, // ALL_CONNECTION_TRIES_FAILED
  285, // TOO_FEW_LIVE_REPLICAS
  319, // UNKNOWN_STATUS_OF_INSERT
  999, // KEEPER_EXCEPTION
]);

// A proxy or load balancer in front of ClickHouse that has no server to send to.
const TRANSIENT_HTTP_STATUSES = new Set([502, 503, 504]);

/**
 * `error` as a StorageUnavailableError when ClickHouse said it cannot answer for now (by its
 * error code, in the client's ClickHouseError or in the text of an answer, or by a proxy's
 * status); otherwise `error` itself. Network failures stay as they are: the HTTP API recognises
 * them by their codes (storage/unavailable.ts).
 */
export function unavailableIfTransient(error: unknown, status?: number): unknown {
  if (status !== undefined && TRANSIENT_HTTP_STATUSES.has(status))
    return new StorageUnavailableError(`ClickHouse is unavailable (HTTP ${status})`, { cause: error });
  const code = clickHouseCode(error);
  if (code !== null && TRANSIENT_CODES.has(code))
    return new StorageUnavailableError(`ClickHouse cannot answer for now (code ${code})`, { cause: error });
  return error;
}

/** The server's error code: the client's ClickHouseError carries it, an answer's text starts with it. */
function clickHouseCode(error: unknown): number | null {
  if (!(error instanceof Error)) return null;
  const own = (error as { code?: unknown }).code;
  if (typeof own === 'string' && /^\d+$/.test(own)) return Number(own);
  const match = /\bCode: (\d+)/.exec(error.message);
  return match ? Number(match[1]) : null;
}

import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { HttpSettings } from './services.ts';

/**
 * How long an idle keep-alive connection stays open between requests: Fastify's default, above
 * the 60 s idle timeout of common load balancers so that they, not we, close first.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;

type TimeoutSettings = Pick<HttpSettings, 'headersTimeoutMs' | 'requestTimeoutMs'>;

/**
 * Node's own bounds on receiving a request, as Fastify options: the line and headers within
 * `headersTimeoutMs`, the whole request (a wait at the ingestion gate included) within
 * `requestTimeoutMs`, answered 408 and closed. Only receiving is bounded: once a request has
 * arrived, its response (an event stream, MCP's) may last as long as it needs. Node checks the
 * bounds every `connectionsCheckingInterval` (30 s by default, too coarse for a 15 s bound).
 */
export function serverTimeoutOptions(settings: TimeoutSettings) {
  const { headersTimeoutMs, requestTimeoutMs } = settings;
  const connectionsCheckingInterval = Math.min(5000, Math.max(100, Math.round(headersTimeoutMs / 4)));
  return {
    // Fastify sets this on the server after creating it (its default, 0, would switch it off).
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    http: { headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs, connectionsCheckingInterval },
    clientErrorHandler: clientErrorAnswer(settings),
  };
}

/**
 * Answers what Node refuses before a request reaches Fastify (a timeout, headers too large,
 * malformed HTTP) with the API's `{ error }` body, and closes the connection.
 */
function clientErrorAnswer({ headersTimeoutMs, requestTimeoutMs }: TimeoutSettings) {
  const seconds = (ms: number) => `${ms / 1000} s`;
  return function answer(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    let status = 400;
    let message = 'Malformed HTTP request';
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      status = 408;
      message = `The request did not arrive in time: its headers must arrive within ${seconds(headersTimeoutMs)}, all of it (with any wait for an ingestion slot) within ${seconds(requestTimeoutMs)}`;
      this.log.info('request timed out before it arrived');
    } else if (error.code === 'HPE_HEADER_OVERFLOW') {
      status = 431;
      message = 'Request headers are too large';
    }
    // Node's own default looks at the same field: a response under way must not be interrupted.
    const response = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (socket.writable && !response?.headersSent) {
      const body = JSON.stringify({ error: message });
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

import { performance } from 'node:perf_hooks';
import { type Readable, Transform } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route starts its body's deadline itself (the ingestion routes: once past their gate). */
    watchesOwnBody?: boolean;
  }
}

/** A body that did not arrive in time: Fastify answers with its status and message. */
export class BodyTimeoutError extends Error {
  readonly statusCode = 408;
  constructor(message: string) {
    super(message);
    this.name = 'BodyTimeoutError';
  }
}

export interface StallWatch {
  /** Whether giving up a stalled body now helps anyone (other requests wait for its place). */
  matters: () => boolean;
  /** Why it was given up, for the client. */
  message: string;
}

/**
 * Bounds how long a request body may take once the server starts reading it: `timeoutMs` in
 * all and, for a body that holds a scarce place (an ingestion slot), `stallMs` without a byte
 * while others wait for that place. A late body is answered 408 and its connection closed.
 */
export class BodyDeadlines {
  readonly timeoutMs: number;
  readonly stallMs: number;

  constructor(options: { timeoutMs: number; stallMs: number }) {
    this.timeoutMs = options.timeoutMs;
    this.stallMs = options.stallMs;
  }

  /**
   * The stream the body parser should read instead of `payload`: the same bytes, ending in a
   * `BodyTimeoutError` when they are late. If the body is not being parsed (the route answered
   * without it, or its response has begun), the connection is closed instead.
   */
  watch(request: FastifyRequest, reply: FastifyReply, payload: Readable, stall?: StallWatch): Readable {
    let lastByteAt = performance.now();
    const body = new Transform({
      transform(chunk, _encoding, done) {
        lastByteAt = performance.now();
        done(null, chunk);
      },
    });
    // The parser reports a failed read; this listener only keeps an unread failure from throwing.
    body.on('error', () => {});
    payload.on('error', (error) => body.destroy(error));
    payload.pipe(body);

    const giveUp = (message: string) => {
      stop();
      if (request.raw.complete) return;
      if (reply.raw.headersSent || body.listenerCount('data') === 0) {
        request.raw.socket?.destroy();
        return;
      }
      // The answer closes the connection, so the rest of the body is never read.
      reply.header('connection', 'close');
      payload.unpipe(body);
      body.destroy(new BodyTimeoutError(message));
    };
    const deadline = setTimeout(
      () =>
        giveUp(
          `The request body did not arrive within ${this.timeoutMs / 1000} s; the connection is closed. Send the body at once after the headers.`,
        ),
      this.timeoutMs,
    );
    const { stallMs } = this;
    // Checked often enough that a stalled body is given up within a quarter of a second of the bound.
    const stallCheck = stall
      ? setInterval(
          () => {
            if (performance.now() - lastByteAt >= stallMs && stall.matters()) giveUp(stall.message);
          },
          Math.min(250, stallMs / 4),
        )
      : undefined;
    function stop() {
      clearTimeout(deadline);
      clearInterval(stallCheck);
    }
    body.once('end', stop);
    body.once('close', stop);
    reply.raw.once('close', stop);
    return body;
  }
}

/** The answer's connection closes when it is sent before the request's body has all arrived. */
export function closeUnfinishedRequests(request: FastifyRequest, reply: FastifyReply): void {
  if (!request.raw.complete) reply.header('connection', 'close');
}

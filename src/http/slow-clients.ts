import type { FastifyInstance } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import { type BodyDeadlines, closeUnfinishedRequests } from './body-deadline.ts';
import type { ClientIp } from './client-ip.ts';

/**
 * Counts, per client address, the requests whose bodies are still arriving; `take` refuses
 * the one past the limit. In memory, per process.
 */
export class BodiesPerAddress {
  readonly limit: number;
  readonly #arriving = new Map<string, number>();

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`limit must be a positive integer (got ${limit})`);
    this.limit = limit;
  }

  /** Addresses with a body arriving now. */
  get addresses(): number {
    return this.#arriving.size;
  }

  /** The function that gives the place back (again: nothing), or null at the limit. */
  take(address: string): (() => void) | null {
    const count = this.#arriving.get(address) ?? 0;
    if (count >= this.limit) return null;
    this.#arriving.set(address, count + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.#arriving.get(address) ?? 1) - 1;
      if (left === 0) this.#arriving.delete(address);
      else this.#arriving.set(address, left);
    };
  }
}

export interface SlowClientOptions {
  deadlines: BodyDeadlines;
  /** Bodies arriving at once per address for requests no key or session authenticated. */
  unauthenticated: BodiesPerAddress;
  clientIp: ClientIp;
}

/**
 * Once a request is authenticated or not (onRequest), before its body is read: a request
 * without a key or session whose body is still arriving takes a place of its address (over
 * the limit: 429, connection closed), and every body is read under the deadlines, except on
 * routes that start them themselves. An answer sent before its request's body has arrived
 * closes the connection, so the rest of a refused body is not read.
 */
export function installSlowClientBounds(app: FastifyInstance, options: SlowClientOptions): void {
  const { deadlines, unauthenticated, clientIp } = options;
  const retryAfterSeconds = Math.ceil(deadlines.timeoutMs / 1000);
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (request.raw.complete) return done(null, payload);
    if (request.principal === null) {
      const address = clientIp(request);
      if (address !== null) {
        const giveBack = unauthenticated.take(address);
        if (giveBack === null) {
          return done(
            new DomainError(
              'rate_limited',
              `Too many requests from this address are still sending their bodies: at most ${unauthenticated.limit} at once without an API key or session`,
              { retryAfterSeconds },
            ),
          );
        }
        request.raw.once('end', giveBack);
        reply.raw.once('close', giveBack);
      }
    }
    if (request.routeOptions.config.watchesOwnBody) return done(null, payload);
    done(null, deadlines.watch(request, reply, payload));
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    closeUnfinishedRequests(request, reply);
    done(null, payload);
  });
}

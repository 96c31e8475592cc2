import type { FastifyInstance } from 'fastify';
import { type BodyDeadlines, closeUnfinishedRequests } from './body-deadline.ts';

export interface SlowClientOptions {
  deadlines: BodyDeadlines;
}

/**
 * Before a request's body is read: every body is read under the deadlines, except on routes
 * that start them themselves. An answer sent before its request's body has arrived closes the
 * connection, so the rest of a refused body is not read.
 */
export function installSlowClientBounds(app: FastifyInstance, options: SlowClientOptions): void {
  const { deadlines } = options;
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (request.raw.complete || request.routeOptions.config.watchesOwnBody) return done(null, payload);
    done(null, deadlines.watch(request, reply, payload));
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    closeUnfinishedRequests(request, reply);
    done(null, payload);
  });
}

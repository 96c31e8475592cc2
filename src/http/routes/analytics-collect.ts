import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AnalyticsService } from '../../domain/analytics/analytics-service.ts';
import type { Clock } from '../../domain/clock.ts';
import { DomainError } from '../../domain/errors.ts';
import { InMemoryRateLimiter } from '../../domain/rate-limit/in-memory-rate-limiter.ts';
import { clientIpResolver } from '../client-ip.ts';
import { errorResponses } from '../schemas.ts';
import { TRACKER_SCRIPT } from '../tracker/script.ts';

export interface AnalyticsCollectOptions {
  analytics: AnalyticsService;
  /**
   * Proxies whose X-Forwarded-For is believed: IPs, CIDRs, or proxy-addr's names
   * (`loopback`, `linklocal`, `uniquelocal`). Empty: the socket address is the client.
   */
  trustedProxies: readonly string[];
  /** Beacons per client IP per minute per project, counted in this process; 0 disables. */
  rateLimitPerMinute: number;
  clock: Clock;
}

const tags = ['Docs analytics'];
const CollectParams = Type.Object({ projectId: Type.String({ minLength: 1, maxLength: 64 }) });
// A beacon is a page path and a referrer: anything larger is not ours.
const COLLECT_BODY_LIMIT = 8 * 1024;

/**
 * The browser tracker: `GET /script.js` and the public collect endpoint it posts to. No secret
 * is needed; the request's Origin must be one of the project's allowed origins, and IP and user
 * agent come from the request itself (X-Forwarded-For only from trusted proxies). Beacons are
 * rate-limited per project and client IP in memory, so a flood costs no database write.
 */
export const analyticsCollectRoutes: FastifyPluginAsyncTypebox<AnalyticsCollectOptions> = async (
  app,
  options,
) => {
  const { analytics } = options;
  const clientIp = clientIpResolver(options.trustedProxies);
  const limiter = new InMemoryRateLimiter({
    clock: options.clock,
    limit: options.rateLimitPerMinute,
    windowSeconds: 60,
    unit: 'views from this address',
  });

  // sendBeacon posts text/plain (no CORS preflight); the body is still JSON.
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new DomainError('invalid', 'Body must be JSON like {"p": "/page"}'), undefined);
    }
  });

  app.get('/script.js', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('application/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('cross-origin-resource-policy', 'cross-origin')
      .send(TRACKER_SCRIPT),
  );

  app.options(
    '/v1/analytics/:projectId/collect',
    { schema: { hide: true, params: CollectParams } },
    async (request, reply) => {
      await allowOrigin(request, reply, request.params.projectId);
      return reply
        .header('access-control-allow-methods', 'POST')
        .header('access-control-allow-headers', 'content-type')
        .header('access-control-max-age', '86400')
        .code(204)
        .send();
    },
  );

  app.post(
    '/v1/analytics/:projectId/collect',
    {
      bodyLimit: COLLECT_BODY_LIMIT,
      schema: {
        summary: 'Collect a page view from the browser tracker',
        description:
          "Public: called by /script.js from pages on the project's allowed origins (CORS). No API key; IP and user agent come from the request. Limited per client IP per minute (429 with Retry-After).",
        tags,
        params: CollectParams,
        body: Type.Object({
          p: Type.String({
            minLength: 1,
            maxLength: 2048,
            description: 'The page path (location.pathname).',
          }),
          r: Type.Optional(
            Type.String({ maxLength: 2048, description: 'document.referrer on the first view.' }),
          ),
        }),
        response: {
          202: Type.Object({ accepted: Type.Integer() }),
          429: errorResponses[429],
          503: errorResponses[503],
        },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params;
      await allowOrigin(request, reply, projectId);
      const ip = clientIp(request) ?? undefined;
      // After the Origin check: refused requests neither use a client's budget nor add keys.
      limiter.hit(`${projectId} ${ip}`);
      const result = await analytics.ingest(projectId, [
        {
          timestamp: options.clock().getTime(),
          path: request.body.p,
          userAgent: request.headers['user-agent'] ?? '',
          ip,
          referrer: request.body.r,
          accept: request.headers.accept,
        },
      ]);
      const rejection = result.rejected[0];
      if (rejection) throw new DomainError('invalid', rejection.reason);
      return reply.code(202).send({ accepted: result.accepted });
    },
  );

  async function allowOrigin(request: FastifyRequest, reply: FastifyReply, projectId: string): Promise<void> {
    const origin = request.headers.origin;
    if (!origin)
      throw new DomainError(
        'forbidden',
        'The collect endpoint is for browsers: an Origin header is required',
      );
    if (!(await analytics.isAllowedOrigin(projectId, origin))) {
      throw new DomainError('forbidden', `Origin ${origin} is not allowed to send views to this project`);
    }
    reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
  }
};

import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import { AdmissionGate } from './admission-gate.ts';
import { projectAuthenticator } from './auth.ts';
import { BodyDeadlines } from './body-deadline.ts';
import { clientIpResolver } from './client-ip.ts';
import { DASHBOARD_API_PREFIX, dashboardApi, isPublicApiTwin } from './dashboard-api.ts';
import { installErrorHandling } from './errors.ts';
import { sharedSerializerFactory } from './response-serializers.ts';
import { agentJobRoutes } from './routes/agent-jobs.ts';
import { analyticsRoutes } from './routes/analytics.ts';
import { analyticsCollectRoutes } from './routes/analytics-collect.ts';
import { apiReferenceRoutes } from './routes/api-reference.ts';
import { automationRoutes } from './routes/automations.ts';
import { codeChangeHookRoutes } from './routes/code-change-hooks.ts';
import { contextRepositoryRoutes } from './routes/context-repositories.ts';
import { dashboardAppRoutes } from './routes/dashboard-app.ts';
import { jobEventRoutes } from './routes/job-events.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { metaRoutes } from './routes/meta.ts';
import { reviewRoutes } from './routes/review.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { addSharedSchemas } from './schemas.ts';
import { serverTimeoutOptions } from './server-timeouts.ts';
import type { HttpServices } from './services.ts';
import { SESSION_COOKIE } from './session-auth.ts';
import { BodiesPerAddress, installSlowClientBounds } from './slow-clients.ts';
import { installJsonParser, installValidators, refuseUnknownFields } from './validation.ts';

export interface HttpAppOptions {
  services: HttpServices;
  logger: Logger;
  /** Told of every route as it is registered (tests enumerate the routes with it). */
  onRoute?: (route: RegisteredRoute) => void;
  /** Where the built dashboard is (default: dist/dashboard of this checkout). */
  dashboardDir?: string;
}

export interface RegisteredRoute {
  method: string;
  url: string;
  /** Left out of /openapi.json on purpose. */
  hidden: boolean;
}

export async function buildHttpApp({
  services,
  logger,
  onRoute,
  dashboardDir,
}: HttpAppOptions): Promise<FastifyInstance> {
  const { settings } = services;
  // One for the public API's and the dashboard's ingestion routes: the limit is the process's.
  const ingestGate = new AdmissionGate(settings.ingestConcurrency);
  const bodyDeadlines = new BodyDeadlines({
    timeoutMs: settings.bodyTimeoutMs,
    stallMs: settings.ingestStallMs,
  });
  const clientIp = clientIpResolver(settings.trustedProxies);
  const app = Fastify({
    ...serverTimeoutOptions(settings),
    loggerInstance: logger as FastifyBaseLogger,
    // One line per request is written by the onResponse hook below instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: settings.bodyLimitBytes,
    genReqId: () => randomUUID(),
    schemaController: { compilersFactory: { buildSerializer: sharedSerializerFactory() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Before swagger registers its own hook, so the document shows the closed schemas.
  app.addHook('onRoute', refuseUnknownFields);
  // The public API's twins under /dashboard/api would repeat every public route in the document.
  app.addHook('onRoute', (route) => {
    if (isPublicApiTwin(route.url)) route.schema = { ...route.schema, hide: true };
  });
  if (onRoute) {
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) {
        onRoute({ method, url: route.url, hidden: Boolean((route.schema as { hide?: boolean })?.hide) });
      }
    });
  }
  // The API speaks JSON only: without this, Fastify would accept text/plain bodies as strings.
  app.removeContentTypeParser('text/plain');
  installJsonParser(app);
  app.decorate('ingestGate', ingestGate);
  app.decorateRequest('principal', null);
  // Callback-style hooks: cheaper than async ones on every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // Also on the raw response: routes that hijack it (POST /mcp) write their own head, which
    // Node merges with this.
    reply.raw.setHeader('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        url: request.routeOptions.url,
        status: reply.statusCode,
        ms: reply.elapsedTime,
      },
      'request',
    );
    done();
  });
  installSlowClientBounds(app, {
    deadlines: bodyDeadlines,
    unauthenticated: new BodiesPerAddress(settings.unauthenticatedBodiesPerAddress),
    clientIp,
  });
  installErrorHandling(app);
  installValidators(app);

  await app.register(swagger, {
    // Shared schemas appear under their own names (#/components/schemas/Job), not def-N.
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Docwright API',
        version: '2',
        description:
          'Documentation agent jobs and docs analytics. Every request needs `Authorization: Bearer <API key>`; a key belongs to one project. The routes tagged Dashboard serve the dashboard and take its session cookie instead of a key.',
      },
      servers: [{ url: settings.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'dw_…' },
          cookieAuth: {
            type: 'apiKey',
            in: 'cookie',
            name: SESSION_COOKIE,
            description: 'The dashboard session, set by POST /dashboard/api/session.',
          },
          csrfToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-CSRF-Token',
            description:
              'The csrfToken of GET /dashboard/api/session, on every state-changing dashboard request.',
          },
        },
      },
    },
  });
  await app.register(apiReferenceRoutes, { publicUrl: settings.publicUrl });
  addSharedSchemas(app);

  await app.register(metaRoutes);
  await app.register(reviewRoutes, { review: services.review, keys: services.keys, clientIp });
  await app.register(analyticsCollectRoutes, {
    analytics: services.analytics,
    trustedProxies: settings.trustedProxies,
    rateLimitPerMinute: settings.collectRateLimitPerMinute,
    clock: services.clock,
  });
  // Signed by the code host, not by an API key: outside the key-authenticated scope.
  await app.register(codeChangeHookRoutes, { receiver: services.codeChangeReceiver });
  await app.register(async (api) => {
    api.addHook('onRequest', projectAuthenticator(services.keys, services.projects, clientIp));
    await api.register(agentJobRoutes, {
      jobs: services.jobs,
      projects: services.projects,
      rateLimiter: services.rateLimiter,
      maxPromptLength: settings.maxPromptLength,
    });
    await api.register(jobEventRoutes, {
      jobs: services.jobs,
      heartbeatMs: settings.eventsHeartbeatMs,
      streamMs: settings.eventsStreamMs,
    });
    await api.register(contextRepositoryRoutes, {
      contextRepositories: services.contextRepositories,
      localRepositoryRoots: settings.localRepositoryRoots,
    });
    await api.register(analyticsRoutes, {
      analytics: services.analytics,
      rateLimiter: services.analyticsRateLimiter,
      ingestGate,
      bodyDeadlines,
    });
    await api.register(webhookRoutes, { webhooks: services.webhooks });
    await api.register(mcpRoutes, {
      jobs: services.jobs,
      projects: services.projects,
      analytics: services.analytics,
      rateLimiter: services.rateLimiter,
      analyticsRateLimiter: services.analyticsRateLimiter,
      maxPromptLength: settings.maxPromptLength,
    });
    await api.register(automationRoutes, {
      automations: services.automations,
      maxPromptLength: settings.maxPromptLength,
    });
  });
  await app.register(dashboardApi, { prefix: DASHBOARD_API_PREFIX, services, ingestGate, bodyDeadlines });
  // Last: its catch-all serves the dashboard to browsers on every path no route above took.
  await app.register(dashboardAppRoutes, dashboardDir ? { distDir: dashboardDir } : {});
  return app;
}

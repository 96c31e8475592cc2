import type { FastifyPluginAsync } from 'fastify';
import type { AdmissionGate } from './admission-gate.ts';
import type { BodyDeadlines } from './body-deadline.ts';
import { agentJobRoutes } from './routes/agent-jobs.ts';
import { analyticsRoutes } from './routes/analytics.ts';
import { automationRoutes } from './routes/automations.ts';
import { contextRepositoryRoutes } from './routes/context-repositories.ts';
import { dashboardJobLookupRoutes } from './routes/dashboard-job-lookup.ts';
import { dashboardJobRoutes } from './routes/dashboard-jobs.ts';
import { dashboardKeyRoutes } from './routes/dashboard-keys.ts';
import { dashboardProjectRoutes } from './routes/dashboard-projects.ts';
import { dashboardSessionRoutes } from './routes/dashboard-session.ts';
import { dashboardSettingsRoutes } from './routes/dashboard-settings.ts';
import { dashboardUserRoutes } from './routes/dashboard-users.ts';
import { jobEventRoutes } from './routes/job-events.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import type { HttpServices } from './services.ts';
import { sessionAuthenticator } from './session-auth.ts';

/** Prefix of the dashboard's API; the public API's twins sit under it (`/dashboard/api/v2/…`). */
export const DASHBOARD_API_PREFIX = '/dashboard/api';

/** The public API's routes registered again under the dashboard prefix: left out of /openapi.json. */
export const isPublicApiTwin = (url: string) => /^\/dashboard\/api\/v[12]\//.test(url);

/**
 * Everything under `/dashboard/api`, behind the session authenticator: the dashboard's own
 * routes, and the public API's job, connected-repository and analytics routes (same schemas,
 * handlers and queries) for a signed-in account instead of a bearer key. Register with
 * `{ prefix: DASHBOARD_API_PREFIX }`.
 */
export const dashboardApi: FastifyPluginAsync<{
  services: HttpServices;
  ingestGate: AdmissionGate;
  bodyDeadlines: BodyDeadlines;
}> = async (app, { services, ingestGate, bodyDeadlines }) => {
  const { settings } = services;
  app.decorateRequest('accountSession', null);
  app.decorateRequest('sessionToken', null);
  app.addHook(
    'onRequest',
    sessionAuthenticator({
      sessions: services.sessions,
      projects: services.projects,
      publicUrl: settings.publicUrl,
    }),
  );

  await app.register(dashboardSessionRoutes, {
    sessions: services.sessions,
    signIn: services.signIn,
    publicUrl: settings.publicUrl,
    trustedProxies: settings.trustedProxies,
  });
  await app.register(dashboardUserRoutes, {
    users: services.users,
    links: services.signInLinks,
    publicUrl: settings.publicUrl,
  });
  await app.register(dashboardProjectRoutes, {
    projects: services.projects,
    removal: services.projectRemoval,
    localRepositoryRoots: settings.localRepositoryRoots,
  });
  await app.register(dashboardSettingsRoutes, { settings: services.settingsOverview });
  await app.register(dashboardKeyRoutes, { keys: services.keys });
  await app.register(dashboardJobLookupRoutes, { projects: services.projects });
  await app.register(dashboardJobRoutes, { jobs: services.jobs, review: services.review });

  // The public API, through the session.
  await app.register(agentJobRoutes, {
    jobs: services.jobs,
    projects: services.projects,
    rateLimiter: services.rateLimiter,
    maxPromptLength: settings.maxPromptLength,
  });
  await app.register(jobEventRoutes, {
    jobs: services.jobs,
    heartbeatMs: settings.eventsHeartbeatMs,
    streamMs: settings.eventsStreamMs,
  });
  await app.register(contextRepositoryRoutes, {
    contextRepositories: services.contextRepositories,
    localRepositoryRoots: settings.localRepositoryRoots,
  });
  await app.register(analyticsRoutes, {
    analytics: services.analytics,
    rateLimiter: services.analyticsRateLimiter,
    ingestGate,
    bodyDeadlines,
  });
  await app.register(webhookRoutes, { webhooks: services.webhooks });
  await app.register(automationRoutes, {
    automations: services.automations,
    maxPromptLength: settings.maxPromptLength,
  });
};

import { hostname } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { AnalyticsBackendConfig, Config } from '../config/config.ts';
import type { Agent } from '../domain/agent/agent.ts';
import type { AnalyticsService } from '../domain/analytics/analytics-service.ts';
import type { AnalyticsOptions } from '../domain/analytics/options.ts';
import type { AnalyticsStore } from '../domain/analytics/store.ts';
import { AutomationService } from '../domain/automations/automation-service.ts';
import { CodeChangeReceiver } from '../domain/automations/code-change/code-change-receiver.ts';
import { settleRunsOnTurnEnd } from '../domain/automations/run-settlement.ts';
import { AutomationScheduler } from '../domain/automations/scheduler.ts';
import { type Clock, systemClock } from '../domain/clock.ts';
import { JobEventFeed } from '../domain/jobs/job-event-feed.ts';
import { JobEventLog } from '../domain/jobs/job-events.ts';
import { JobService } from '../domain/jobs/job-service.ts';
import { WorkSignal } from '../domain/jobs/work-signal.ts';
import { KeyService } from '../domain/keys/key-service.ts';
import { resolveCodeHostSettings } from '../domain/projects/code-host-settings.ts';
import { ContextRepositoryService } from '../domain/projects/context-repositories.ts';
import { ProjectRemoval } from '../domain/projects/project-removal.ts';
import { ProjectService } from '../domain/projects/project-service.ts';
import { ProjectSettingsService } from '../domain/projects/project-settings.ts';
import { ProjectSettingsOverview } from '../domain/projects/settings-overview.ts';
import { RateLimiter } from '../domain/rate-limit/rate-limiter.ts';
import { ReviewService } from '../domain/review/review-service.ts';
import { Worker } from '../domain/runner/worker.ts';
import type { SecretBox } from '../domain/secrets/secret-box.ts';
import { SessionService } from '../domain/sessions/session-service.ts';
import { type SignInLimits, SignInService } from '../domain/sessions/sign-in.ts';
import { SignInLinks } from '../domain/users/sign-in-links.ts';
import { UserService } from '../domain/users/user-service.ts';
import { DEFAULT_RETRY_POLICY } from '../domain/webhooks/backoff.ts';
import {
  RETENTION_BATCH_SIZE,
  RETENTION_EVERY_MS,
  WebhookDispatcher,
} from '../domain/webhooks/dispatcher.ts';
import { WebhookService } from '../domain/webhooks/webhook-service.ts';
import type { HttpServices, HttpSettings } from '../http/services.ts';
import { LocalReview } from '../integrations/codehosts/local-review.ts';
import { CodeHostPullRequestReader } from '../integrations/codehosts/pull-request-reader.ts';
import { GitRepositoryProbe } from '../integrations/git/repository-probe.ts';
import { guardedFetch } from '../integrations/network/guarded-fetch.ts';
import { hostRefusal } from '../integrations/network/guarded-lookup.ts';
import { HttpWebhookTransport } from '../integrations/webhooks/http-transport.ts';
import { openStorage, type Storage } from '../storage/database.ts';
import { migrate } from '../storage/migrate.ts';
import { listProjects } from '../storage/queries/projects.ts';
import { adoptEmbeddedMetadata } from './adopt-embedded-metadata.ts';
import { CrawlerRangeReload } from './crawler-range-reload.ts';
import { createContextRepositories, createDocumentationAgent, createWorkspaces } from './create-agent.ts';
import { keepEmbeddedHistory } from './keep-embedded-history.ts';
import { analyticsFile, openAnalytics } from './open-analytics.ts';
import { openSecretBox, type SecretKeyInfo } from './secret-key.ts';
import { analyticsEngineUnreachable, mainDatabaseUnreachable } from './unreachable-storage.ts';

/** Everything a process needs, wired once from the configuration. */
export interface Services extends HttpServices {
  config: Config;
  storage: Storage;
  clock: Clock;
  projects: ProjectService;
  /** A project's connected source repositories (read-only context for its agent). */
  contextRepositories: ContextRepositoryService;
  keys: KeyService;
  jobs: JobService;
  rateLimiter: RateLimiter;
  workSignal: WorkSignal;
  /** Writes job changes with their events; wakes this process's event streams. */
  jobEvents: JobEventLog;
  jobEventFeed: JobEventFeed;
  agent: Agent;
  /** Encrypts stored credentials with DOCWRIGHT_SECRET_KEY, else the data directory's key file. */
  secretBox: SecretBox;
  /** Where that key came from, for the start-up banner. */
  secretKey: SecretKeyInfo;
  projectSettings: ProjectSettingsService;
  /** Deletes a project with its jobs, keys, working copies and analytics. */
  projectRemoval: ProjectRemoval;
  analytics: AnalyticsService;
  /** Where the views are stored: the configured backend, or the embedded file an older installation keeps. */
  analyticsBackend: AnalyticsBackendConfig;
  analyticsOptions: AnalyticsOptions;
  /** Picks up the crawler range lists `update-lists` stores (serve starts its hourly check). */
  crawlerRangeReload: CrawlerRangeReload;
  /** Sends the webhook outbox; started by the worker (createWorker), idle otherwise. */
  webhookDispatcher: WebhookDispatcher;
  /** Starts the runs of due schedule slots; started by the worker (createWorker), idle otherwise. */
  automationScheduler: AutomationScheduler;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  clock?: Clock;
  agent?: Agent;
  /** Use an already open storage (tests hand in one per test). */
  storage?: Storage;
  analytics?: Partial<AnalyticsOptions>;
  /** Views in this store instead of the configured backend's (benchmarks). */
  analyticsStore?: AnalyticsStore;
  /** Failed sign-ins allowed (tests lower them). */
  signInLimits?: SignInLimits;
}

export async function openServices(
  config: Config,
  logger: Logger,
  overrides: ServiceOverrides = {},
): Promise<Services> {
  const storage = overrides.storage ?? openStorage(config.database);
  try {
    await migrate(storage, config.database);
  } catch (error) {
    await storage.close();
    throw mainDatabaseUnreachable(error, config.database);
  }
  let secretBox: SecretBox;
  let secretKey: SecretKeyInfo;
  try {
    ({ box: secretBox, info: secretKey } = await openSecretBox(config, storage, logger));
  } catch (error) {
    await storage.close();
    throw error;
  }
  const clock = overrides.clock ?? systemClock;
  const workSignal = new WorkSignal();
  const jobEvents = new JobEventLog(storage);
  // An automation's run ends with the turn it queued, in the same transaction.
  jobEvents.onTurnEnded(settleRunsOnTurnEnd(config.publicUrl));
  const jobEventFeed = new JobEventFeed({
    log: jobEvents,
    onError: (error) =>
      logger.warn({ err: error }, 'job event feed: looking for new events failed; retrying'),
  });
  const analyticsOptions: AnalyticsOptions = { ...config.analytics, ...overrides.analytics };
  let analytics: AnalyticsService;
  let analyticsBackend: AnalyticsBackendConfig;
  const crawlerRangeReload = new CrawlerRangeReload({ storage, dataDir: config.dataDir, logger });
  try {
    // Before any view is keyed: salts of an older analytics file must be the ones used.
    await adoptEmbeddedMetadata({
      file: analyticsFile(config.dataDir, analyticsOptions),
      storage,
      clock,
      logger,
      saltRetentionDays: analyticsOptions.saltRetentionDays,
    });
    analyticsBackend = keepEmbeddedHistory(
      config.analytics.backend,
      analyticsFile(config.dataDir, analyticsOptions),
      (await listProjects(storage.db)).map((project) => project.id),
      logger,
    );
    analytics = await openAnalytics({
      backend: analyticsBackend,
      storage,
      clock,
      logger,
      settings: analyticsOptions,
      crawlerRanges: await crawlerRangeReload.load(),
      ...(overrides.analyticsStore ? { store: overrides.analyticsStore } : {}),
    }).catch((error: unknown) => {
      throw analyticsEngineUnreachable(error, config.analytics.backend);
    });
    crawlerRangeReload.applyTo((ranges) => analytics.setCrawlerRanges(ranges));
  } catch (error) {
    await storage.close();
    throw error;
  }
  const webhookTransport = new HttpWebhookTransport({ policy: config.outbound });
  const webhookDispatcher = new WebhookDispatcher({
    storage,
    clock,
    box: secretBox,
    transport: webhookTransport,
    logger,
    owner: `${hostname()}:${process.pid}:webhooks`,
    userAgent: 'Docwright-Webhooks/1.0 (+https://github.com/docwright/docwright/blob/main/docs/webhooks.md)',
    settings: {
      concurrency: config.webhooks.concurrency,
      timeoutMs: config.webhooks.timeoutSeconds * 1000,
      pollIntervalMs: config.worker.pollIntervalMs,
      retry: {
        ...DEFAULT_RETRY_POLICY,
        baseMs: config.webhooks.retryBaseSeconds * 1000,
        windowMs: config.webhooks.retryHours * 3_600_000,
      },
      retention: {
        keepMs: config.webhooks.retentionDays * 86_400_000,
        everyMs: RETENTION_EVERY_MS,
        batchSize: RETENTION_BATCH_SIZE,
      },
    },
  });
  // A job change that queued deliveries wakes this process's sender, if it runs one.
  jobEvents.onCommit(() => webhookDispatcher.notify());
  const workspaces = createWorkspaces(config, logger);
  const contextMirrors = createContextRepositories(config, logger);
  const projectSettings = new ProjectSettingsService(storage, secretBox, (host) =>
    hostRefusal(config.outbound, host),
  );
  const users = new UserService(storage, clock);
  const signInLinks = new SignInLinks(storage, clock);
  const sessions = new SessionService(storage, clock);
  const jobs = new JobService({
    storage,
    clock,
    defaultModel: config.model,
    workSignal,
    events: jobEvents,
    feed: jobEventFeed,
  });
  const repositoryProbe = new GitRepositoryProbe(logger, config.outbound);
  const projects = new ProjectService(storage, clock, repositoryProbe);
  const contextRepositories = new ContextRepositoryService(storage, clock, repositoryProbe, contextMirrors);
  // Source pull requests are read under the outgoing-network policy, like webhooks are sent.
  const sourceFetch = guardedFetch(config.outbound);
  const automations = new AutomationService({
    storage,
    clock,
    box: secretBox,
    jobs,
    events: jobEvents,
    publicUrl: config.publicUrl,
  });
  const automationScheduler = new AutomationScheduler({
    storage,
    clock,
    automations,
    logger,
    pollIntervalMs: config.worker.pollIntervalMs,
  });
  const settings: HttpSettings = {
    publicUrl: config.publicUrl,
    bodyLimitBytes: config.http.bodyLimitBytes,
    maxPromptLength: config.http.maxPromptLength,
    trustedProxies: analyticsOptions.trustedProxies,
    collectRateLimitPerMinute: analyticsOptions.collectRateLimitPerMinute,
    ingestConcurrency: analyticsOptions.ingestConcurrency,
    eventsHeartbeatMs: config.http.eventsHeartbeatSeconds * 1000,
    eventsStreamMs: config.http.eventsStreamSeconds * 1000,
    localRepositoryRoots: config.localRepositoryRoots,
    headersTimeoutMs: Math.round(config.http.headersTimeoutSeconds * 1000),
    bodyTimeoutMs: Math.round(config.http.bodyTimeoutSeconds * 1000),
    requestTimeoutMs: Math.round(config.http.requestTimeoutSeconds * 1000),
    unauthenticatedBodiesPerAddress: config.http.unauthenticatedBodiesPerAddress,
    ingestStallMs: Math.round(config.http.ingestStallSeconds * 1000),
  };
  return {
    config,
    settings,
    storage,
    clock,
    workSignal,
    jobEvents,
    jobEventFeed,
    projects,
    contextRepositories,
    keys: new KeyService(storage, clock, (error) => logger.warn({ err: error }, 'could not record key use')),
    jobs,
    automations,
    codeChangeReceiver: new CodeChangeReceiver({
      automations,
      pullRequestReaderFor: async (projectId) => {
        const project = await projects.get(projectId);
        return new CodeHostPullRequestReader(resolveCodeHostSettings(project, project.settings, secretBox), {
          fetch: sourceFetch,
        });
      },
      logger,
    }),
    automationScheduler,
    rateLimiter: new RateLimiter(
      storage,
      clock,
      config.http.rateLimitPerWindow,
      config.http.rateLimitWindowSeconds,
    ),
    agent:
      overrides.agent ??
      createDocumentationAgent(config, logger, {
        secretBox,
        workspaces,
        context: { entries: (projectId) => contextRepositories.list(projectId), files: contextMirrors },
      }),
    secretBox,
    secretKey,
    projectSettings,
    settingsOverview: new ProjectSettingsOverview({
      agent: projectSettings,
      analytics,
      server: {
        defaultModel: config.model,
        saltRotation: analyticsOptions.saltRotation,
        publicUrl: config.publicUrl,
      },
      clock,
    }),
    projectRemoval: new ProjectRemoval(
      storage,
      {
        // The project's working copies and mirrors, and its connected repositories' mirrors.
        removeProject: async (projectId, jobIds) => {
          await workspaces.removeProject(projectId, jobIds);
          await contextMirrors.remove(projectId);
        },
      },
      analytics,
    ),
    users,
    signInLinks,
    sessions,
    signIn: new SignInService({
      storage,
      clock,
      users,
      links: signInLinks,
      sessions,
      ...(overrides.signInLimits ? { limits: overrides.signInLimits } : {}),
    }),
    review: new ReviewService(
      storage,
      new LocalReview({
        tempDir: path.join(config.dataDir, 'tmp'),
        author: { name: config.git.authorName, email: config.git.authorEmail },
        logger,
      }),
      workspaces,
    ),
    analytics,
    analyticsBackend,
    analyticsOptions,
    crawlerRangeReload,
    webhookDispatcher,
    webhooks: new WebhookService({
      storage,
      clock,
      box: secretBox,
      network: config.outbound,
      onQueued: () => webhookDispatcher.notify(),
    }),
    analyticsRateLimiter: new RateLimiter(
      storage,
      clock,
      analyticsOptions.rateLimitPerWindow,
      config.http.rateLimitWindowSeconds,
    ),
    close: async () => {
      await automationScheduler.stop();
      await webhookDispatcher.stop();
      webhookTransport.close();
      await jobEventFeed.close();
      await analytics.close();
      await storage.close();
    },
  };
}

export function createWorker(services: Services, logger: Logger): Worker {
  return new Worker({
    storage: services.storage,
    events: services.jobEvents,
    agent: services.agent,
    clock: services.clock,
    logger,
    workSignal: services.workSignal,
    settings: services.config.worker,
    defaultModel: services.config.model,
    modelPrices: services.config.modelPrices,
    webhooks: services.webhookDispatcher,
    scheduler: services.automationScheduler,
  });
}

import type { AnalyticsService } from '../domain/analytics/analytics-service.ts';
import type { AutomationService } from '../domain/automations/automation-service.ts';
import type { CodeChangeReceiver } from '../domain/automations/code-change/code-change-receiver.ts';
import type { Clock } from '../domain/clock.ts';
import type { JobService } from '../domain/jobs/job-service.ts';
import type { KeyService } from '../domain/keys/key-service.ts';
import type { ContextRepositoryService } from '../domain/projects/context-repositories.ts';
import type { ProjectRemoval } from '../domain/projects/project-removal.ts';
import type { ProjectService } from '../domain/projects/project-service.ts';
import type { ProjectSettingsOverview } from '../domain/projects/settings-overview.ts';
import type { RateLimiter } from '../domain/rate-limit/rate-limiter.ts';
import type { ReviewService } from '../domain/review/review-service.ts';
import type { SessionService } from '../domain/sessions/session-service.ts';
import type { SignInService } from '../domain/sessions/sign-in.ts';
import type { SignInLinks } from '../domain/users/sign-in-links.ts';
import type { UserService } from '../domain/users/user-service.ts';
import type { WebhookService } from '../domain/webhooks/webhook-service.ts';

/** What the HTTP layer needs from the process; the composition root (src/app) provides it. */
export interface HttpServices {
  settings: HttpSettings;
  clock: Clock;
  keys: KeyService;
  projects: ProjectService;
  /** Deletes a project with its jobs, keys, working copies and analytics. */
  projectRemoval: ProjectRemoval;
  /** The source repositories a project's agent may read. */
  contextRepositories: ContextRepositoryService;
  /** A project's agent, analytics and server settings together (the dashboard's settings page). */
  settingsOverview: ProjectSettingsOverview;
  jobs: JobService;
  /** Limits job creation and messages per project. */
  rateLimiter: RateLimiter;
  review: ReviewService;
  analytics: AnalyticsService;
  /** Limits analytics exports per project (ingestion is not limited). */
  analyticsRateLimiter: RateLimiter;
  /** A project's automations and their runs; `startRun` is the one way a run starts. */
  automations: AutomationService;
  /** GitHub and GitLab webhooks in: code-change automations' runs. */
  codeChangeReceiver: CodeChangeReceiver;
  /** Webhook endpoints and their delivery logs. */
  webhooks: WebhookService;
  /** Dashboard accounts, their sign-in links and sessions. */
  users: UserService;
  signInLinks: SignInLinks;
  sessions: SessionService;
  signIn: SignInService;
}

export interface HttpSettings {
  /** DOCWRIGHT_PUBLIC_URL: links are built from it; https makes cookies Secure; its host is a trusted Origin. */
  publicUrl: string;
  bodyLimitBytes: number;
  maxPromptLength: number;
  /** Proxies whose X-Forwarded-For is believed for a client's address (tracker, sign-in limits, key allowlists). */
  trustedProxies: readonly string[];
  /** Tracker beacons per client IP per minute per project; 0 disables. */
  collectRateLimitPerMinute: number;
  /** Ingestion requests whose bodies this process reads at once; the others wait unread. */
  ingestConcurrency: number;
  /** How often an idle job event stream sends a comment line, so proxies keep it open. */
  eventsHeartbeatMs: number;
  /** How long one job event stream lasts; the client reconnects and is authenticated again. */
  eventsStreamMs: number;
  /** Directories a repository path given over HTTP must lie under. */
  localRepositoryRoots: readonly string[];
  /** How long a request's line and headers may take to arrive. */
  headersTimeoutMs: number;
  /** How long a body may take to arrive once the server starts reading it. */
  bodyTimeoutMs: number;
  /** How long a whole request may take to arrive (headers, a wait at the ingestion gate, body). */
  requestTimeoutMs: number;
  /** Requests without a key or session whose bodies are still arriving, per client address. */
  unauthenticatedBodiesPerAddress: number;
  /** An admitted ingestion body without a byte this long gives its place up when others wait. */
  ingestStallMs: number;
}

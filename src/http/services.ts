import type { AnalyticsService } from '../domain/analytics/analytics-service.ts';
import type { Clock } from '../domain/clock.ts';
import type { JobService } from '../domain/jobs/job-service.ts';
import type { KeyService } from '../domain/keys/key-service.ts';
import type { ProjectService } from '../domain/projects/project-service.ts';
import type { RateLimiter } from '../domain/rate-limit/rate-limiter.ts';
import type { ReviewService } from '../domain/review/review-service.ts';
import type { SessionService } from '../domain/sessions/session-service.ts';

/** What the HTTP layer needs from the process; the composition root (src/app) provides it. */
export interface HttpServices {
  settings: HttpSettings;
  clock: Clock;
  keys: KeyService;
  sessions: SessionService;
  projects: ProjectService;
  jobs: JobService;
  /** Limits job creation and messages per project. */
  rateLimiter: RateLimiter;
  review: ReviewService;
  analytics: AnalyticsService;
  /** Limits analytics exports per project (ingestion is not limited). */
  analyticsRateLimiter: RateLimiter;
}

export interface HttpSettings {
  /** DOCWRIGHT_PUBLIC_URL: links are built from it; https makes cookies Secure; its host is a trusted Origin. */
  publicUrl: string;
  bodyLimitBytes: number;
  maxPromptLength: number;
  /** Proxies whose X-Forwarded-For is believed for the client's address (browser tracker, key allowlists). */
  trustedProxies: readonly string[];
  /** Tracker beacons per client IP per minute per project; 0 disables. */
  collectRateLimitPerMinute: number;
}

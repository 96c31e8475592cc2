import type { GeneratedAlways, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Table shapes as the database holds them. Timestamps are ISO 8601 UTC strings with
 * millisecond precision (always 24 characters), so they compare correctly as text on
 * both SQLite and PostgreSQL.
 */
export interface Database {
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  jobs: JobsTable;
  turns: TurnsTable;
  messages: MessagesTable;
  rate_limit_windows: RateLimitWindowsTable;
  sessions: SessionsTable;
  users: UsersTable;
  sign_in_links: SignInLinksTable;
  job_events: JobEventsTable;
  analytics_salts: AnalyticsSaltsTable;
  analytics_settings: AnalyticsSettingsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  project_monthly_spend: ProjectMonthlySpendTable;
  automations: AutomationsTable;
  automation_runs: AutomationRunsTable;
  automation_slots: AutomationSlotsTable;
  crawler_range_lists: CrawlerRangeListsTable;
  context_repositories: ContextRepositoriesTable;
}

export interface ProjectsTable {
  id: string;
  name: string;
  repository: string;
  base_branch: string;
  /** JSON object of per-project settings (model, code host…); secrets inside are encrypted. */
  settings: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  project_id: string;
  name: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  key_hash: string;
  /** The last characters of the key, so a person can tell keys apart. */
  hint: string;
  scope: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** After this instant the key is refused; null: never expires. */
  expires_at: string | null;
  /** JSON array of normalised IP addresses and CIDR ranges the key may be used from; null: anywhere. */
  allowed_ips: string | null;
}

export interface JobsTable {
  id: string;
  project_id: string;
  status: string;
  repository: string;
  branch: string;
  base_branch: string;
  model: string | null;
  pr_link: string | null;
  failure_reason: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
  /** The worker holding the job while one of its turns runs, and until when. */
  lease_owner: string | null;
  lease_expires_at: string | null;
  /** Sums over the job's turns (a bigint that `pg` returns as a string on PostgreSQL). */
  input_tokens: number | string;
  output_tokens: number | string;
  /** Sum of the turns' estimated costs in USD; null until one of them has an estimate. */
  cost_usd: number | null;
  /** Turns that recorded usage but have no estimate (their model had no price). */
  unpriced_turns: number;
  /** 1: its pull request opens as a draft, 0: ready for review; null: as the project says. */
  draft: number | null;
}

export interface TurnsTable {
  id: string;
  job_id: string;
  seq: number;
  prompt: string;
  /** provider:model-id resolved when the turn last started; null before. */
  model: string | null;
  status: string;
  attempts: number;
  error: string | null;
  summary: string | null;
  /** JSON: { inputTokens, outputTokens, cachedInputTokens? } or null. */
  usage: string | null;
  /** Estimated cost in USD when the usage was recorded; null without usage or without a price. */
  cost_usd: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** JSON list of what the turn's change relied on (domain/jobs/turn-sources.ts); null: none (migration 0015). */
  sources: string | null;
}

export interface MessagesTable {
  id: string;
  job_id: string;
  turn_id: string;
  seq: number;
  role: string;
  /** JSON payload, shape depends on role. */
  content: string;
  created_at: string;
}

export interface RateLimitWindowsTable {
  bucket: string;
  window_start: string;
  hits: number;
}

export interface SessionsTable {
  id: string;
  /** SHA-256 of the session token, hex. The token itself lives only in the browser's cookie. */
  token_hash: string;
  /** Unused since accounts (0004): left from sessions opened with an API key. */
  project_id: string | null;
  /** Unused since accounts (0004). */
  api_key_id: string | null;
  /** The account the session is signed in as. */
  user_id: string | null;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export interface UsersTable {
  id: string;
  /** Lower-cased, unique. */
  email: string;
  /** `scrypt$N$r$p$salt$hash` (base64url); null until the account's sign-in link sets one. */
  password_hash: string | null;
  role: string;
  created_at: string;
  updated_at: string;
  last_sign_in_at: string | null;
}

export interface SignInLinksTable {
  id: string;
  user_id: string;
  /** SHA-256 of the link's token, hex. The token itself is only in the link. */
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface JobEventsTable {
  /** Increasing; a number on SQLite, a bigint that `pg` returns as a string on PostgreSQL. */
  id: GeneratedAlways<number | string>;
  job_id: string;
  project_id: string;
  /** status, turn, message, step or pull_request. */
  type: string;
  /** JSON payload, shape depends on type. */
  data: string;
  created_at: string;
}

/** The secret salt of one visitor-identity period (`2025-03-14`, `week-…`, `never`, `visitor-id`). */
export interface AnalyticsSaltsTable {
  period: string;
  /** 32 random bytes: a blob on SQLite, bytea on PostgreSQL; a Buffer either way. */
  salt: Buffer;
  created_at: string;
}

/** A project's analytics settings (allowed origins, page rules…) as a JSON object. */
export interface AnalyticsSettingsTable {
  project_id: string;
  value: string;
  updated_at: string;
}

/** Where a project's events are sent. */
export interface WebhookEndpointsTable {
  id: string;
  project_id: string;
  url: string;
  /** JSON array of the event types it receives. */
  events: string;
  /** The signing secret, sealed with the secret box (bound to the endpoint id). */
  secret: string;
  /** 1, or 0 when paused: a paused endpoint is not given new events. */
  enabled: number;
  /** The secret replaced by the last rotation, sealed like `secret`; also signs until it expires. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  /** When the URL, events, enabled flag or secret last changed; null if never. */
  updated_at: string | null;
}

/** One event for one endpoint: the outbox row, and its delivery log. */
export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  project_id: string;
  /** The event's id: the same in every endpoint's delivery of it. */
  event_id: string;
  type: string;
  /** The JSON text sent (and signed) on every attempt. */
  body: string;
  /** pending, succeeded or failed. */
  status: string;
  attempts: number;
  /** When a pending delivery is due; null once it is settled. */
  next_attempt_at: string | null;
  /** Retries stop a retry window (24 h) after this: creation, or the last resend by hand. */
  retry_from: string;
  /** The process sending it now, and until when. */
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_response_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/** A project's estimated spend in one calendar month (UTC), summed as turns are recorded. */
export interface ProjectMonthlySpendTable {
  project_id: string;
  /** `2026-11`. */
  month: string;
  cost_usd: number;
  /** Turns recorded that month without an estimate (no price for their model). */
  unpriced_turns: number;
}

/** A project's standing instructions that start agent jobs on a trigger. */
export interface AutomationsTable {
  id: string;
  project_id: string;
  name: string;
  /** code_change, schedule or manual. */
  trigger_kind: string;
  /** JSON: the trigger's settings (see domain/automations/automation.ts). */
  trigger: string;
  /** A code-change trigger's webhook secret, sealed with the secret box (bound to the automation id). */
  webhook_secret: string | null;
  /** The secret a rotation replaced, sealed the same way; accepted until the time below. */
  previous_webhook_secret: string | null;
  previous_webhook_secret_expires_at: string | null;
  instructions: string;
  /** 1: draft pull requests; 0: ready for review. */
  draft: number;
  max_runs_per_day: number;
  /** 1 or 0. */
  enabled: number;
  /** A schedule's slots before this instant never run: its creation, or the last change of its schedule. */
  schedule_from: string;
  created_at: string;
  updated_at: string;
}

/** One start of an automation: the job (or follow-up turn) it queued, or why it did not. */
export interface AutomationRunsTable {
  id: string;
  automation_id: string;
  project_id: string;
  /** code_change, schedule or manual. */
  trigger_kind: string;
  /** Unique per automation when set (a webhook delivery, a pull request and merge commit, a slot). */
  dedupe_key: string | null;
  /** JSON { url, title, number, author? } of the source pull request; null when none. */
  source: string | null;
  /** queued, completed, no_change, failed or rate_limited (running is read from the turn). */
  status: string;
  job_id: string | null;
  turn_id: string | null;
  /** 1 when the run added a turn to an earlier run's job, whose pull request was still open. */
  follow_up: number;
  reason: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** A schedule slot, claimed once by whichever worker process inserts it first. */
export interface AutomationSlotsTable {
  automation_id: string;
  slot_at: string;
  run_id: string;
  claimed_at: string;
}

export type ProjectRow = Selectable<ProjectsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type JobRow = Selectable<JobsTable>;
export type NewJobRow = Insertable<JobsTable>;
export type JobUpdate = Updateable<JobsTable>;
export type TurnRow = Selectable<TurnsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type SessionRow = Selectable<SessionsTable>;
export type UserRow = Selectable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type SignInLinkRow = Selectable<SignInLinksTable>;
export type NewJobEventRow = Insertable<JobEventsTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type NewWebhookDeliveryRow = Insertable<WebhookDeliveriesTable>;
export type AutomationRow = Selectable<AutomationsTable>;
export type AutomationUpdate = Updateable<AutomationsTable>;
export type AutomationRunRow = Selectable<AutomationRunsTable>;
export type AutomationRunUpdate = Updateable<AutomationRunsTable>;

/** A crawler IP range list as `update-lists` fetched it (migration 0013). */
export interface CrawlerRangeListsTable {
  /** The list's file name in the manifest, e.g. `gptbot.json`. */
  file: string;
  /** The published JSON text. */
  body: string;
  updated_at: string;
}

/** A project's connected source repository: read-only context for its agent. */
export interface ContextRepositoriesTable {
  project_id: string;
  /** Unique in the project; what the agent's tools name it by. */
  name: string;
  /** A git URL, or an absolute path on the server. */
  repository: string;
  /** The branch read. */
  ref: string;
  created_at: string;
}
export type ContextRepositoryRow = Selectable<ContextRepositoriesTable>;

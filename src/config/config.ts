import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SALT_ROTATIONS } from '../domain/analytics/identity.ts';
import { type AnalyticsOptions, DEFAULT_ANALYTICS_OPTIONS } from '../domain/analytics/options.ts';
import {
  type ModelPrices,
  parseModelPrices,
  shippedModelPrices,
  withOverrides,
} from '../domain/jobs/pricing/model-prices.ts';
import { ALLOW_SETTING, OutboundPolicy } from '../domain/network/outbound-policy.ts';
import type { DatabaseConfig } from '../storage/database.ts';
import { type AnalyticsBackendConfig, parseAnalyticsBackend } from './analytics-backend.ts';

export type { AnalyticsBackendConfig };

/**
 * Docwright's configuration, read once at start-up from environment variables and
 * (optionally) a JSON file named by DOCWRIGHT_CONFIG. Environment variables win over the file.
 * Nothing else in the code base reads process.env.
 */
export interface Config {
  dataDir: string;
  host: string;
  port: number;
  publicUrl: string;
  database: DatabaseConfig;
  logLevel: LogLevel;
  http: {
    bodyLimitBytes: number;
    maxPromptLength: number;
    /** Create and message requests per project per window; 0 disables the limit. */
    rateLimitPerWindow: number;
    rateLimitWindowSeconds: number;
    /** Seconds between the comment lines an idle job event stream sends. */
    eventsHeartbeatSeconds: number;
    /** Seconds one job event stream lasts before the server ends it and the client reconnects, authenticated again. */
    eventsStreamSeconds: number;
    /** Seconds a request's line and headers have to arrive. */
    headersTimeoutSeconds: number;
    /** Seconds a body has to arrive once the server starts reading it. */
    bodyTimeoutSeconds: number;
    /** Seconds the whole request may take to arrive: headers, a wait at the ingestion gate, body. */
    requestTimeoutSeconds: number;
    /** Requests without an API key or session whose bodies are still arriving, per client address. */
    unauthenticatedBodiesPerAddress: number;
    /** Seconds without a byte after which an admitted ingestion body gives its place to a waiting request. */
    ingestStallSeconds: number;
  };
  worker: {
    concurrency: number;
    leaseSeconds: number;
    maxAttempts: number;
    pollIntervalMs: number;
    shutdownGraceSeconds: number;
  };
  /** `provider:model-id`, or null when no model is configured. */
  model: string | null;
  /** USD per million tokens by model: the shipped table with DOCWRIGHT_MODEL_PRICES laid over it. */
  modelPrices: ModelPrices;
  /** Provider credentials and endpoints; secrets, never logged or shown to the model. */
  providers: {
    anthropicApiKey: string | null;
    anthropicBaseUrl: string | null;
    openaiApiKey: string | null;
    openaiBaseUrl: string | null;
    openaiCompatibleBaseUrl: string | null;
    openaiCompatibleApiKey: string | null;
    maxRetries: number;
  };
  /** Limits on one turn of the documentation agent. */
  agent: {
    maxSteps: number;
    maxTokens: number;
    maxTurnSeconds: number;
  };
  git: {
    /** How long a connected repository's mirror is used before a turn fetches it again. */
    contextRefreshMinutes: number;
    authorName: string;
    authorEmail: string;
    /** `Name <email>` entries added as Co-authored-by trailers; none by default. */
    coAuthors: string[];
  };
  /**
   * Directories a repository path given over HTTP must lie under (DOCWRIGHT_LOCAL_REPOSITORY_ROOTS;
   * default `<dataDir>/repos`). The command line may name any path.
   */
  localRepositoryRoots: string[];
  /** DOCWRIGHT_SECRET_KEY, which encrypts stored secrets; null: the data directory's key file (src/app/secret-key.ts). */
  secretKey: string | null;
  /**
   * Which addresses user-given URLs may reach (webhooks, code-host APIs, git remotes):
   * public ones, plus what DOCWRIGHT_ALLOW_PRIVATE_NETWORKS names.
   */
  outbound: OutboundPolicy;
  /** Settings that still work but should be replaced, worded for the start-up log. */
  deprecations: string[];
  /** Signed webhooks out (docs/webhooks.md). */
  webhooks: {
    timeoutSeconds: number;
    /** The wait after a first failed attempt; it doubles after each further one (at most an hour). */
    retryBaseSeconds: number;
    /** How long a delivery is retried before it fails for good. */
    retryHours: number;
    /** Deliveries one worker process sends at once. */
    concurrency: number;
    /** Days a succeeded or failed delivery is kept in the log before the worker deletes it. */
    retentionDays: number;
  };
  /** The deployment's analytics options (defaults: DEFAULT_ANALYTICS_OPTIONS). */
  analytics: AnalyticsOptions & {
    /** Where the views are stored (DOCWRIGHT_ANALYTICS_URL). */
    backend: AnalyticsBackendConfig;
  };
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Source = Record<string, string | undefined>;

/** Every setting, its variable name and its documentation; the README's table mirrors this. */
export const SETTINGS = {
  DOCWRIGHT_CONFIG: 'Path of an optional JSON file whose keys are the variable names below.',
  DOCWRIGHT_DATA_DIR: 'Directory for the embedded database and working files (default ./.docwright).',
  DOCWRIGHT_HOST: 'Interface the HTTP server listens on (default 127.0.0.1; 0.0.0.0 for all).',
  DOCWRIGHT_PORT: 'HTTP port (default 8080).',
  DOCWRIGHT_PUBLIC_URL: 'Base URL that links are built from (default http://HOST:PORT).',
  DATABASE_URL: 'Absent: SQLite in the data dir. postgres://… : PostgreSQL.',
  DOCWRIGHT_DATABASE_SCHEMA: 'PostgreSQL schema to use (default: the connection default, usually public).',
  DOCWRIGHT_LOG_LEVEL: `Log level: ${LOG_LEVELS.join(', ')} (default info).`,
  DOCWRIGHT_BODY_LIMIT_BYTES: 'Largest accepted request body in bytes (default 1048576).',
  DOCWRIGHT_MAX_PROMPT_LENGTH: 'Longest accepted prompt in characters (default 20000).',
  DOCWRIGHT_RATE_LIMIT:
    'Job creations plus messages allowed per project per window; 0 disables (default 100).',
  DOCWRIGHT_RATE_LIMIT_WINDOW_SECONDS: 'Length of the rate-limit window in seconds (default 3600).',
  DOCWRIGHT_EVENTS_HEARTBEAT_SECONDS:
    'Seconds between the comment lines an idle job event stream sends so proxies keep it open (default 15).',
  DOCWRIGHT_EVENTS_STREAM_SECONDS:
    'Seconds one job event stream lasts before the server ends it; the client resumes, and its key or session is checked again (default 600).',
  DOCWRIGHT_HEADERS_TIMEOUT_SECONDS:
    "Seconds a request's line and headers have to arrive; later, the answer is 408 and the connection is closed (default 15).",
  DOCWRIGHT_BODY_TIMEOUT_SECONDS:
    'Seconds a request body has to arrive once the server starts reading it (an ingestion request: once it is admitted); later, 408 and the connection is closed (default 30).',
  DOCWRIGHT_REQUEST_TIMEOUT_SECONDS:
    'Seconds a whole request may take to arrive, a wait for an ingestion slot included; later, 408 and the connection is closed. Responses (event streams) are not limited (default 60, or the headers and body timeouts together if more; at least that).',
  DOCWRIGHT_UNAUTHENTICATED_BODIES_PER_ADDRESS:
    'Requests without an API key or session (webhooks in, the tracker, sign-in) whose bodies are still arriving, per client address; more are answered 429 and their connections closed (default 32).',
  DOCWRIGHT_ANALYTICS_INGEST_STALL_SECONDS:
    'An admitted ingestion request whose body gets no byte for this long while others wait for a slot is answered 408 and closed, and its slot goes to the next (default 5).',
  DOCWRIGHT_WORKER_CONCURRENCY: 'Turns one worker process runs at once (default 2).',
  DOCWRIGHT_LEASE_SECONDS:
    'How long a claimed turn is held without a heartbeat before another worker may take it (default 60).',
  DOCWRIGHT_MAX_ATTEMPTS:
    'Attempts at a turn (crashes, lost leases, unexpected errors) before the job fails (default 3).',
  DOCWRIGHT_POLL_INTERVAL_MS: 'How often an idle worker looks for work in milliseconds (default 1000).',
  DOCWRIGHT_SHUTDOWN_GRACE_SECONDS:
    'On SIGTERM, how long running turns may finish before they are released (default 30).',
  DOCWRIGHT_MODEL: 'Default model as provider:model-id, e.g. anthropic:claude-sonnet-4-5 (default: none).',
  DOCWRIGHT_MODEL_PRICES:
    'Prices that replace or add to the shipped table (estimates; see docs/jobs.md): a JSON file path, or inline JSON {"provider:model-id": {"input": USD per million tokens, "output": …, "cachedInput"?: …}}.',
  ANTHROPIC_API_KEY: 'API key for anthropic:… models.',
  OPENAI_API_KEY: 'API key for openai:… models.',
  DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL:
    'Base URL of an OpenAI-compatible server, e.g. http://localhost:11434/v1 (Ollama).',
  DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: 'API key for the OpenAI-compatible server, if it needs one.',
  DOCWRIGHT_ANTHROPIC_BASE_URL: "Anthropic API base URL, for a proxy (default: Anthropic's).",
  DOCWRIGHT_OPENAI_BASE_URL: "OpenAI API base URL, for a proxy (default: OpenAI's).",
  DOCWRIGHT_MODEL_MAX_RETRIES: 'Retries of a model call after a rate limit or server error (default 4).',
  DOCWRIGHT_AGENT_MAX_STEPS: 'Model calls per turn before the turn ends with what was done (default 50).',
  DOCWRIGHT_AGENT_MAX_TOKENS: 'Input plus output tokens per turn (default 2000000).',
  DOCWRIGHT_AGENT_MAX_TURN_SECONDS: 'Wall-clock seconds per turn (default 900).',
  DOCWRIGHT_LOCAL_REPOSITORY_ROOTS:
    "Directories, separated by ':' like PATH, that a repository path given over HTTP (the dashboard) must lie under (default: the data dir's repos/). The CLI may name any path.",
  DOCWRIGHT_CONTEXT_REFRESH_MINUTES:
    "Minutes a connected repository's mirror is used before a job's turn fetches it again (default 5; 0: every turn).",
  DOCWRIGHT_GIT_AUTHOR_NAME: 'Author name of the commits the agent makes (default Docwright).',
  DOCWRIGHT_GIT_AUTHOR_EMAIL: 'Author email of the commits the agent makes (default docwright@localhost).',
  DOCWRIGHT_GIT_CO_AUTHORS:
    'Co-authored-by trailers to add, as "Name <email>" separated by ";" (default none).',
  DOCWRIGHT_SECRET_KEY:
    'Encrypts stored webhook secrets and code-host credentials: a passphrase of 16+ characters or base64:<32 bytes>. Default: the key in secret.key in the data dir, made on first start.',
  DOCWRIGHT_ALLOW_PRIVATE_NETWORKS:
    'Non-public addresses (loopback, private, link-local, …) that webhooks, code-host API calls and git remotes may reach: false (default: public addresses only), true (any), or a comma-separated list of host names (gitlab.internal, *.corp.example), IP addresses and CIDR ranges (10.0.0.0/8).',
  DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE_NETWORKS:
    'Deprecated alias of DOCWRIGHT_ALLOW_PRIVATE_NETWORKS=true|false (it now covers code hosts and git remotes too); not both.',
  DOCWRIGHT_WEBHOOKS_TIMEOUT_SECONDS:
    'Seconds a webhook receiver has to answer before the attempt fails (default 10).',
  DOCWRIGHT_WEBHOOKS_RETRY_BASE_SECONDS:
    'Wait after a first failed webhook attempt; doubled after each further one, at most an hour, with jitter (default 10).',
  DOCWRIGHT_WEBHOOKS_RETRY_HOURS:
    'Hours a webhook delivery is retried before it fails for good (default 24).',
  DOCWRIGHT_WEBHOOKS_CONCURRENCY: 'Webhook deliveries one worker process sends at once (default 8).',
  DOCWRIGHT_WEBHOOK_RETENTION_DAYS:
    'Days a succeeded or failed webhook delivery stays in the log before the worker deletes it; pending ones are never deleted (default 30).',
  DOCWRIGHT_ANALYTICS_SALT_ROTATION:
    'How often anonymous visitor ids reset: daily, weekly, monthly or never (default daily; see docs/analytics.md).',
  DOCWRIGHT_ANALYTICS_SALT_RETENTION_DAYS:
    'Days a rotated salt is kept after its period ends, then deleted so old visitor ids cannot be recomputed (default 7).',
  DOCWRIGHT_ANALYTICS_MAX_BATCH: 'Most events in one ingestion request (default 1000).',
  DOCWRIGHT_TRUSTED_PROXIES:
    "Proxies whose X-Forwarded-For is believed for the client's address (browser collect endpoint, API key IP allowlists, dashboard sign-in limit): IPs, CIDRs, loopback, linklocal, uniquelocal; comma-separated (default none).",
  DOCWRIGHT_ANALYTICS_RATE_LIMIT:
    'Analytics export requests per project per window; 0 disables (default 1000).',
  DOCWRIGHT_ANALYTICS_COLLECT_RATE_LIMIT:
    'Browser tracker beacons per client IP per minute per project, counted in memory per process; 0 disables (default 120).',
  DOCWRIGHT_ANALYTICS_DURABILITY:
    'full: an acknowledged event survives power loss; normal: it survives a process crash (default full).',
  DOCWRIGHT_ANALYTICS_PREPARATION_THREADS:
    'Worker threads that parse and prepare large ingestion requests beside the thread serving HTTP; 0: none (default: one fewer than the cores, at most 4, on more than 2 cores; else 0).',
  DOCWRIGHT_ANALYTICS_INGEST_CONCURRENCY:
    'Ingestion requests one process reads and stores at once; the others wait unread, in arrival order, so memory does not grow with the number of clients sending (default 32).',
  DOCWRIGHT_ANALYTICS_FILE: 'The analytics database file (default analytics.sqlite in the data dir).',
  DOCWRIGHT_ANALYTICS_URL:
    'Where analytics views are stored: embedded, postgres://… or clickhouse://user:password@host:8123/database (or http(s)://…). Default: the main database when DATABASE_URL is PostgreSQL, else embedded.',
} as const;

export function loadConfig(env: Source = process.env, cwd: string = process.cwd()): Config {
  const problems: string[] = [];
  const source = withConfigFile(env, cwd, problems);
  const read = new Reader(source, problems);

  const dataDir = path.resolve(cwd, read.string('DOCWRIGHT_DATA_DIR') ?? '.docwright');
  const host = read.string('DOCWRIGHT_HOST') ?? '127.0.0.1';
  const port = read.integer('DOCWRIGHT_PORT', { min: 0, max: 65535 }) ?? 8080;
  const publicUrl = read.url('DOCWRIGHT_PUBLIC_URL') ?? `http://${displayHost(host)}:${port}`;
  const databaseUrl = read.string('DATABASE_URL');
  const schema = read.string('DOCWRIGHT_DATABASE_SCHEMA') ?? null;
  let database: DatabaseConfig = { kind: 'sqlite', file: path.join(dataDir, 'docwright.sqlite') };
  if (databaseUrl !== undefined) {
    if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
      database = { kind: 'postgres', url: databaseUrl, schema };
    } else {
      problems.push('DATABASE_URL must start with postgres:// or postgresql:// (leave it unset for SQLite)');
    }
  }
  if (schema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    problems.push('DOCWRIGHT_DATABASE_SCHEMA must be a lower-case SQL identifier (letters, digits, _)');
  }
  const logLevel = read.oneOf('DOCWRIGHT_LOG_LEVEL', LOG_LEVELS) ?? 'info';
  const model = read.string('DOCWRIGHT_MODEL') ?? null;
  if (model !== null && !/^[a-z][a-z0-9-]*:.+$/.test(model)) {
    problems.push(`DOCWRIGHT_MODEL must look like provider:model-id (got "${model}")`);
  }

  const headersTimeoutSeconds =
    read.number('DOCWRIGHT_HEADERS_TIMEOUT_SECONDS', { min: 0.5, max: 3600 }) ?? 15;
  const bodyTimeoutSeconds = read.number('DOCWRIGHT_BODY_TIMEOUT_SECONDS', { min: 0.5, max: 3600 }) ?? 30;
  // The whole request's bound must leave room for both of its parts, or they would mean nothing.
  const requestTimeoutFloor = headersTimeoutSeconds + bodyTimeoutSeconds;
  const requestTimeoutSeconds =
    read.number('DOCWRIGHT_REQUEST_TIMEOUT_SECONDS', { min: 1, max: 7200 }) ??
    Math.max(60, requestTimeoutFloor);
  if (requestTimeoutSeconds < requestTimeoutFloor) {
    problems.push(
      `DOCWRIGHT_REQUEST_TIMEOUT_SECONDS must be at least DOCWRIGHT_HEADERS_TIMEOUT_SECONDS + DOCWRIGHT_BODY_TIMEOUT_SECONDS (${requestTimeoutFloor}; got ${requestTimeoutSeconds})`,
    );
  }

  const deprecations: string[] = [];
  const analyticsFileSetting = read.string('DOCWRIGHT_ANALYTICS_FILE');
  const analyticsFile = analyticsFileSetting === undefined ? null : path.resolve(cwd, analyticsFileSetting);

  const config: Config = {
    dataDir,
    host,
    port,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    database,
    logLevel,
    http: {
      bodyLimitBytes: read.integer('DOCWRIGHT_BODY_LIMIT_BYTES', { min: 1024 }) ?? 1024 * 1024,
      maxPromptLength: read.integer('DOCWRIGHT_MAX_PROMPT_LENGTH', { min: 1 }) ?? 20_000,
      rateLimitPerWindow: read.integer('DOCWRIGHT_RATE_LIMIT', { min: 0 }) ?? 100,
      rateLimitWindowSeconds: read.integer('DOCWRIGHT_RATE_LIMIT_WINDOW_SECONDS', { min: 1 }) ?? 3600,
      eventsHeartbeatSeconds:
        read.number('DOCWRIGHT_EVENTS_HEARTBEAT_SECONDS', { min: 0.05, max: 3600 }) ?? 15,
      eventsStreamSeconds: read.number('DOCWRIGHT_EVENTS_STREAM_SECONDS', { min: 0.1, max: 86_400 }) ?? 600,
      headersTimeoutSeconds,
      bodyTimeoutSeconds,
      requestTimeoutSeconds,
      unauthenticatedBodiesPerAddress:
        read.integer('DOCWRIGHT_UNAUTHENTICATED_BODIES_PER_ADDRESS', { min: 1, max: 100_000 }) ?? 32,
      ingestStallSeconds:
        read.number('DOCWRIGHT_ANALYTICS_INGEST_STALL_SECONDS', { min: 0.5, max: 3600 }) ?? 5,
    },
    worker: {
      concurrency: read.integer('DOCWRIGHT_WORKER_CONCURRENCY', { min: 1, max: 256 }) ?? 2,
      leaseSeconds: read.number('DOCWRIGHT_LEASE_SECONDS', { min: 0.2 }) ?? 60,
      maxAttempts: read.integer('DOCWRIGHT_MAX_ATTEMPTS', { min: 1, max: 100 }) ?? 3,
      pollIntervalMs: read.integer('DOCWRIGHT_POLL_INTERVAL_MS', { min: 10 }) ?? 1000,
      shutdownGraceSeconds: read.number('DOCWRIGHT_SHUTDOWN_GRACE_SECONDS', { min: 0 }) ?? 30,
    },
    model,
    modelPrices: readModelPrices(read.string('DOCWRIGHT_MODEL_PRICES'), cwd, problems),
    providers: {
      anthropicApiKey: read.string('ANTHROPIC_API_KEY') ?? null,
      anthropicBaseUrl: read.url('DOCWRIGHT_ANTHROPIC_BASE_URL') ?? null,
      openaiApiKey: read.string('OPENAI_API_KEY') ?? null,
      openaiBaseUrl: read.url('DOCWRIGHT_OPENAI_BASE_URL') ?? null,
      openaiCompatibleBaseUrl: read.url('DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL') ?? null,
      openaiCompatibleApiKey: read.string('DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY') ?? null,
      maxRetries: read.integer('DOCWRIGHT_MODEL_MAX_RETRIES', { min: 0, max: 20 }) ?? 4,
    },
    agent: {
      maxSteps: read.integer('DOCWRIGHT_AGENT_MAX_STEPS', { min: 1, max: 1000 }) ?? 50,
      maxTokens: read.integer('DOCWRIGHT_AGENT_MAX_TOKENS', { min: 1000 }) ?? 2_000_000,
      maxTurnSeconds: read.number('DOCWRIGHT_AGENT_MAX_TURN_SECONDS', { min: 1 }) ?? 900,
    },
    git: {
      contextRefreshMinutes:
        read.number('DOCWRIGHT_CONTEXT_REFRESH_MINUTES', { min: 0, max: 7 * 24 * 60 }) ?? 5,
      authorName: read.string('DOCWRIGHT_GIT_AUTHOR_NAME') ?? 'Docwright',
      authorEmail: read.string('DOCWRIGHT_GIT_AUTHOR_EMAIL') ?? 'docwright@localhost',
      coAuthors: (read.string('DOCWRIGHT_GIT_CO_AUTHORS') ?? '')
        .split(';')
        .map((entry) => entry.trim())
        .filter(Boolean),
    },
    localRepositoryRoots: (read.string('DOCWRIGHT_LOCAL_REPOSITORY_ROOTS') ?? path.join(dataDir, 'repos'))
      .split(path.delimiter)
      .filter((entry) => entry.trim() !== '')
      .map((entry) => path.resolve(cwd, entry)),
    secretKey: read.string('DOCWRIGHT_SECRET_KEY') ?? null,
    outbound: readOutboundPolicy(read, problems, deprecations),
    deprecations,
    webhooks: {
      timeoutSeconds: read.number('DOCWRIGHT_WEBHOOKS_TIMEOUT_SECONDS', { min: 0.1, max: 300 }) ?? 10,
      retryBaseSeconds: read.number('DOCWRIGHT_WEBHOOKS_RETRY_BASE_SECONDS', { min: 0.01, max: 3600 }) ?? 10,
      retryHours: read.number('DOCWRIGHT_WEBHOOKS_RETRY_HOURS', { min: 0.0001, max: 24 * 30 }) ?? 24,
      concurrency: read.integer('DOCWRIGHT_WEBHOOKS_CONCURRENCY', { min: 1, max: 256 }) ?? 8,
      retentionDays: read.integer('DOCWRIGHT_WEBHOOK_RETENTION_DAYS', { min: 1, max: 36_500 }) ?? 30,
    },
    analytics: {
      saltRotation:
        read.oneOf('DOCWRIGHT_ANALYTICS_SALT_ROTATION', SALT_ROTATIONS) ??
        DEFAULT_ANALYTICS_OPTIONS.saltRotation,
      saltRetentionDays:
        read.integer('DOCWRIGHT_ANALYTICS_SALT_RETENTION_DAYS', { min: 1 }) ??
        DEFAULT_ANALYTICS_OPTIONS.saltRetentionDays,
      maxBatch:
        read.integer('DOCWRIGHT_ANALYTICS_MAX_BATCH', { min: 1, max: 100_000 }) ??
        DEFAULT_ANALYTICS_OPTIONS.maxBatch,
      trustedProxies: (read.string('DOCWRIGHT_TRUSTED_PROXIES') ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
      rateLimitPerWindow:
        read.integer('DOCWRIGHT_ANALYTICS_RATE_LIMIT', { min: 0 }) ??
        DEFAULT_ANALYTICS_OPTIONS.rateLimitPerWindow,
      collectRateLimitPerMinute:
        read.integer('DOCWRIGHT_ANALYTICS_COLLECT_RATE_LIMIT', { min: 0 }) ??
        DEFAULT_ANALYTICS_OPTIONS.collectRateLimitPerMinute,
      durability:
        read.oneOf('DOCWRIGHT_ANALYTICS_DURABILITY', ['full', 'normal'] as const) ??
        DEFAULT_ANALYTICS_OPTIONS.durability,
      file: analyticsFile,
      preparationThreads:
        read.integer('DOCWRIGHT_ANALYTICS_PREPARATION_THREADS', { min: 0, max: 64 }) ??
        DEFAULT_ANALYTICS_OPTIONS.preparationThreads,
      ingestConcurrency:
        read.integer('DOCWRIGHT_ANALYTICS_INGEST_CONCURRENCY', { min: 1, max: 100_000 }) ??
        DEFAULT_ANALYTICS_OPTIONS.ingestConcurrency,
      backend: parseAnalyticsBackend(
        read.string('DOCWRIGHT_ANALYTICS_URL'),
        { database, schema, embeddedFile: analyticsFile ?? path.join(dataDir, 'analytics.sqlite') },
        problems,
      ),
    },
  };
  for (const coAuthor of config.git.coAuthors) {
    if (!/^[^<>]+ <[^<>\s]+@[^<>\s]+>$/.test(coAuthor)) {
      problems.push(`DOCWRIGHT_GIT_CO_AUTHORS entries must look like "Name <email>" (got "${coAuthor}")`);
    }
  }
  if (config.secretKey !== null && config.secretKey.length < 16) {
    problems.push('DOCWRIGHT_SECRET_KEY must be at least 16 characters (a passphrase) or base64:<32 bytes>');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** DOCWRIGHT_ALLOW_PRIVATE_NETWORKS, or its deprecated alias (a boolean, as it always was). */
function readOutboundPolicy(read: Reader, problems: string[], deprecations: string[]): OutboundPolicy {
  const setting = read.string(ALLOW_SETTING);
  const alias = read.boolean('DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE_NETWORKS');
  if (alias !== undefined) {
    if (setting !== undefined) {
      problems.push(
        `DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE_NETWORKS is the deprecated alias of ${ALLOW_SETTING}: set only ${ALLOW_SETTING}`,
      );
    } else {
      deprecations.push(
        `DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE_NETWORKS is deprecated: use ${ALLOW_SETTING}=${alias} (it covers webhooks, code-host APIs and git remotes)`,
      );
      return alias ? OutboundPolicy.allowAll() : OutboundPolicy.publicOnly();
    }
  }
  if (setting === undefined) return OutboundPolicy.publicOnly();
  const parsed = OutboundPolicy.parse(setting);
  if (parsed instanceof OutboundPolicy) return parsed;
  problems.push(
    `${ALLOW_SETTING} must be true, false or a comma-separated list of host names, *.domains, IP addresses and CIDR ranges: ${parsed.problems.join('; ')}`,
  );
  return OutboundPolicy.publicOnly();
}

/** The shipped prices, with those of DOCWRIGHT_MODEL_PRICES (inline JSON or a file) laid over them. */
function readModelPrices(setting: string | undefined, cwd: string, problems: string[]): ModelPrices {
  const shipped = shippedModelPrices();
  if (setting === undefined) return shipped;
  const inline = setting.startsWith('{');
  let text = setting;
  if (!inline) {
    try {
      text = readFileSync(path.resolve(cwd, setting), 'utf8');
    } catch (error) {
      problems.push(`DOCWRIGHT_MODEL_PRICES: cannot read ${setting} (${(error as Error).message})`);
      return shipped;
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    problems.push(
      `DOCWRIGHT_MODEL_PRICES: ${inline ? 'the inline value' : setting} is not valid JSON (${(error as Error).message})`,
    );
    return shipped;
  }
  return withOverrides(shipped, parseModelPrices(parsed, 'DOCWRIGHT_MODEL_PRICES', problems));
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

function withConfigFile(env: Source, cwd: string, problems: string[]): Source {
  const file = env.DOCWRIGHT_CONFIG;
  if (file === undefined || file === '') return env;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path.resolve(cwd, file), 'utf8'));
  } catch (error) {
    problems.push(`DOCWRIGHT_CONFIG: cannot read ${file} as JSON (${(error as Error).message})`);
    return env;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push(`DOCWRIGHT_CONFIG: ${file} must hold a JSON object of setting names to values`);
    return env;
  }
  const merged: Source = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!(key in SETTINGS)) {
      problems.push(`DOCWRIGHT_CONFIG: unknown setting "${key}" in ${file}`);
      continue;
    }
    merged[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return { ...merged, ...definedOnly(env) };
}

function definedOnly(env: Source): Source {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
}

class Reader {
  private readonly source: Source;
  private readonly problems: string[];
  constructor(source: Source, problems: string[]) {
    this.source = source;
    this.problems = problems;
  }

  string(name: keyof typeof SETTINGS): string | undefined {
    const value = this.source[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  number(name: keyof typeof SETTINGS, range: { min?: number; max?: number } = {}): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value)) {
      this.problems.push(`${name} must be a number (got "${raw}")`);
      return undefined;
    }
    return this.inRange(name, value, range);
  }

  integer(name: keyof typeof SETTINGS, range: { min?: number; max?: number } = {}): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (!/^-?\d+$/.test(raw)) {
      this.problems.push(`${name} must be a whole number (got "${raw}")`);
      return undefined;
    }
    return this.inRange(name, Number(raw), range);
  }

  boolean(name: keyof typeof SETTINGS): boolean | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    this.problems.push(`${name} must be true or false (got "${raw}")`);
    return undefined;
  }

  url(name: keyof typeof SETTINGS): string | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) {
      this.problems.push(`${name} must be an http:// or https:// URL (got "${raw}")`);
      return undefined;
    }
    return raw;
  }

  oneOf<T extends string>(name: keyof typeof SETTINGS, allowed: readonly T[]): T | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return undefined;
    }
    return raw as T;
  }

  private inRange(name: string, value: number, { min, max }: { min?: number; max?: number }) {
    if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
      const bounds = [min !== undefined ? `at least ${min}` : '', max !== undefined ? `at most ${max}` : '']
        .filter(Boolean)
        .join(' and ');
      this.problems.push(`${name} must be ${bounds} (got ${value})`);
      return undefined;
    }
    return value;
  }
}

import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { openServices, type Services } from '../../src/app/services.ts';
import { type Config, loadConfig } from '../../src/config/config.ts';
import type { Agent } from '../../src/domain/agent/agent.ts';
import type { AnalyticsOptions } from '../../src/domain/analytics/options.ts';
import type { Clock } from '../../src/domain/clock.ts';
import type { ProjectInfo } from '../../src/domain/projects/project-service.ts';
import type { SignInLimits } from '../../src/domain/sessions/sign-in.ts';
import { buildHttpApp, type RegisteredRoute } from '../../src/http/app.ts';
import { createLogger } from '../../src/logging/logger.ts';
import type { Storage } from '../../src/storage/database.ts';
import { createTestDatabase, type TestDatabase } from './storage.ts';

export interface TestApp {
  baseUrl: string;
  services: Services;
  app: FastifyInstance;
  database: TestDatabase;
  project: ProjectInfo;
  /** An admin key for `project`. */
  key: string;
  /** Every route the app registered (HEAD routes included). */
  routes: RegisteredRoute[];
  /** fetch() against the app with the admin key unless `key` is given (null: no header). */
  request(
    method: string,
    path: string,
    options?: { body?: unknown; key?: string | null; headers?: Record<string, string> },
  ): Promise<Response>;
  close(): Promise<void>;
}

/** A real Docwright HTTP server on a random port, over a fresh database of the current backend. */
export async function startTestApp(
  options: {
    env?: Record<string, string>;
    agent?: Agent;
    clock?: Clock;
    /** Analytics settings beyond the configuration's (tests use `normal` durability by default). */
    analytics?: Partial<AnalyticsOptions>;
    /** Where the built dashboard is (default: dist/dashboard). */
    dashboardDir?: string;
    /** Failed sign-ins allowed per account and address (the defaults otherwise). */
    signInLimits?: SignInLimits;
    /** Receives every log line (JSON, level trace and up) instead of silence. */
    log?: (line: string) => void;
    /** Opens the main database another way (through a relay, say); `database.open()` otherwise. */
    openStorage?: (database: TestDatabase) => Storage;
  } = {},
): Promise<TestApp> {
  const database = createTestDatabase();
  const config: Config = loadConfig({
    ...database.env,
    DOCWRIGHT_PORT: '0',
    DOCWRIGHT_LOG_LEVEL: 'silent',
    // Tests make their repositories in the system's temporary directory.
    DOCWRIGHT_LOCAL_REPOSITORY_ROOTS: tmpdir(),
    ...options.env,
  });
  const { log } = options;
  // The service's own logger (its redaction and error fields), as `docwright serve` has it.
  const logger = createLogger(log ? 'trace' : 'silent', log ? { write: log } : undefined);
  const services = await openServices(config, logger, {
    storage: options.openStorage ? options.openStorage(database) : database.open(),
    ...(options.agent ? { agent: options.agent } : {}),
    analytics: { durability: 'normal', ...options.analytics },
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.signInLimits ? { signInLimits: options.signInLimits } : {}),
  });
  const project = await services.projects.create({
    name: 'Test docs',
    repository: 'https://example.com/docs.git',
  });
  const { key } = await services.keys.create(project.id, 'test');
  const routes: RegisteredRoute[] = [];
  const app = await buildHttpApp({
    services,
    logger,
    onRoute: (route) => routes.push(route),
    ...(options.dashboardDir ? { dashboardDir: options.dashboardDir } : {}),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    services,
    app,
    database,
    project,
    key,
    routes,
    request(method, path, { body, key: keyOverride, headers = {} } = {}) {
      const useKey = keyOverride === undefined ? key : keyOverride;
      return fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          ...(useKey === null ? {} : { authorization: `Bearer ${useKey}` }),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
    },
    async close() {
      await app.close();
      await services.close();
      await database.drop();
    },
  };
}

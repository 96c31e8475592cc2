import type { AddressInfo } from 'node:net';
import { CRAWLER_RANGE_RELOAD_EVERY_MS } from '../../app/crawler-range-reload.ts';
import { defaultModelProblem } from '../../app/create-agent.ts';
import {
  ensureDefaultProject,
  ensureFirstSignIn,
  type FirstRun,
  type FirstSignIn,
} from '../../app/first-run.ts';
import type { SecretKeyInfo } from '../../app/secret-key.ts';
import { createWorker } from '../../app/services.ts';
import { describeAnalyticsBackend } from '../../config/analytics-backend.ts';
import type { Config } from '../../config/config.ts';
import { anotherKey, type SecretBox } from '../../domain/secrets/secret-box.ts';
import { signInLinkUrl } from '../../domain/users/sign-in-links.ts';
import { buildHttpApp } from '../../http/app.ts';
import { openContext } from '../context.ts';
import { print } from '../output.ts';
import { onShutdown } from '../shutdown.ts';

/** API and worker in one process: the embedded default. */
export async function serveCommand(options: { json: boolean; worker: boolean }): Promise<void> {
  const { config, logger, logs, services } = await openContext();
  // Where the views really go: an older installation on PostgreSQL keeps its embedded file.
  const analytics = describeAnalyticsBackend(services.analyticsBackend);
  logger.info({ analytics }, `analytics views are stored in ${analytics}`);
  const app = await buildHttpApp({ services, logger });
  let firstRun: FirstRun;
  let firstSignIn: FirstSignIn | null;
  try {
    await app.listen({ host: config.host, port: config.port });
    // Only once the server listens: a start that cannot (its port taken) creates no project and
    // no admin key, so the key is shown by the start that serves instead of being lost.
    firstRun = await ensureDefaultProject(services, logger);
    firstSignIn = await ensureFirstSignIn(services);
  } catch (error) {
    await app.close();
    await services.close();
    throw listenError(error, config);
  }
  const worker = options.worker ? createWorker(services, logger) : null;
  worker?.start();
  const stopSaltPruning = services.analytics.startSaltPruning((error) =>
    logger.warn({ err: error }, 'could not delete expired analytics salts; will retry'),
  );
  const stopRangeReload = services.crawlerRangeReload.start(CRAWLER_RANGE_RELOAD_EVERY_MS, (error) =>
    logger.warn({ err: error }, 'could not read the stored crawler range lists; will retry'),
  );
  const modelProblem = defaultModelProblem(config);
  if (modelProblem)
    logger.warn({ model: config.model }, `the configured model cannot be used: ${modelProblem}`);

  const { port } = app.server.address() as AddressInfo;
  const baseUrl = config.port === 0 ? config.publicUrl.replace(/:0$/, `:${port}`) : config.publicUrl;
  const banner = {
    baseUrl,
    dashboardUrl: `${baseUrl}/`,
    signInLink: firstSignIn ? signInLinkUrl(baseUrl, firstSignIn.token) : null,
    signInLinkExpiresAt: firstSignIn?.expiresAt ?? null,
    projectId: firstRun.project.id,
    adminKey: firstRun.newKey,
    adminKeyExpiresAt: firstRun.newKeyExpiresAt,
    secretKey: {
      from: services.secretKey.from,
      file: services.secretKey.from === 'file' ? services.secretKey.file : null,
      created: services.secretKey.created,
      keyId: services.secretKey.keyId,
      unreadableSecrets: services.secretKey.unreadable.count,
    },
    model: config.model,
    modelProblem,
    database: config.database.kind,
    dataDir: config.dataDir,
    analytics,
    worker: worker !== null,
  };
  print(options.json, banner, (b) =>
    [
      `Docwright is running at ${b.baseUrl}  (API reference: ${b.baseUrl}/docs)`,
      b.signInLink
        ? `Dashboard: ${b.dashboardUrl}  — sign in with this one-time link (valid 24 h): ${b.signInLink}\n` +
          `  It sets the owner account's email and password. Lost it? Restart, or run: npx docwright users sign-in-link --email ${firstSignIn?.user.email}`
        : `Dashboard: ${b.dashboardUrl}  (lost your password? npx docwright users sign-in-link --email <your email>)`,
      `Default project: ${b.projectId}  (${firstRun.project.name}, ${firstRun.project.repository})`,
      b.adminKey
        ? `Admin API key (shown once, store it now): ${b.adminKey}  (expires ${b.adminKeyExpiresAt})`
        : 'Admin API key: created on first start; make another with `docwright keys create --project <id>`',
      secretKeyLine(services.secretKey, services.secretBox),
      b.model === null
        ? 'Model: none configured: jobs fail until you set DOCWRIGHT_MODEL and its provider key (see the README)'
        : `Model: ${b.model}${b.modelProblem ? `  (cannot be used yet: ${b.modelProblem})` : ''}`,
      `Storage: ${storage(config)}; analytics: ${b.analytics}${b.worker ? '; worker running in this process' : ''}`,
    ].join('\n'),
  );

  onShutdown(
    async () => {
      stopSaltPruning();
      stopRangeReload();
      await app.close();
      await worker?.stop();
      await services.close();
    },
    { logger, logs, graceSeconds: config.worker.shutdownGraceSeconds },
  );
}

/** Where the key for stored secrets is, and that it goes with the data; trouble with it first. */
function secretKeyLine(key: SecretKeyInfo, box: SecretBox): string {
  const where =
    key.from === 'DOCWRIGHT_SECRET_KEY'
      ? `Secret key: DOCWRIGHT_SECRET_KEY (key id ${key.keyId})`
      : key.created
        ? `Secret key: created ${key.file} (mode 0600); it encrypts stored webhook secrets and code-host tokens: back it up with the data (DOCWRIGHT_SECRET_KEY, when set, is used instead)`
        : `Secret key: ${key.file}  (it encrypts stored webhook secrets and code-host tokens: back it up with the data)`;
  if (key.unreadable.count === 0) return where;
  const what = `${key.unreadable.count} stored secret${key.unreadable.count === 1 ? ' was' : 's were'}`;
  return `${where}\n  ${anotherKey(what, key.unreadable.keyIds, box)}`;
}

/** The main database, and for PostgreSQL where the files (repositories, key) still are. */
function storage(config: Config): string {
  const { database } = config;
  if (database.kind === 'sqlite') return `SQLite in ${config.dataDir}`;
  const where = describeAnalyticsBackend({ kind: 'postgres', url: database.url, schema: database.schema });
  return `${where}, files in ${config.dataDir}`;
}

/** A listen failure worded for the person starting the server: which setting to change. */
function listenError(error: unknown, config: Config): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${config.host}:${config.port}`;
  if (code === 'EADDRINUSE') {
    return new Error(
      `Port ${config.port} on ${config.host} is already in use (another Docwright, or another server). ` +
        `Set DOCWRIGHT_PORT to a free port, e.g. DOCWRIGHT_PORT=${config.port + 1} npm start.`,
    );
  }
  if (code === 'EACCES') {
    return new Error(
      `Not allowed to listen on ${where}: ports below 1024 need privileges. Set DOCWRIGHT_PORT.`,
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new Error(
      `Cannot listen on ${where}: no such address here. Set DOCWRIGHT_HOST (e.g. 127.0.0.1 or 0.0.0.0).`,
    );
  }
  return error;
}

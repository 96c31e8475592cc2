import type { AddressInfo } from 'node:net';
import { ensureDefaultProject } from '../../app/first-run.ts';
import { createWorker } from '../../app/services.ts';
import { buildHttpApp } from '../../http/app.ts';
import { openContext } from '../context.ts';
import { print } from '../output.ts';
import { onShutdown } from '../shutdown.ts';

/** API and worker in one process: the embedded default. */
export async function serveCommand(options: { json: boolean; worker: boolean }): Promise<void> {
  const { config, logger, logs, services } = await openContext();
  const firstRun = await ensureDefaultProject(services);
  const app = await buildHttpApp({ services, logger });
  await app.listen({ host: config.host, port: config.port });
  const worker = options.worker ? createWorker(services, logger) : null;
  worker?.start();
  const stopSaltPruning = services.analytics.startSaltPruning((error) =>
    logger.warn({ err: error }, 'could not delete expired analytics salts; will retry'),
  );

  const { port } = app.server.address() as AddressInfo;
  const baseUrl = config.port === 0 ? config.publicUrl.replace(/:0$/, `:${port}`) : config.publicUrl;
  const banner = {
    baseUrl,
    projectId: firstRun.project.id,
    adminKey: firstRun.newKey,
    database: config.database.kind,
    worker: worker !== null,
  };
  print(options.json, banner, (b) =>
    [
      `Docwright is running at ${b.baseUrl}  (API reference: ${b.baseUrl}/docs)`,
      `Default project: ${b.projectId}  (${firstRun.project.name}, ${firstRun.project.repository})`,
      b.adminKey
        ? `Admin API key (shown once, store it now): ${b.adminKey}`
        : 'Admin API key: created on first start; make another with `docwright keys create --project <id>`',
      `Storage: ${b.database}${b.worker ? '; worker running in this process' : ''}`,
    ].join('\n'),
  );

  onShutdown(
    async () => {
      stopSaltPruning();
      await app.close();
      await worker?.stop();
      await services.close();
    },
    { logger, logs, graceSeconds: config.worker.shutdownGraceSeconds },
  );
}

import { createWorker } from '../../app/services.ts';
import { openContext } from '../context.ts';
import { print } from '../output.ts';
import { onShutdown } from '../shutdown.ts';

/** Workers alone, for running beside API processes on a shared PostgreSQL database. */
export async function workerCommand(options: { json: boolean }): Promise<void> {
  const { config, logger, logs, services } = await openContext();
  const worker = createWorker(services, logger);
  worker.start();
  print(
    options.json,
    { worker: worker.id, concurrency: services.config.worker.concurrency },
    (w) => `Docwright worker ${w.worker} is taking turns (concurrency ${w.concurrency})`,
  );
  onShutdown(
    async () => {
      await worker.stop();
      await services.close();
    },
    { logger, logs, graceSeconds: config.worker.shutdownGraceSeconds },
  );
}

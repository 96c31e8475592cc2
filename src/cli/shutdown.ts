import type { Logger } from 'pino';
import type { CliLogs } from './io.ts';

export interface ShutdownOptions {
  logger: Logger;
  logs: CliLogs;
  /** DOCWRIGHT_SHUTDOWN_GRACE_SECONDS: how long running work may take to finish. */
  graceSeconds: number;
}

/**
 * Beyond the grace period: time for handing work back (the worker waits up to 5 s for aborted
 * turns, then releases them), closing storage and writing the last log lines.
 */
export const SHUTDOWN_MARGIN_SECONDS = 10;
// The last log lines get this long to reach a slow reader; a gone one gets nothing.
const LOG_DRAIN_MS = 1000;

/**
 * First SIGTERM/SIGINT: stop gracefully, then exit. A second one: exit at once. Whatever
 * happens meanwhile (a hung close, a log pipe that closed or stopped reading), the process
 * exits at most `graceSeconds + SHUTDOWN_MARGIN_SECONDS` after the first signal.
 */
export function onShutdown(stop: () => Promise<void>, options: ShutdownOptions): void {
  const { logger, logs } = options;
  let stopping = false;
  const exit = async (code: number) => {
    await logs.drain(LOG_DRAIN_MS);
    process.exit(code);
  };
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const deadlineMs = (options.graceSeconds + SHUTDOWN_MARGIN_SECONDS) * 1000;
    // A timer, not a promise race: it fires even if stop() never settles.
    setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown did not finish in time: exiting');
      void exit(1);
    }, deadlineMs).unref();
    stop().then(
      () => exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        return exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}

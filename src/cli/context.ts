import type { Logger } from 'pino';
import { openServices, type Services } from '../app/services.ts';
import { type Config, loadConfig } from '../config/config.ts';
import { LogDestination } from '../logging/log-destination.ts';
import { createLogger } from '../logging/logger.ts';

/**
 * Every command reads the same configuration as the server. Logs go to stderr so stdout
 * carries only the command's own output (and stays parseable with --json).
 */
export async function openContext(): Promise<CommandContext> {
  const config = loadConfig();
  const logs = new LogDestination(2);
  const logger = createLogger(config.logLevel, logs);
  const services = await openServices(config, logger);
  return { config, logger, logs, services };
}

export interface CommandContext {
  config: Config;
  logger: Logger;
  /** Where the logger writes: drained (with a deadline) before the process exits. */
  logs: LogDestination;
  services: Services;
}

/** Runs `fn` with services open, and closes them afterwards whatever happens. */
export async function withServices<T>(fn: (services: Services) => Promise<T>): Promise<T> {
  const { services } = await openContext();
  try {
    return await fn(services);
  } finally {
    await services.close();
  }
}

import { type Logger, pino } from 'pino';
import { openServices, type Services } from '../app/services.ts';
import { type Config, loadConfig } from '../config/config.ts';
import { createLogger } from '../logging/logger.ts';

/**
 * Every command reads the same configuration as the server. Logs go to stderr so stdout
 * carries only the command's own output (and stays parseable with --json).
 */
export async function openContext(): Promise<{ config: Config; logger: Logger; services: Services }> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, pino.destination(2));
  const services = await openServices(config, logger);
  return { config, logger, services };
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

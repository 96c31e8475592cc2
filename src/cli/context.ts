import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { openServices, type Services } from '../app/services.ts';
import { type Config, loadConfig } from '../config/config.ts';
import { createLogger } from '../logging/logger.ts';
import { type CliLogs, cliIo } from './io.ts';
import { notice } from './output.ts';

/**
 * Every command reads the same configuration as the server. Logs go to stderr so stdout
 * carries only the command's own output (and stays parseable with --json).
 */
export async function openContext(
  options: { newDataDirNotice?: { json: boolean } } = {},
): Promise<CommandContext> {
  const io = cliIo();
  const config = loadConfig(io.env);
  if (options.newDataDirNotice && config.database.kind === 'sqlite' && !existsSync(config.dataDir)) {
    // A command run from another directory than the server's would silently start afresh.
    notice(
      options.newDataDirNotice.json,
      `no Docwright data was in ${config.dataDir}, so this command starts a new, empty one there. Run it from the directory Docwright was started in, or set DOCWRIGHT_DATA_DIR (or DATABASE_URL) to the server's.`,
    );
  }
  const logger = createLogger(config.logLevel, io.logs);
  for (const deprecation of config.deprecations) logger.warn(deprecation);
  const services = await openServices(config, logger);
  return { config, logger, logs: io.logs, services };
}

export interface CommandContext {
  config: Config;
  logger: Logger;
  /** Where the logger writes: drained (with a deadline) before the process exits. */
  logs: CliLogs;
  services: Services;
}

/** Runs `fn` with services open, and closes them afterwards whatever happens. */
export async function withServices<T>(
  options: { json: boolean },
  fn: (services: Services) => Promise<T>,
): Promise<T> {
  const { services } = await openContext({ newDataDirNotice: options });
  try {
    return await fn(services);
  } finally {
    await services.close();
  }
}

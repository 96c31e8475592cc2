import {
  ClickHouseLogLevel,
  type Logger as ClientLogger,
  type ErrorLogParams,
  type LogParams,
  type WarnLogParams,
} from '@clickhouse/client';
import type { Logger } from 'pino';

/**
 * The `log` option of @clickhouse/client: what the client reports itself (a stale kept-alive
 * socket, a failed request, a setting it advises against) as structured lines of the given
 * logger, at the client's levels, from `warn` up. By default the client prints its own plain
 * text to the console, outside the service's logs. Without a logger (tools, tests), nothing.
 */
export function clientLogOptions(logger: Logger | undefined): {
  LoggerClass?: new () => ClientLogger;
  level: ClickHouseLogLevel;
} {
  if (!logger) return { level: ClickHouseLogLevel.OFF };
  const log = logger.child({ component: '@clickhouse/client' });
  const fields = ({ module, args }: LogParams, err?: Error) => ({
    module,
    ...args,
    ...(err ? { err } : {}),
  });
  class PinoClientLogger implements ClientLogger {
    trace(params: LogParams): void {
      log.trace(fields(params), params.message);
    }
    debug(params: LogParams): void {
      log.debug(fields(params), params.message);
    }
    info(params: LogParams): void {
      log.info(fields(params), params.message);
    }
    warn(params: WarnLogParams): void {
      log.warn(fields(params, params.err), params.message);
    }
    error(params: ErrorLogParams): void {
      log.error(fields(params, params.err), params.message);
    }
  }
  return { LoggerClass: PinoClientLogger, level: ClickHouseLogLevel.WARN };
}

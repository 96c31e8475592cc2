import {
  ClickHouseLogLevel,
  type Logger as ClientLogger,
  type ErrorLogParams,
  type LogParams,
  type WarnLogParams,
} from '@clickhouse/client';
import type { Logger } from 'pino';

// The client's message for a request that failed, which its caller is also given: "Query: HTTP
// request error.", "Command: …", "Insert: …" (node_base_connection's httpRequestErrorMessage).
const REQUEST_FAILED = /HTTP request error\.$/;

/**
 * The `log` option of @clickhouse/client: what the client reports itself (a stale kept-alive
 * socket, a setting it advises against, an error while tidying its sockets) as structured
 * lines of the given logger, at the client's levels, from `warn` up. A failed request is the
 * exception: it reaches the code that made it, which reports it once (a 503's warning, a
 * start-up's "Cannot reach …"), so the client's own line about it is only at debug level.
 * By default the client prints its own plain text to the console, outside the service's logs.
 * Without a logger (tools, tests), nothing.
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
      if (REQUEST_FAILED.test(params.message)) log.debug(fields(params, params.err), params.message);
      else log.error(fields(params, params.err), params.message);
    }
  }
  return { LoggerClass: PinoClientLogger, level: ClickHouseLogLevel.WARN };
}

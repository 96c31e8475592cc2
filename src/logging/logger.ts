import { type DestinationStream, type Logger, pino } from 'pino';
import type { LogLevel } from '../config/config.ts';
import { serializeErr } from './error-fields.ts';

/**
 * Structured JSON logs. Anything that could hold a secret is redacted by path, as a second
 * line of defence: code should not log secrets in the first place. An error (`err`) is logged
 * as its class, message, code and causes, never its stack (error-fields.ts).
 */
export function createLogger(
  level: LogLevel,
  destination?: DestinationStream,
  service = 'docwright',
): Logger {
  return pino(
    {
      level,
      base: { service },
      serializers: { err: serializeErr },
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          '*.apiKey',
          '*.token',
          '*.password',
          'key',
          '*.key',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

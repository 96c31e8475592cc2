import { type DestinationStream, type Logger, pino } from 'pino';
import type { LogLevel } from '../config/config.ts';

/**
 * Structured JSON logs. Anything that could hold a secret is redacted by path, as a second
 * line of defence: code should not log secrets in the first place.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'docwright' },
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

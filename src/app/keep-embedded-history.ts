import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import type { AnalyticsBackendConfig } from '../config/analytics-backend.ts';
import { embeddedViewCount } from '../integrations/analytics/embedded/earlier-metadata.ts';

/**
 * An installation on PostgreSQL whose views are in the embedded file (every version before the
 * PostgreSQL store) keeps that file when no DOCWRIGHT_ANALYTICS_URL says otherwise: switching
 * to the new default would hide its history from every export. It is told how to move on.
 * Only the views of its own projects count: a SQLite installation that shared the data
 * directory left its views there, and they are not this installation's history.
 */
export function keepEmbeddedHistory(
  backend: AnalyticsBackendConfig,
  embeddedFile: string,
  projectIds: readonly string[],
  logger: Logger,
): AnalyticsBackendConfig {
  if (backend.kind !== 'postgres' || !backend.implicit || !existsSync(embeddedFile)) return backend;
  const views = embeddedViewCount(embeddedFile, projectIds);
  if (views === 0) return backend;
  logger.warn(
    { views, file: embeddedFile },
    'analytics: the views of this installation are in its embedded file, so it stays on the embedded engine; with several API processes set DOCWRIGHT_ANALYTICS_URL (postgres://… or clickhouse://…) once its views are moved, or DOCWRIGHT_ANALYTICS_URL=embedded to keep this choice and silence this warning',
  );
  return { kind: 'embedded', file: embeddedFile };
}

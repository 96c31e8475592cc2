import type { AnalyticsBackendConfig } from '../config/analytics-backend.ts';
import { describeAnalyticsBackend } from '../config/analytics-backend.ts';
import type { DatabaseConfig } from '../storage/database.ts';
import { isStorageUnavailable } from '../storage/unavailable.ts';

/**
 * A failure to open the main database, said as what it is when it is one of reaching it (a
 * refused or timed-out connection, a server shutting down, a file another process keeps locked):
 * which database, where, and which setting points there, instead of a bare "connect
 * ECONNREFUSED 127.0.0.1:5432". Any other error is returned as it is.
 */
export function mainDatabaseUnreachable(error: unknown, config: DatabaseConfig): unknown {
  if (config.kind === 'postgres' && isMissingDatabase(error)) {
    return missingDatabase(error, config.url, 'DATABASE_URL');
  }
  if (!isStorageUnavailable(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  if (config.kind === 'sqlite')
    return new Error(
      `Cannot open the main database (SQLite ${config.file}): ${reason}. Another process keeps the file locked; try again when it is done.`,
      { cause: error },
    );
  return new Error(
    `Cannot reach the main database (${describePostgres(config.url, config.schema)}): ${reason}. Is PostgreSQL running and reachable from here? (DATABASE_URL)`,
    { cause: error },
  );
}

/** As mainDatabaseUnreachable, for the analytics engine. */
export function analyticsEngineUnreachable(error: unknown, backend: AnalyticsBackendConfig): unknown {
  if (backend.kind === 'postgres' && isMissingDatabase(error)) {
    return missingDatabase(error, backend.url, 'DOCWRIGHT_ANALYTICS_URL');
  }
  if (!isStorageUnavailable(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  const setting =
    backend.kind === 'clickhouse' ? 'DOCWRIGHT_ANALYTICS_URL' : 'DATABASE_URL, DOCWRIGHT_ANALYTICS_URL';
  return new Error(
    `Cannot reach the analytics engine, ${describeAnalyticsBackend(backend)}: ${reason}. Is it running and reachable from here? (${setting})`,
    { cause: error },
  );
}

/** host:port/database and schema of a PostgreSQL URL: never its user or password. */
function describePostgres(url: string, schema: string | null): string {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  const where = parsed ? `PostgreSQL at ${parsed.host}${parsed.pathname}` : 'PostgreSQL';
  return schema ? `${where}, schema ${schema}` : where;
}

/** PostgreSQL's answer to a connection for a database it does not have (SQLSTATE 3D000). */
function isMissingDatabase(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '3D000';
}

/**
 * The database named in the URL does not exist on the server: which one, where, the setting, and
 * how to make it. PostgreSQL's own words ("database "docs" does not exist") name none of these.
 */
function missingDatabase(error: unknown, url: string, setting: string): Error {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  const name = decodeURIComponent(parsed?.pathname.slice(1) ?? '') || 'docwright';
  const host = parsed?.hostname.replace(/^\[|\]$/g, '') || 'localhost';
  const port = parsed?.port || '5432';
  return new Error(
    `The PostgreSQL database "${name}" does not exist on ${host}:${port} (${setting}). Create it first, then start again: createdb -h ${host} -p ${port} ${name} (or CREATE DATABASE ${name}; in psql).`,
    { cause: error },
  );
}

import type { DatabaseConfig } from '../storage/database.ts';

/** Which engine holds the analytics views (DOCWRIGHT_ANALYTICS_URL; see docs/analytics.md). */
export type AnalyticsBackendConfig =
  | { kind: 'embedded'; file: string }
  | {
      kind: 'postgres';
      url: string;
      schema: string | null;
      /** Chosen because the main database is PostgreSQL, not by DOCWRIGHT_ANALYTICS_URL. */
      implicit?: true;
    }
  | {
      kind: 'clickhouse';
      /** The HTTP endpoint alone (`http://host:8123`), without credentials or path. */
      url: string;
      database: string;
      username: string;
      password: string;
    };

const EXPECTED =
  'DOCWRIGHT_ANALYTICS_URL must be embedded, postgres://…, clickhouse://user:password@host:8123/database or http(s)://user:password@host:8123/database';
const CLICKHOUSE_PORT = '8123';

/**
 * DOCWRIGHT_ANALYTICS_URL as a backend. Unset: PostgreSQL, in the main database and schema,
 * when that is PostgreSQL (several processes then share one truth with nothing more to run),
 * else the embedded engine. Problems are pushed to `problems`, never with a password in them.
 */
export function parseAnalyticsBackend(
  value: string | undefined,
  context: { database: DatabaseConfig; schema: string | null; embeddedFile: string },
  problems: string[],
): AnalyticsBackendConfig {
  const embedded: AnalyticsBackendConfig = { kind: 'embedded', file: context.embeddedFile };
  if (value === undefined) {
    return context.database.kind === 'postgres'
      ? { kind: 'postgres', url: context.database.url, schema: context.database.schema, implicit: true }
      : embedded;
  }
  if (value.toLowerCase() === 'embedded') return embedded;
  if (!URL.canParse(value)) {
    problems.push(`${EXPECTED} (got "${withoutPassword(value)}")`);
    return embedded;
  }
  const url = new URL(value);
  switch (url.protocol) {
    case 'postgres:':
    case 'postgresql:':
      return { kind: 'postgres', url: value, schema: context.schema };
    case 'clickhouse:':
    case 'http:':
    case 'https:':
      return clickhouse(url, value, problems) ?? embedded;
    default:
      problems.push(`${EXPECTED} (got "${withoutPassword(value)}")`);
      return embedded;
  }
}

function clickhouse(url: URL, value: string, problems: string[]): AnalyticsBackendConfig | null {
  const shown = withoutPassword(value);
  const before = problems.length;
  if (url.hostname === '') problems.push(`DOCWRIGHT_ANALYTICS_URL needs a ClickHouse host (got "${shown}")`);
  if (url.search !== '' || url.hash !== '') {
    problems.push(`DOCWRIGHT_ANALYTICS_URL takes no query string or fragment (got "${shown}")`);
  }
  const database = url.pathname.replace(/^\/|\/$/g, '') || 'default';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(database)) {
    problems.push(
      `DOCWRIGHT_ANALYTICS_URL: the ClickHouse database must be one name of letters, digits and _ (got "${shown}")`,
    );
  }
  let username = 'default';
  let password = '';
  try {
    username = decodeURIComponent(url.username) || 'default';
    password = decodeURIComponent(url.password);
  } catch {
    problems.push(
      `DOCWRIGHT_ANALYTICS_URL: the user name or password is not validly %-escaped (got "${shown}")`,
    );
  }
  if (problems.length > before) return null;
  const scheme = url.protocol === 'https:' ? 'https:' : 'http:';
  const port = url.port || (url.protocol === 'clickhouse:' ? CLICKHOUSE_PORT : '');
  return {
    kind: 'clickhouse',
    url: `${scheme}//${url.hostname}${port ? `:${port}` : ''}`,
    database,
    username,
    password,
  };
}

/**
 * The value with any password replaced, for messages and logs. Errs towards hiding: whatever
 * lies between the user name's colon and the last `@` goes, even in a value that is no URL.
 */
export function withoutPassword(value: string): string {
  const at = value.lastIndexOf('@');
  if (at === -1) return value;
  const scheme = value.indexOf('//');
  const start = scheme === -1 || scheme > at ? 0 : scheme + 2;
  const colon = value.indexOf(':', start);
  if (colon === -1 || colon > at) return value;
  return `${value.slice(0, colon)}:[redacted]${value.slice(at)}`;
}

/** The backend in words, for the start log and banner: no credentials. */
export function describeAnalyticsBackend(backend: AnalyticsBackendConfig): string {
  switch (backend.kind) {
    case 'embedded':
      return `embedded (${backend.file})`;
    case 'postgres': {
      const url = URL.canParse(backend.url) ? new URL(backend.url) : null;
      const where = url ? `${url.host}${url.pathname}` : 'the main database';
      return `PostgreSQL (${where}${backend.schema ? `, schema ${backend.schema}` : ''})`;
    }
    case 'clickhouse':
      return `ClickHouse (${backend.url}, database ${backend.database}, user ${backend.username})`;
  }
}

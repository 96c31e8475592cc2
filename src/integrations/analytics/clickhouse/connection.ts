import http from 'node:http';
import https from 'node:https';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { identifier, literal } from './sql-literal.ts';

export interface ClickHouseConnectionOptions {
  /** The server's HTTP interface, e.g. `http://127.0.0.1:8123`. */
  url: string;
  /** Created when missing; the store's tables live there. */
  database: string;
  username?: string;
  password?: string;
  /** Milliseconds one request may take (the client's default, 30 s, when not given). */
  requestTimeoutMs?: number;
}

/**
 * Settings every query carries. Only settings 18.16 knows: the server refuses unknown ones.
 * `max_query_size`: idempotency checks and reclassification write long value lists.
 */
const SETTINGS = { max_query_size: '67108864' } as const;

export interface ClickHouseConnection {
  client: ClickHouseClient;
  /** The back-quoted database name, to prefix tables with. */
  db: string;
  /** The database name as given. */
  database: string;
  query<T>(sql: string): Promise<T[]>;
  command(sql: string): Promise<void>;
  /**
   * A statement that may run for minutes (a rebuild's INSERT … SELECT), with settings of its
   * own, over a plain HTTP request without the client's request timeout.
   */
  longCommand(sql: string, settings?: Readonly<Record<string, string>>): Promise<void>;
  /**
   * A query reading a table of rows sent with it (ClickHouse's "external data" over HTTP: a
   * multipart body in TabSeparated, parsed like an insert), named `name` in the SQL. For long
   * value lists: parsing them as SQL literals is slow and limited by `max_ast_elements`.
   */
  queryWith<T>(sql: string, external: ExternalTable): Promise<T[]>;
  /** Waits until every mutation (ALTER … UPDATE/DELETE) of the table is done. */
  awaitMutations(table: string): Promise<void>;
}

export interface ExternalTable {
  name: string;
  /** Columns as ClickHouse takes them, e.g. `hi UInt64, page String`. */
  structure: string;
  /** TabSeparated lines (see `tsv`). */
  rows: string[];
}

/** A value as one TabSeparated field: backslash, tab, newline, carriage return and NUL escaped. */
export function tsv(value: string): string {
  return value.replace(/[\\\t\n\r\0]/g, (c) => TSV_ESCAPES[c] as string);
}

const TSV_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '\0': '\\0',
};

/** True for fetch's failure to write to or read from a socket the peer had closed. */
function isStaleSocket(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  return ['EPIPE', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(cause?.code ?? '');
}

export function connect(options: ClickHouseConnectionOptions): ClickHouseConnection {
  const client = createClient({
    url: options.url,
    username: options.username ?? 'default',
    password: options.password ?? '',
    ...(options.requestTimeoutMs === undefined ? {} : { request_timeout: options.requestTimeoutMs }),
    clickhouse_settings: SETTINGS,
    // 18.16 answers uncompressed unless asked; the client's gzip request compression is off.
    compression: { request: false, response: false },
  });
  const db = identifier(options.database);
  const database = options.database;
  const query = async <T>(sql: string): Promise<T[]> => {
    const result = await client.query({ query: sql, format: 'JSONEachRow' });
    return result.json<T>();
  };
  return {
    client,
    db,
    database,
    query,
    async command(sql) {
      await client.command({ query: sql });
    },
    longCommand(sql, settings = {}) {
      const url = new URL(options.url);
      url.searchParams.set('database', database);
      for (const [key, value] of Object.entries({ ...SETTINGS, ...settings }))
        url.searchParams.set(key, value);
      const user = options.username ?? (decodeURIComponent(url.username) || 'default');
      const password = options.password ?? decodeURIComponent(url.password);
      url.username = '';
      url.password = '';
      const send = url.protocol === 'https:' ? https.request : http.request;
      return new Promise((resolve, reject) => {
        const req = send(
          url,
          {
            method: 'POST',
            headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
            // A connection of its own: a kept-alive socket may have been closed by the server
            // while this process was busy (EPIPE), and these statements are few and long.
            agent: false,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('error', reject);
            res.on('end', () => {
              if (res.statusCode === 200) resolve();
              else
                reject(
                  new Error(
                    `ClickHouse answered ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 500)}`,
                  ),
                );
            });
          },
        );
        req.on('error', reject);
        req.end(sql);
      });
    },
    async queryWith<T>(sql: string, external: ExternalTable): Promise<T[]> {
      const url = new URL(options.url);
      url.searchParams.set('query', `${sql} FORMAT JSONEachRow`);
      url.searchParams.set('database', database);
      url.searchParams.set(`${external.name}_structure`, external.structure);
      url.searchParams.set(`${external.name}_format`, 'TabSeparated');
      for (const [key, value] of Object.entries(SETTINGS)) url.searchParams.set(key, value);
      const body = new FormData();
      body.append(external.name, new Blob([external.rows.join('\n')]), external.name);
      const user = options.username ?? (decodeURIComponent(url.username) || 'default');
      const password = options.password ?? decodeURIComponent(url.password);
      url.username = '';
      url.password = '';
      const send = () =>
        fetch(url, {
          method: 'POST',
          body,
          headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
          ...(options.requestTimeoutMs === undefined
            ? {}
            : { signal: AbortSignal.timeout(options.requestTimeoutMs) }),
        });
      let res: Response;
      try {
        res = await send();
      } catch (error) {
        // A kept-alive socket the server had closed meanwhile (seen as EPIPE under heavy load,
        // when a socket idles past the server's keep-alive timeout): the query only reads, so
        // it is sent once more, on a new socket.
        if (!isStaleSocket(error)) throw error;
        res = await send();
      }
      const text = await res.text();
      if (!res.ok) throw new Error(`ClickHouse answered ${res.status}: ${text.slice(0, 500)}`);
      return text.length === 0
        ? []
        : text
            .trimEnd()
            .split('\n')
            .map((line) => JSON.parse(line) as T);
    },
    async awaitMutations(table) {
      // `mutations_sync` arrived after 18.16: poll system.mutations instead.
      for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
        const [row] = await query<{ n: string }>(
          `SELECT count() AS n FROM system.mutations WHERE database = ${literal(database)} AND table = ${literal(table)} AND is_done = 0`,
        );
        if (Number(row?.n ?? 0) === 0) return;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    },
  };
}

import http from 'node:http';
import https from 'node:https';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import type { Logger } from 'pino';
import { clientLogOptions } from './client-log.ts';
import { identifier, literal } from './sql-literal.ts';
import { unavailableIfTransient } from './unavailable.ts';

export interface ClickHouseConnectionOptions {
  /** The server's HTTP interface, e.g. `http://127.0.0.1:8123`. */
  url: string;
  /** Created when missing; the store's tables live there. */
  database: string;
  username?: string;
  password?: string;
  /** Milliseconds one request may take (the client's default, 30 s, when not given). */
  requestTimeoutMs?: number;
  /** Where the client's own warnings and errors go (client-log.ts); none when not given. */
  logger?: Logger;
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
  /** A query answering in RowBinary (row-binary.ts), with a table sent beside it or not: the answer's bytes. */
  queryBinary(sql: string, external: ExternalTable | null): Promise<Buffer>;
  /**
   * Inserts rows already written in RowBinary (every column of the table, in order). Sent once
   * more only when the socket broke before the server read anything (EPIPE).
   */
  insertBinary(table: string, rows: Buffer): Promise<void>;
  /** Waits until every mutation (ALTER … UPDATE/DELETE) of the table is done. */
  awaitMutations(table: string): Promise<void>;
}

export interface ExternalTable {
  name: string;
  /** Columns as ClickHouse takes them, e.g. `hi UInt64, page String`. */
  structure: string;
  /** TabSeparated lines (see `tsv`), or the rows in RowBinary (row-binary.ts). */
  rows: string[] | Buffer;
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

/** @clickhouse/client's own default `request_timeout`. */
const CLIENT_DEFAULT_TIMEOUT_MS = 30_000;

/** True for fetch's failure to write to a socket the peer had closed (nothing was read). */
function isBrokenPipe(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  return cause?.code === 'EPIPE';
}

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
    log: clientLogOptions(options.logger),
  });
  const db = identifier(options.database);
  const database = options.database;
  const query = async <T>(sql: string): Promise<T[]> => {
    try {
      const result = await client.query({ query: sql, format: 'JSONEachRow' });
      return await result.json<T>();
    } catch (error) {
      throw unavailableIfTransient(error);
    }
  };
  const base = new URL(options.url);
  const user = options.username ?? (decodeURIComponent(base.username) || 'default');
  const password = options.password ?? decodeURIComponent(base.password);
  base.username = '';
  base.password = '';
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  /**
   * A request of our own over fetch (the client has no external data and no RowBinary insert):
   * a query with a table sent beside it (multipart), or an insert whose body is its rows.
   */
  const post = async (sql: string, payload: ExternalTable | Buffer | null): Promise<Buffer> => {
    const url = new URL(base);
    url.searchParams.set('query', sql);
    url.searchParams.set('database', database);
    for (const [key, value] of Object.entries(SETTINGS)) url.searchParams.set(key, value);
    let body: FormData | Buffer | undefined;
    if (payload === null) body = undefined;
    else if (Buffer.isBuffer(payload)) body = payload;
    else {
      const { name, structure, rows } = payload;
      url.searchParams.set(`${name}_structure`, structure);
      url.searchParams.set(`${name}_format`, Buffer.isBuffer(rows) ? 'RowBinary' : 'TabSeparated');
      body = new FormData();
      body.append(name, new Blob([Buffer.isBuffer(rows) ? rows : rows.join('\n')]), name);
    }
    const send = () =>
      fetch(url, {
        method: 'POST',
        body,
        headers: { authorization },
        // As the client's requests: a server that stops answering fails the request, not hangs it.
        signal: AbortSignal.timeout(options.requestTimeoutMs ?? CLIENT_DEFAULT_TIMEOUT_MS),
      });
    let res: Response;
    try {
      res = await send();
    } catch (error) {
      // A kept-alive socket the server had closed meanwhile (seen as EPIPE under heavy load,
      // when a socket idles past the server's keep-alive timeout). A query only reads, so it is
      // sent once more, on a new socket; an insert only when nothing of it was read (EPIPE).
      if (Buffer.isBuffer(payload) ? !isBrokenPipe(error) : !isStaleSocket(error)) throw error;
      res = await send();
    }
    const answer = Buffer.from(await res.arrayBuffer());
    if (!res.ok)
      throw unavailableIfTransient(
        new Error(`ClickHouse answered ${res.status}: ${answer.toString('utf8', 0, 500)}`),
        res.status,
      );
    return answer;
  };
  return {
    client,
    db,
    database,
    query,
    async command(sql) {
      try {
        await client.command({ query: sql });
      } catch (error) {
        throw unavailableIfTransient(error);
      }
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
                  unavailableIfTransient(
                    new Error(
                      `ClickHouse answered ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 500)}`,
                    ),
                    res.statusCode,
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
      const text = (await post(`${sql} FORMAT JSONEachRow`, external)).toString('utf8');
      return text.length === 0
        ? []
        : text
            .trimEnd()
            .split('\n')
            .map((line) => JSON.parse(line) as T);
    },
    queryBinary(sql, external) {
      return post(`${sql} FORMAT RowBinary`, external);
    },
    async insertBinary(table, rows) {
      await post(`INSERT INTO ${table} FORMAT RowBinary`, rows);
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

import { randomBytes } from 'node:crypto';
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
  /** Closes the client and this connection's own kept-alive sockets. */
  close(): Promise<void>;
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

/** How `send` makes one request. */
interface SendOptions {
  contentType?: string | undefined;
  /** A socket of its own, closed after the answer, instead of a kept-alive one. */
  ownSocket?: boolean;
  /** No request timeout: for statements that may run for minutes. */
  untimed?: boolean;
}

/** The error for an answer other than 200: ClickHouse's message, cut to 500 characters. */
function failure(answer: { status: number; answer: Buffer }): unknown {
  return unavailableIfTransient(
    new Error(`ClickHouse answered ${answer.status}: ${answer.answer.toString('utf8', 0, 500)}`),
    answer.status,
  );
}

/** @clickhouse/client's own default `request_timeout`. */
const CLIENT_DEFAULT_TIMEOUT_MS = 30_000;

/** True for a failure to write to a socket the peer had closed (nothing was read). */
function isBrokenPipe(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'EPIPE';
}

/** True for a failure to write to or read from a socket the peer had closed. */
function isStaleSocket(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'EPIPE' || code === 'ECONNRESET';
}

/**
 * A multipart/form-data body holding one file, as ClickHouse's HTTP interface takes external
 * data: the part's name is the table's.
 */
function multipartFile(name: string, content: Buffer): { body: Buffer; contentType: string } {
  const boundary = `docwright-${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    body: Buffer.concat([head, content, tail], head.length + content.length + tail.length),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
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
  // Kept-alive sockets for our own requests; Node closes an idle one a second before the
  // server's `Keep-Alive: timeout=N` says the server will.
  const agent = new (base.protocol === 'https:' ? https.Agent : http.Agent)({ keepAlive: true });
  const request = base.protocol === 'https:' ? https.request : http.request;
  /**
   * One POST of our own (the client has no external data and no RowBinary insert) over
   * node:http, whose socket takes the body's bytes as they are: fetch copied every insert's
   * body twice on its way to the socket (bench/analytics/clickhouse-append.ts).
   */
  const send = (url: URL, body: Buffer | string | undefined, how: SendOptions = {}) =>
    new Promise<{ status: number; answer: Buffer }>((resolve, reject) => {
      const headers: Record<string, string | number> = {
        authorization,
        'content-length': body === undefined ? 0 : Buffer.byteLength(body),
      };
      if (how.contentType) headers['content-type'] = how.contentType;
      const req = request(
        url,
        {
          method: 'POST',
          agent: how.ownSocket ? false : agent,
          headers,
          // As the client's requests: a server that stops answering fails the request, not hangs it.
          ...(how.untimed
            ? {}
            : { signal: AbortSignal.timeout(options.requestTimeoutMs ?? CLIENT_DEFAULT_TIMEOUT_MS) }),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => resolve({ status: res.statusCode ?? 0, answer: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  /** The URL of one statement: its database and settings as query parameters. */
  const statementUrl = (settings: Readonly<Record<string, string>>): URL => {
    const url = new URL(base);
    url.searchParams.set('database', database);
    for (const [key, value] of Object.entries({ ...SETTINGS, ...settings })) url.searchParams.set(key, value);
    return url;
  };
  /** A query with a table sent beside it (multipart) or none, or an insert whose body is its rows. */
  const post = async (sql: string, payload: ExternalTable | Buffer | null): Promise<Buffer> => {
    const url = statementUrl({});
    url.searchParams.set('query', sql);
    let body: Buffer | undefined;
    let contentType: string | undefined;
    if (payload === null) body = undefined;
    else if (Buffer.isBuffer(payload)) body = payload;
    else {
      const { name, structure, rows } = payload;
      url.searchParams.set(`${name}_structure`, structure);
      url.searchParams.set(`${name}_format`, Buffer.isBuffer(rows) ? 'RowBinary' : 'TabSeparated');
      const part = multipartFile(name, Buffer.isBuffer(rows) ? rows : Buffer.from(rows.join('\n')));
      body = part.body;
      contentType = part.contentType;
    }
    let answer: { status: number; answer: Buffer };
    try {
      answer = await send(url, body, { contentType });
    } catch (error) {
      // A kept-alive socket the server had closed meanwhile (seen as EPIPE under heavy load,
      // when a socket idles past the server's keep-alive timeout). A query only reads, so it is
      // sent once more, on a new socket; an insert only when nothing of it was read (EPIPE).
      if (Buffer.isBuffer(payload) ? !isBrokenPipe(error) : !isStaleSocket(error)) throw error;
      answer = await send(url, body, { contentType });
    }
    if (answer.status !== 200) throw failure(answer);
    return answer.answer;
  };
  return {
    client,
    async close() {
      agent.destroy();
      await client.close();
    },
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
    async longCommand(sql, settings = {}) {
      // A connection of its own and no timeout: these statements are few and may run for
      // minutes, and a kept-alive socket may have been closed by the server meanwhile (EPIPE).
      const answer = await send(statementUrl(settings), sql, { ownSocket: true, untimed: true });
      if (answer.status !== 200) throw failure(answer);
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

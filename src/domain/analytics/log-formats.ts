import type { IncomingEvent } from './ingest.ts';

export const LOG_FORMATS = ['combined', 'common', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** A parsed line: the view it records, or why it is skipped (a short, countable reason). */
export type ParsedLine = { event: IncomingEvent; time: string } | { skip: string };

// nginx/Apache: %h %l %u [%t] "%r" %>s %b, then "%{Referer}i" "%{User-agent}i" in combined.
const COMMON = /^(\S+) \S+ \S+ \[([^\]]+)\] "([^"]*)" (\d{3}) (?:\d+|-)/;
const COMBINED =
  /^(\S+) \S+ \S+ \[([^\]]+)\] "([^"]*)" (\d{3}) (?:\d+|-) "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)"/;
const CLF_TIME = /^(\d{2})\/([A-Za-z]{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/;
const MONTHS: Record<string, number> = {
  Jan: 0,
  Feb: 1,
  Mar: 2,
  Apr: 3,
  May: 4,
  Jun: 5,
  Jul: 6,
  Aug: 7,
  Sep: 8,
  Oct: 9,
  Nov: 10,
  Dec: 11,
};

/** Assets a docs page loads: requests for them are not page views. */
const ASSET =
  /\.(?:css|js|mjs|map|json|png|jpe?g|gif|svg|webp|avif|ico|woff2?|ttf|otf|eot|mp4|webm|mp3|wasm|xml|rss|atom|zip|gz|pdf)$/i;

/** Picks the format from the first line when none is given. */
export function detectFormat(line: string): LogFormat {
  if (line.trimStart().startsWith('{')) return 'json';
  return COMBINED.test(line) ? 'combined' : 'common';
}

export function parseLine(format: LogFormat, line: string): ParsedLine {
  if (format === 'json') return parseJsonLine(line);
  const match = (format === 'combined' ? COMBINED : COMMON).exec(line);
  if (!match) return { skip: `not a ${format} log line` };
  const [, ip, time, request, status, referrer, userAgent] = match as unknown as string[];
  const timestamp = parseClfTime(time ?? '');
  if (timestamp === null) return { skip: 'bad timestamp' };
  return toView({
    time: time ?? '',
    timestamp,
    ip,
    request,
    status: Number(status),
    referrer: referrer === undefined || referrer === '-' ? undefined : unescapeQuoted(referrer),
    userAgent: userAgent === undefined ? '' : unescapeQuoted(userAgent),
  });
}

// Log lines come in time order, many to a second: parse each second's timestamp once.
let lastClfText = '';
let lastClfTime: number | null = null;

/** `10/Oct/2024:13:55:36 +0200` → epoch milliseconds. */
export function parseClfTime(value: string): number | null {
  if (value === lastClfText) return lastClfTime;
  lastClfText = value;
  lastClfTime = parseClfTimeUncached(value);
  return lastClfTime;
}

function parseClfTimeUncached(value: string): number | null {
  const m = CLF_TIME.exec(value);
  if (!m) return null;
  const month = MONTHS[m[2] as string];
  if (month === undefined) return null;
  const local = Date.UTC(Number(m[3]), month, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  const offset = (Number(m[8]) * 60 + Number(m[9])) * 60_000;
  return m[7] === '-' ? local + offset : local - offset;
}

interface RawView {
  time: string;
  timestamp: number | string;
  ip: string | undefined;
  /** `GET /path HTTP/1.1`, or just the path with `method` given separately. */
  request: string | undefined;
  method?: string | undefined;
  status: number;
  referrer: string | undefined;
  userAgent: string;
  accept?: string | undefined;
}

function toView(raw: RawView): ParsedLine {
  let method = raw.method;
  let target = raw.request;
  if (method === undefined && target !== undefined) {
    // `GET /path HTTP/1.1`: the method, then the target up to the next space.
    const space = target.indexOf(' ');
    if (space === -1) return { skip: 'malformed request line' };
    const end = target.indexOf(' ', space + 1);
    method = target.slice(0, space);
    target = end === -1 ? target.slice(space + 1) : target.slice(space + 1, end);
  }
  if (method !== undefined && method !== 'GET' && method.toUpperCase() !== 'GET')
    return { skip: `method ${method.toUpperCase()}` };
  if (!target) return { skip: 'no path' };
  if (!Number.isInteger(raw.status) || raw.status < 100 || raw.status > 599) return { skip: 'bad status' };
  if (!((raw.status >= 200 && raw.status < 300) || raw.status === 304))
    return { skip: `status ${raw.status}` };
  if (isAsset(target)) return { skip: 'asset (not a page)' };
  if (!raw.ip) return { skip: 'no client IP' };
  return {
    time: raw.time,
    event: {
      timestamp: raw.timestamp,
      path: target,
      userAgent: raw.userAgent,
      ip: raw.ip,
      referrer: raw.referrer,
      status: raw.status,
      accept: raw.accept,
    },
  };
}

// Not cached in a map: hashing each line's fresh target string costs more than the regex.
function isAsset(target: string): boolean {
  const cut = target.search(/[?#]/);
  return ASSET.test(cut >= 0 ? target.slice(0, cut) : target);
}

// Field names used by common CDN and proxy log exports (Cloudflare, Fastly, CloudFront, nginx JSON).
const FIELDS = {
  time: ['timestamp', 'time', '@timestamp', 'date', 'EdgeStartTimestamp', 'datetime', 'time_iso8601', 'ts'],
  ip: ['ip', 'client_ip', 'clientIp', 'remote_addr', 'ClientIP', 'c-ip', 'clientIP', 'remoteAddr'],
  path: [
    'path',
    'uri',
    'url',
    'request_uri',
    'ClientRequestURI',
    'ClientRequestPath',
    'cs-uri-stem',
    'requestPath',
  ],
  userAgent: ['userAgent', 'user_agent', 'http_user_agent', 'ClientRequestUserAgent', 'cs(User-Agent)', 'ua'],
  status: ['status', 'status_code', 'statusCode', 'EdgeResponseStatus', 'sc-status', 'OriginResponseStatus'],
  method: ['method', 'request_method', 'ClientRequestMethod', 'cs-method', 'requestMethod'],
  referrer: ['referrer', 'referer', 'http_referer', 'ClientRequestReferer', 'cs(Referer)'],
  accept: ['accept', 'http_accept', 'ClientRequestAccept'],
} as const;

function field(record: Record<string, unknown>, names: readonly string[]): unknown {
  for (const name of names) if (record[name] !== undefined && record[name] !== null) return record[name];
  return undefined;
}

function parseJsonLine(line: string): ParsedLine {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return { skip: 'not valid JSON' };
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record))
    return { skip: 'not a JSON object' };
  const r = record as Record<string, unknown>;
  const time = field(r, FIELDS.time);
  const timestamp = jsonTime(time);
  if (timestamp === null) return { skip: 'bad timestamp' };
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const status = field(r, FIELDS.status);
  return toView({
    time: String(time),
    timestamp,
    ip: text(field(r, FIELDS.ip)),
    request: text(field(r, FIELDS.path)),
    method: text(field(r, FIELDS.method)) ?? 'GET',
    status: typeof status === 'string' ? Number(status) : typeof status === 'number' ? status : 200,
    referrer: text(field(r, FIELDS.referrer)),
    userAgent: text(field(r, FIELDS.userAgent)) ?? '',
    accept: text(field(r, FIELDS.accept)),
  });
}

/** ISO 8601 strings as they are; numbers as epoch seconds, milliseconds or nanoseconds. */
function jsonTime(value: unknown): number | string | null {
  if (typeof value === 'string') {
    // An ISO date-time (the usual case) has its first '-' at index 4: no need for the regex.
    if (value.charCodeAt(4) === 45) return value;
    return /^\d+(\.\d+)?$/.test(value) ? jsonTime(Number(value)) : value;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  if (value > 1e17) return Math.floor(value / 1e6); // nanoseconds
  if (value > 1e11) return Math.floor(value); // milliseconds
  return Math.floor(value * 1000); // seconds
}

function unescapeQuoted(value: string): string {
  return value.includes('\\') ? value.replace(/\\(.)/g, '$1') : value;
}

import { percentDecodeText } from './escapes.ts';
import { type LineView, toView } from './log-view.ts';
import { parseDateTime } from './timestamps.ts';

/*
 * Structured log records (JSON lines, W3C columns) in the shapes CDNs and hosts document:
 * - CloudFront standard logs (W3C columns, or JSON in standard logging v2): `date` + `time`,
 *   `c-ip`, `cs-method`, `cs-uri-stem`, `sc-status`, `cs(User-Agent)` and `cs(Referer)`
 *   URL-encoded, `sc-content-type`; real-time logs: `timestamp` (epoch seconds),
 *   `cs-user-agent`, `cs-referer`, `cs-accept`.
 * - Vercel log drains: the request in a nested `proxy` object (`clientIp`, `method`, `path`,
 *   `userAgent` as an array, `referer`, `statusCode`, `timestamp` in ms); other records
 *   (build output, function logs) have no `proxy`.
 * - Cloudflare Logpush `http_requests`: `EdgeStartTimestamp`, `ClientIP`, `ClientRequestMethod`,
 *   `ClientRequestURI`, `ClientRequestUserAgent`, `ClientRequestReferer`, `EdgeResponseStatus`,
 *   `EdgeResponseContentType`; request headers logged as custom fields in `RequestHeaders`.
 * - Fastly real-time logging in its documented JSON format: `timestamp`, `client_ip`,
 *   `request` or `request_method`, `url`, `request_user_agent`, `request_referer`,
 *   `response_status`.
 * - Netlify log drains, traffic logs: `log_type: "traffic"`, `timestamp`, `client_ip`,
 *   `method`, `url`, `status_code`, `user_agent`, `referrer`, `content_type`.
 * - nginx JSON `log_format`s and other exports with the common names below.
 */

type Fields = Record<string, unknown>;

const NAMES = {
  time: [
    'timestamp',
    'time',
    '@timestamp',
    'EdgeStartTimestamp',
    'datetime',
    'time_iso8601',
    'ts',
    'time_start',
  ],
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
  userAgent: [
    'userAgent',
    'user_agent',
    'http_user_agent',
    'ClientRequestUserAgent',
    'request_user_agent',
    'cs(User-Agent)',
    'cs-user-agent',
    'ua',
  ],
  status: [
    'status',
    'status_code',
    'statusCode',
    'EdgeResponseStatus',
    'sc-status',
    'response_status',
    'OriginResponseStatus',
  ],
  method: ['method', 'request_method', 'ClientRequestMethod', 'cs-method', 'requestMethod'],
  referrer: [
    'referrer',
    'referer',
    'http_referer',
    'ClientRequestReferer',
    'request_referer',
    'cs(Referer)',
    'cs-referer',
  ],
  accept: ['accept', 'http_accept', 'ClientRequestAccept', 'request_accept', 'cs-accept'],
  contentType: [
    'content_type',
    'contentType',
    'EdgeResponseContentType',
    'response_content_type',
    'sc-content-type',
  ],
} as const;

/** CloudFront URL-encodes these fields (`Mozilla/5.0%20(Windows…`). */
const URL_ENCODED = new Set(['cs(User-Agent)', 'cs-user-agent', 'cs(Referer)', 'cs-referer']);

function first(record: Fields, names: readonly string[]): { name: string; value: unknown } | undefined {
  for (const name of names) {
    const value = record[name];
    if (value !== undefined && value !== null) return { name, value };
  }
  return undefined;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function textField(record: Fields, names: readonly string[], plusIsSpace = false): string | undefined {
  const found = first(record, names);
  const value = text(found?.value);
  if (value === undefined || !found || !URL_ENCODED.has(found.name)) return value;
  return percentDecodeText(plusIsSpace ? value.replace(/\+/g, ' ') : value);
}

/**
 * The view a structured record describes (a parsed JSON line, or W3C columns by name with `-`
 * dropped); `spaces` says W3C columns were space-separated (IIS), which writes spaces as `+`.
 */
export function viewOfRecord(value: unknown, spaces = false): LineView | { skip: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { skip: 'not a JSON object' };
  const record = value as Fields;
  if (typeof record.proxy === 'object' && record.proxy !== null) return vercelView(record);
  if (typeof record.deploymentId === 'string' && typeof record.source === 'string')
    return { skip: 'Vercel log of no request (build or function output)' };
  if (typeof record.log_type === 'string' && record.log_type !== 'traffic')
    return { skip: `Netlify ${record.log_type} log, not traffic` };

  const when = timeOf(record);
  if ('skip' in when) return when;
  const status = first(record, NAMES.status)?.value;
  let method = text(first(record, NAMES.method)?.value);
  const path = text(first(record, NAMES.path)?.value);
  // Fastly's `request` is the method; other JSON formats put the whole request line there.
  const request = text(record.request);
  const requestLine = request?.includes(' ') ? request : undefined;
  if (method === undefined && request !== undefined && requestLine === undefined) method = request;
  return toView({
    time: when.time,
    timestamp: when.timestamp,
    ip: text(first(record, NAMES.ip)?.value),
    // A path with a method (GET when not logged), or else the request line to split.
    request: path ?? requestLine,
    method: path === undefined && requestLine !== undefined ? undefined : (method ?? 'GET'),
    status: statusOf(status),
    referrer: textField(record, NAMES.referrer, spaces),
    userAgent: textField(record, NAMES.userAgent, spaces) ?? '',
    accept: text(first(record, NAMES.accept)?.value) ?? headerOf(record.RequestHeaders, 'accept'),
    contentType: text(first(record, NAMES.contentType)?.value),
  });
}

function vercelView(record: Fields): LineView | { skip: string } {
  const proxy = record.proxy as Fields;
  const rawTime = proxy.timestamp ?? record.timestamp;
  const timestamp = epoch(rawTime);
  if (timestamp === null) return { skip: 'unreadable timestamp (proxy.timestamp)' };
  // The user agent is an array of the request's User-Agent headers (a string in older drains).
  const agents = Array.isArray(proxy.userAgent) ? proxy.userAgent.filter((a) => typeof a === 'string') : [];
  return toView({
    time: String(Math.floor(timestamp / 1000)),
    timestamp,
    ip: text(proxy.clientIp),
    request: text(proxy.path),
    method: text(proxy.method) ?? 'GET',
    status: statusOf(proxy.statusCode),
    referrer: text(proxy.referer),
    userAgent: text(proxy.userAgent) ?? agents[0] ?? '',
  });
}

/** A header from a map of logged request headers (Cloudflare's `RequestHeaders`). */
function headerOf(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && typeof value === 'string') return value;
  }
  return undefined;
}

function statusOf(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return Number(value);
  return 200; // exports that log only what was served leave the status out
}

/**
 * The time of a record: CloudFront's separate `date` and `time` (UTC), or the first time field,
 * an ISO 8601 date-time (read as UTC when it has no offset, as CDNs write it) or epoch seconds,
 * milliseconds or nanoseconds.
 */
function timeOf(record: Fields): { time: string; timestamp: number } | { skip: string } {
  const date = text(record.date);
  const clock = text(record.time);
  if (date !== undefined && clock !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(date)) {
    const timestamp = parseDateTime(`${date}T${clock}Z`);
    return timestamp === null
      ? { skip: 'unreadable timestamp (date and time)' }
      : { time: `${date} ${clock}`, timestamp };
  }
  const found = first(record, NAMES.time);
  if (!found) return { skip: 'no timestamp field (timestamp, time, date and time, EdgeStartTimestamp…)' };
  const timestamp = epoch(found.value);
  return timestamp === null
    ? { skip: `unreadable timestamp (${found.name})` }
    : { time: String(found.value), timestamp };
}

/** Epoch milliseconds from an ISO 8601 string or a number of seconds, ms or ns. */
function epoch(value: unknown): number | null {
  if (typeof value === 'string') {
    if (/^\d+(\.\d+)?$/.test(value)) return epoch(Number(value));
    return (
      parseDateTime(value) ??
      (/[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value) ? parseDateTime(`${value}Z`) : null)
    );
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  if (value > 1e17) return Math.floor(value / 1e6); // nanoseconds
  if (value > 1e11) return Math.floor(value); // milliseconds
  return Math.floor(value * 1000); // seconds
}

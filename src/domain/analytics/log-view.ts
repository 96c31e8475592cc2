import type { IncomingEvent } from './ingest.ts';

/** One view a line records, with the second it happened in (as the line writes it). */
export interface LineView {
  event: IncomingEvent;
  time: string;
}

/** What a log line says about a request, whatever the format. */
export interface RawView {
  /** The second of the request as the line writes it (identical lines are counted per second). */
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
  /** The response's content type, when the log records it. */
  contentType?: string | undefined;
}

/**
 * The view a request makes, or why it is none before any page rule: only successful (2xx, 304)
 * GETs with a client address count. Which paths are pages is the project's page-view rules'
 * call, in the ingestion pipeline.
 */
export function toView(raw: RawView): LineView | { skip: string } {
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
      contentType: raw.contentType,
    },
  };
}

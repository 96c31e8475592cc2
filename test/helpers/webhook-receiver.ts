import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  path: string;
  headers: IncomingMessage['headers'];
  /** The raw body, as signed. */
  body: string;
  json: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
  /** Whether Docwright-Signature verified (any v1) with a secret held and a timestamp under 5 minutes old. */
  verified: boolean;
  /** The secrets held whose signature the delivery carries, in the order held. */
  signedWith: string[];
  /** How many v1 values the header had. */
  v1Count: number;
  /** The status the receiver answered. */
  answered: number;
}

/**
 * A webhook receiver for tests: a real HTTP server that verifies every delivery's signature
 * as docs/webhooks.md tells receivers to, and answers what `answer` says (200 by default).
 */
export async function startWebhookReceiver(
  options: {
    answer?: (delivery: Omit<ReceivedDelivery, 'answered'>, received: ReceivedDelivery[]) => number;
    headers?: (path: string) => Record<string, string>;
    /** The receiver's clock in ms, for the timestamp check (a test that moves Docwright's clock moves it too). */
    now?: () => number;
  } = {},
) {
  const received: ReceivedDelivery[] = [];
  let secrets: string[] = [];
  const now = options.now ?? Date.now;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const delivery = {
        path: req.url ?? '/',
        headers: req.headers,
        body,
        json: JSON.parse(body || '{}') as ReceivedDelivery['json'],
        ...verify(secrets, body, req.headers['docwright-signature'], now()),
      };
      const status = options.answer?.(delivery, received) ?? 200;
      received.push({ ...delivery, answered: status });
      res.writeHead(status, options.headers?.(delivery.path) ?? {});
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    /** The secrets deliveries are verified with (from the endpoint's creation or rotation). */
    verifyWith(...values: string[]) {
      secrets = values;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The check docs/webhooks.md shows: HMAC-SHA256 of "<t>.<body>" equal to any of the v1
 * values (there are two during a secret rotation's overlap), and t within 5 minutes.
 */
function verify(
  secrets: string[],
  body: string,
  header: string | string[] | undefined,
  nowMs: number,
): { verified: boolean; signedWith: string[]; v1Count: number } {
  const none = { verified: false, signedWith: [], v1Count: 0 };
  if (typeof header !== 'string') return none;
  const parts = header.split(',').map((p) => p.split('=', 2) as [string, string]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  const v1s = parts.filter(([k]) => k === 'v1').map(([, v]) => Buffer.from(v ?? '', 'hex'));
  if (!Number.isInteger(t) || Math.abs(nowMs / 1000 - t) > 300) return { ...none, v1Count: v1s.length };
  const signedWith = secrets.filter((secret) => {
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
    return v1s.some((given) => given.length === expected.length && timingSafeEqual(given, expected));
  });
  return { verified: signedWith.length > 0, signedWith, v1Count: v1s.length };
}

/** Polls `check` until it returns a value other than undefined, or fails after `ms`. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Shapes of the API's answers, as the tests read them. */
export interface JobBody {
  id: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  failureReason: string | null;
  prLink: string | null;
}
export interface EndpointBody {
  id: string;
  url: string;
  events: string[];
  secret: string;
  enabled: boolean;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string | null;
}
export interface DeliveryBody {
  id: string;
  eventId: string;
  type: string;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastResponseCode: number | null;
  lastError: string | null;
}

/** A response's JSON body, typed as the test expects it. */
export async function json<T>(response: Response | Promise<Response>): Promise<T> {
  return (await (await response).json()) as T;
}

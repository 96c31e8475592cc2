// A preparation thread (see preparation-pool.ts): parses ingestion request bodies and prepares
// their events (validation, classification, visitor keys) off the thread that serves HTTP and
// stores views. Salts come from that thread, which alone talks to the database.
import { parentPort, workerData } from 'node:worker_threads';
import { CrawlerRanges } from './crawler-ranges.ts';
import { VisitorIdentity } from './identity.ts';
import { EventPreparer } from './ingest.ts';
import type { PoolReply, PoolRequest, PreparationThreadData } from './preparation-messages.ts';
import { encodePreparedBatch } from './prepared-batch.ts';

const port = parentPort;
if (!port) throw new Error('preparation-worker.ts runs as a worker thread');
const data = workerData as PreparationThreadData;

const waitingSalts = new Map<string, { resolve: (salt: Buffer) => void; reject: (error: Error) => void }[]>();
const identity = new VisitorIdentity({
  rotation: data.rotation,
  cacheLimit: data.identityCacheLimit,
  // Asked once per period: the identity keeps what it loaded until told to forget it.
  salts: {
    salt: (period) =>
      new Promise<Buffer>((resolve, reject) => {
        const waiting = waitingSalts.get(period);
        if (waiting) {
          waiting.push({ resolve, reject });
          return;
        }
        waitingSalts.set(period, [{ resolve, reject }]);
        post({ kind: 'salt', period });
      }),
  },
});
const preparer = new EventPreparer(identity, new CrawlerRanges(data.crawlerRanges));

function post(reply: PoolReply, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(reply, transfer);
}

port.on('message', (message: PoolRequest) => {
  switch (message.kind) {
    case 'prepare':
      void prepare(message);
      return;
    case 'salt': {
      const waiting = waitingSalts.get(message.period) ?? [];
      waitingSalts.delete(message.period);
      for (const w of waiting) {
        if (message.salt) w.resolve(Buffer.from(message.salt));
        else w.reject(new Error(`no salt for period ${message.period}`));
      }
      return;
    }
    case 'forget':
      identity.forget(message.periods);
      return;
    case 'ranges':
      preparer.setCrawlerRanges(new CrawlerRanges(message.crawlerRanges));
      return;
  }
});

// The keys Fastify's JSON parser refuses (secure-json-parse's tests, escapes included): a body
// holding one goes back to the HTTP layer, which fails it as it fails any other body.
const SUSPECT_PROTO =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const SUSPECT_CONSTRUCTOR =
  /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;

/**
 * False when neither pattern above can match: no escape sequence `\u`, no `__proto__` and no
 * `uctor` (the tail of `constructor`). V8 finds a short pattern by scanning for its first
 * character, rare here for `\`, `_` and `u`: a body of 1,000 events takes ~0.015 ms, where the
 * two regular expressions take ~0.1 ms, and so does `includes('constructor')` (`c` is everywhere).
 */
function mayHoldForbiddenKey(text: string): boolean {
  return text.includes('\\u') || text.includes('__proto__') || text.includes('uctor');
}

async function prepare(job: Extract<PoolRequest, { kind: 'prepare' }>): Promise<void> {
  let events: unknown[];
  // Decoded as Fastify decodes a body (invalid sequences become U+FFFD).
  const text = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength).toString('utf8');
  if (mayHoldForbiddenKey(text) && (SUSPECT_PROTO.test(text) || SUSPECT_CONSTRUCTOR.test(text))) {
    post({ kind: 'unparsed', id: job.id });
    return;
  }
  try {
    const body: unknown = JSON.parse(text);
    // Only the plain shape is prepared here; anything else is answered by the HTTP layer's
    // own parsing and validation, so its errors read exactly as on every other route.
    if (!isEventsBody(body, job.maxBatch)) {
      post({ kind: 'unparsed', id: job.id });
      return;
    }
    events = body.events;
  } catch {
    post({ kind: 'unparsed', id: job.id });
    return;
  }
  try {
    const { prepared, rejected } = await preparer.prepare(job.projectId, events, job.settings, job.now);
    const { batch, transfer } = encodePreparedBatch(prepared, rejected);
    post({ kind: 'prepared', id: job.id, batch }, transfer);
  } catch (error) {
    post({ kind: 'failed', id: job.id, message: error instanceof Error ? error.message : String(error) });
  }
}

function isEventsBody(body: unknown, maxBatch: number): body is { events: unknown[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  let fields = 0;
  for (const field in body) {
    if (field !== 'events') return false;
    fields++;
  }
  const events = (body as { events?: unknown }).events;
  return fields === 1 && Array.isArray(events) && events.length <= maxBatch;
}

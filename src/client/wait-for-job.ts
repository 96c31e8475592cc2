import { EventSourceParserStream } from 'eventsource-parser/stream';
import { DocwrightApiError } from './api-error.ts';
import type { components } from './openapi-types.ts';
import { sleep } from './sleep.ts';

type Job = components['schemas']['Job'];

export interface WaitOptions {
  /** Give up after this many milliseconds (default 10 minutes) with a DocwrightTimeoutError. */
  timeout?: number;
  /** Between two polls of the job, when polling (default 1000). */
  pollIntervalMs?: number;
  /** false: poll the job only, never open its event stream. */
  events?: boolean;
  /** Stops waiting (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
}

/** The job did not finish within the timeout; `job` is how it was when last seen. */
export class DocwrightTimeoutError extends Error {
  constructor(jobId: string, timeoutMs: number) {
    super(`Job ${jobId} did not finish within ${timeoutMs} ms`);
    this.name = 'DocwrightTimeoutError';
  }
}

/** How waitForJob reaches the job: its current state, and its event stream. */
export interface JobSource {
  jobId: string;
  getJob(signal: AbortSignal): Promise<Job>;
  /** GET …/job/{id}/events, resuming after `lastEventId` when given. */
  openEvents(lastEventId: string | null, signal: AbortSignal): Promise<Response>;
}

const FINISHED: ReadonlySet<string> = new Set(['completed', 'failed', 'archived']);
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

export async function waitForJob(source: JobSource, options: WaitOptions = {}): Promise<Job> {
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeout);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  try {
    if (options.events !== false) {
      const job = await followEvents(source, signal);
      if (job) return job;
    }
    return await poll(source, signal, options.pollIntervalMs ?? 1000);
  } catch (error) {
    if (deadline.aborted && !options.signal?.aborted) throw new DocwrightTimeoutError(source.jobId, timeout);
    throw error;
  }
}

/**
 * Follows the job's Server-Sent Events until a status event shows it finished, resuming after
 * the last event id when a stream ends (the server ends each after a while). Null when the
 * server has no stream to give (an older server, a proxy that buffers it): then poll.
 */
async function followEvents(source: JobSource, signal: AbortSignal): Promise<Job | null> {
  let lastEventId: string | null = null;
  // A stream opened afresh starts with the job as it is now (id 0), then replays all its events:
  // a status older than that one (a turn finished before a follow-up) is history, not the answer.
  let now = 0;
  for (;;) {
    let response: Response;
    try {
      response = await source.openEvents(lastEventId, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      return null;
    }
    // A finished job resumed after its last event: nothing more will come.
    if (response.status === 204) return source.getJob(signal);
    const type = response.headers.get('content-type') ?? '';
    if (response.status !== 200 || !type.startsWith('text/event-stream') || !response.body) {
      await response.body?.cancel();
      return null;
    }
    let events = 0;
    const reader = response.body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream())
      .getReader();
    try {
      for (;;) {
        const { done, value: event } = await reader.read();
        if (done) break;
        events++;
        if (event.id !== undefined) lastEventId = event.id;
        if (event.event !== 'status') continue;
        const job = JSON.parse(event.data) as Job;
        const at = Date.parse(job.updatedAt);
        if (event.id === '0') now = at;
        if (FINISHED.has(job.status) && at >= now) return job;
      }
    } catch (error) {
      if (signal.aborted) throw error;
      // The connection broke: resume from the last event, as EventSource would.
    } finally {
      // Ends the request whatever happened, so the connection does not linger.
      reader.cancel().catch(() => {});
    }
    // A stream that ended without a single event is not one to keep reopening.
    if (events === 0) return null;
  }
}

/**
 * Reads the job until it finished. An answer that says "not now" (429, 502–504: rate limited,
 * storage restarting, a proxy without a server) waits its Retry-After, or the interval, and
 * reads again: waiting is what the caller asked for, until the timeout.
 */
async function poll(source: JobSource, signal: AbortSignal, intervalMs: number): Promise<Job> {
  for (;;) {
    let wait = intervalMs;
    try {
      const job = await source.getJob(signal);
      if (FINISHED.has(job.status)) return job;
    } catch (error) {
      if (!(error instanceof DocwrightApiError) || !error.transient) throw error;
      if (error.retryAfterSeconds !== undefined) wait = error.retryAfterSeconds * 1000;
    }
    await sleep(wait, signal);
  }
}

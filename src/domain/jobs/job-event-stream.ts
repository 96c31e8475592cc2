import type { Executor } from '../../storage/queries/executor.ts';
import { type JobEventRecord, listJobEventsAfter } from '../../storage/queries/job-events.ts';
import type { JobRow } from '../../storage/schema.ts';
import type { JobEventFeed } from './job-event-feed.ts';
import type { JobEvent, JobEventType } from './job-events.ts';
import { type JobStatus, toJobView } from './job-view.ts';

/** Events read at once; a stream catching up reads page after page before it waits. */
const PAGE = 200;

/** A job in one of these has no turn pending or running: its stream ends. */
const FINISHED: ReadonlySet<string> = new Set<JobStatus>(['completed', 'failed', 'archived']);

/**
 * A job's events, in batches, as they are written. Without `after`: first the job's current
 * status (as event 0, the position before any event, so resuming from it replays them all),
 * then every event of the job, then new ones as they come. With `after`: only the events
 * after it. It ends once the job is completed, failed or archived and every event up to that
 * status has been given; `null` means there is nothing left to give (a finished job resumed
 * after its last event). Aborting `signal` ends it at once.
 */
export async function openJobEventStream(
  db: Executor,
  feed: JobEventFeed,
  job: JobRow,
  after: number | null,
  signal: AbortSignal,
): Promise<AsyncGenerator<JobEvent[]> | null> {
  // Read the job before its events: a status event read below is never older than `job`.
  let finished = FINISHED.has(job.status);
  let position = after ?? 0;
  const first = await listJobEventsAfter(db, job.id, position, PAGE);
  if (after !== null && first.length === 0 && finished) return null;

  const fetchPage = () => listJobEventsAfter(db, job.id, position, PAGE);

  return (async function* stream(): AsyncGenerator<JobEvent[]> {
    if (after === null) yield [{ id: 0, type: 'status', data: JSON.stringify(toJobView(job)) }];
    let page = first;
    while (!signal.aborted) {
      if (page.length > 0) {
        for (const record of page) {
          if (record.type === 'status') finished = FINISHED.has(statusOf(record));
        }
        position = page.at(-1)?.id ?? position;
        yield page.map(toJobEvent);
      }
      if (page.length === PAGE) {
        page = await fetchPage();
        continue;
      }
      if (finished) return;
      // Armed before reading, so an event committed after the read still wakes it.
      const wake = feed.arm(job.id, position);
      try {
        page = await fetchPage();
        if (page.length === 0) {
          await wake.wait(signal);
          if (signal.aborted || feed.closed) return;
          page = await fetchPage();
        }
      } finally {
        wake.cancel();
      }
    }
  })();
}

function statusOf(record: JobEventRecord): string {
  return (JSON.parse(record.data) as { status: string }).status;
}

function toJobEvent(record: JobEventRecord): JobEvent {
  return { id: record.id, type: record.type as JobEventType, data: record.data };
}

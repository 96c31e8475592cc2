/**
 * Follows a job as it happens: the job's Server-Sent Events stream (EventSource, which resumes
 * after the last event it saw by sending Last-Event-ID when it reconnects), and polling when the
 * stream cannot be had (a proxy that buffers or refuses it, a server without it).
 *
 * A `status` event carries the whole job and is put on screen at once; turns, messages and the
 * pull request are read again from the API (a stored message is the record), a step of the
 * running turn is shown from the event until the turn's messages replace it, and so is each
 * update of its plan until the turn's stored plan does.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import {
  isLive,
  type Job,
  jobEventsUrl,
  jobKeys,
  type Message,
  type PlanEvent,
  type Step,
  type TurnEvent,
} from './job-api.ts';

/** live: the stream is open; polling: it failed, the page asks every few seconds; idle: nothing to follow. */
export type Connection = 'connecting' | 'live' | 'polling' | 'idle';

/** How often the page asks for the job while the stream is down. */
export const POLL_MS = 2000;
/** Errors in a row, without the stream opening in between, before the page polls instead. */
const ERRORS_BEFORE_POLLING = 2;
/** Messages and turns come in bursts (a turn's end): one refetch for a burst. */
const REFETCH_DELAY_MS = 150;

export interface LiveJob {
  connection: Connection;
  /** The running turns' steps, as they happen, in order. */
  steps: { id: number; step: Step }[];
  /** Each update of the running turns' plans, in order (a turn put back or cancelled loses its). */
  plans: { id: number; plan: PlanEvent }[];
}

export function useJobLive(projectId: string, jobId: string, job: Job | undefined): LiveJob {
  const queryClient = useQueryClient();
  const [connection, setConnection] = useState<Connection>('idle');
  const [steps, setSteps] = useState<LiveJob['steps']>([]);
  const [plans, setPlans] = useState<LiveJob['plans']>([]);
  const source = useRef<EventSource | null>(null);
  const lastId = useRef<number | null>(null);
  const latestJob = useRef(job);
  latestJob.current = job;
  const liveNow = job !== undefined && isLive(job);

  const refetchSoon = useDebounced(() => {
    void queryClient.invalidateQueries({ queryKey: jobKeys.conversation(projectId, jobId) });
  }, REFETCH_DELAY_MS);

  // A new job: nothing of the last one's stream carries over.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the job shown changes
  useEffect(() => {
    lastId.current = null;
    setSteps([]);
    setPlans([]);
    setConnection('idle');
    return () => {
      source.current?.close();
      source.current = null;
    };
  }, [projectId, jobId]);

  // A job that just finished: its conversation and changes are read once more, whichever way
  // (stream or polling) the page learnt of it, so the last turn's end is on screen.
  const wasLive = useRef(liveNow);
  useEffect(() => {
    if (wasLive.current && !liveNow) {
      refetchSoon();
      void queryClient.invalidateQueries({ queryKey: jobKeys.changes(projectId, jobId) });
    }
    wasLive.current = liveNow;
  }, [liveNow, projectId, jobId, queryClient, refetchSoon]);

  useEffect(() => {
    if (!liveNow || source.current) return;
    const events = new EventSource(jobEventsUrl(projectId, jobId, lastId.current));
    source.current = events;
    let errors = 0;
    setConnection('connecting');

    const stop = (next: Connection) => {
      events.close();
      if (source.current === events) source.current = null;
      setConnection(next);
    };
    const remember = (event: MessageEvent) => {
      const id = Number(event.lastEventId);
      if (event.lastEventId !== '' && Number.isSafeInteger(id)) lastId.current = id;
    };
    const on = (type: string, handle: (data: never, event: MessageEvent) => void) =>
      events.addEventListener(type, (event) => {
        const message = event as MessageEvent<string>;
        remember(message);
        let data: unknown;
        try {
          data = JSON.parse(message.data);
        } catch {
          return;
        }
        handle(data as never, message);
      });

    events.onopen = () => {
      errors = 0;
      setConnection('live');
      // Whatever happened while the stream was down is read once, then followed.
      refetchSoon();
    };
    events.onerror = () => {
      const current = latestJob.current;
      // The server ends the stream once the job is finished; EventSource would only be told 204.
      if (current && !isLive(current)) {
        stop('idle');
        refetchSoon();
        return;
      }
      if (events.readyState === EventSource.CLOSED) {
        stop('polling');
        return;
      }
      errors += 1;
      if (errors >= ERRORS_BEFORE_POLLING) setConnection('polling');
    };

    on('status', (data: Job) => {
      const before = queryClient.getQueryData<Job>(jobKeys.job(projectId, jobId));
      queryClient.setQueryData(jobKeys.job(projectId, jobId), data);
      if (before?.status !== data.status) {
        void queryClient.invalidateQueries({ queryKey: jobKeys.lists(projectId) });
      }
      if (before?.prLink !== data.prLink || !isLive(data)) {
        void queryClient.invalidateQueries({ queryKey: jobKeys.changes(projectId, jobId) });
      }
    });
    on('turn', (data: TurnEvent) => {
      if (data.status !== 'running') setSteps((all) => all.filter((s) => s.step.turn !== data.turn));
      // An attempt put back (it starts again) or cancelled stores no plan: its plan is void.
      if (data.status === 'pending' || data.status === 'cancelled') {
        setPlans((all) => all.filter((p) => p.plan.turn !== data.turn));
      }
      refetchSoon();
    });
    on('message', (data: Message) => {
      // The turn's stored messages replace what its steps showed.
      if (data.role !== 'user') setSteps((all) => all.filter((s) => s.step.turn !== data.turn));
      refetchSoon();
    });
    on('step', (data: Step, event) => {
      const id = Number(event.lastEventId);
      setSteps((all) => (all.some((s) => s.id === id) ? all : [...all, { id, step: data }]));
    });
    on('plan', (data: PlanEvent, event) => {
      const id = Number(event.lastEventId);
      setPlans((all) => (all.some((p) => p.id === id) ? all : [...all, { id, plan: data }]));
    });
    on('pull_request', (data: { prLink: string }) => {
      queryClient.setQueryData<Job>(jobKeys.job(projectId, jobId), (old) =>
        old ? { ...old, prLink: data.prLink } : old,
      );
      void queryClient.invalidateQueries({ queryKey: jobKeys.changes(projectId, jobId) });
    });
  }, [liveNow, projectId, jobId, queryClient, refetchSoon]);

  return { connection, steps, plans };
}

/** A stable function that runs `call` once, `delayMs` after the last of a burst of calls. */
function useDebounced(call: () => void, delayMs: number): () => void {
  const latest = useRef(call);
  latest.current = call;
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  return useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      timer.current = null;
      latest.current();
    }, delayMs);
  }, [delayMs]);
}

import type { Storage } from '../../storage/database.ts';
import type { Executor } from '../../storage/queries/executor.ts';
import { insertJobEvents, notifyJobEvents } from '../../storage/queries/job-events.ts';
import type { JobRow, MessageRow, NewJobEventRow, TurnRow } from '../../storage/schema.ts';
import type { WebhookEventType } from '../webhooks/event-types.ts';
import { enqueueWebhookEvents, type WebhookEvent } from '../webhooks/outbox.ts';
import {
  type AgentMessage,
  type ConversationMessage,
  type TurnView,
  toConversationMessage,
  toTurnView,
} from './conversation.ts';
import { type JobView, toJobView } from './job-view.ts';
import type { PlanItem } from './plan.ts';

export const JOB_EVENT_TYPES = ['status', 'turn', 'message', 'step', 'plan', 'pull_request'] as const;
export type JobEventType = (typeof JOB_EVENT_TYPES)[number];

/** What happened to a turn: queued, started, finished (succeeded or failed), put back. */
export const TURN_CHANGES = [
  'queued',
  'started',
  'succeeded',
  'failed',
  'retrying',
  'released',
  'cancelled',
] as const;
export type TurnChange = (typeof TURN_CHANGES)[number];

/** The payload of each event type, as the event stream sends it (JSON in `data:`). */
export interface JobEventData {
  /** The job as `GET …/job/{id}` returns it, after the change. */
  status: JobView;
  /** The turn as in `GET …/messages`, and what just happened to it. */
  turn: TurnView & { change: TurnChange };
  /** A stored conversation message, as in `GET …/messages`. */
  message: ConversationMessage;
  /** What the agent said or did in the running turn, as it happens (not stored as a message until the turn ends). */
  step: JobStep;
  /** The agent's plan for the running turn, whole, each time it sets it (only the last is stored, as a `plan` message). */
  plan: JobPlanUpdate;
  pull_request: { prLink: string };
}

export interface JobStep {
  turn: number;
  role: Exclude<AgentMessage['role'], 'plan'>;
  text: string | null;
  tool: { name: string; input: unknown; output: string } | null;
  createdAt: string;
}

export interface JobPlanUpdate {
  turn: number;
  items: PlanItem[];
  createdAt: string;
}

/** An event as read back: its id orders a job's events; `data` is JSON text. */
export interface JobEvent {
  id: number;
  type: JobEventType;
  data: string;
}

/** The job events that webhooks announce, and the data each carries. */
export type JobWebhookType = Extract<WebhookEventType, `job.${string}`>;

/**
 * Collects the events of one transaction; `JobEventLog.transaction` writes them before it
 * commits. Each method takes the job row as it is after the change.
 */
export class JobEventRecorder {
  readonly rows: NewJobEventRow[] = [];
  /** What the project's webhook endpoints are told, written to the outbox in the same transaction. */
  readonly webhooks: WebhookEvent[] = [];
  private readonly at: string;
  constructor(at: string) {
    this.at = at;
  }

  status(job: JobRow): void {
    this.add(job, 'status', toJobView(job));
  }

  turn(job: JobRow, change: TurnChange, turn: TurnRow): void {
    this.add(job, 'turn', { change, ...toTurnView(turn) });
  }

  message(job: JobRow, turnSeq: number, message: MessageRow): void {
    this.add(job, 'message', toConversationMessage(message, turnSeq));
  }

  pullRequest(job: JobRow, prLink: string): void {
    this.add(job, 'pull_request', { prLink });
  }

  /** Any other webhook event that must commit with this change (an automation's run completed). */
  webhook(event: WebhookEvent): void {
    this.webhooks.push(event);
  }

  step(job: Pick<JobRow, 'id' | 'project_id'>, step: JobStep): void {
    this.add(job, 'step', step);
  }

  plan(job: Pick<JobRow, 'id' | 'project_id'>, update: JobPlanUpdate): void {
    this.add(job, 'plan', update);
  }

  /** A webhook event about the job (created, completed, failed, archived, pull request opened). */
  announce(job: JobRow, type: JobWebhookType): void {
    this.webhooks.push({ projectId: job.project_id, type, data: { job: toJobView(job) } });
  }

  private add<T extends JobEventType>(
    job: Pick<JobRow, 'id' | 'project_id'>,
    type: T,
    data: JobEventData[T],
  ): void {
    this.rows.push({
      job_id: job.id,
      project_id: job.project_id,
      type,
      data: JSON.stringify(data),
      created_at: this.at,
    });
  }
}

/**
 * Told, inside the transaction, of each turn that ended (succeeded, failed, or cancelled by
 * archiving), with the job as it is after the change; what it writes commits with it.
 * Automations follow their runs with it (src/domain/automations/run-settlement.ts).
 */
export type TurnEndedHook = (
  tx: Executor,
  events: JobEventRecorder,
  job: JobRow,
  turn: TurnRow,
) => Promise<void>;

/**
 * Where job changes are written with their events: one transaction for the change, its
 * events and its webhook deliveries (the outbox), a `pg_notify` in it for streams in other processes, and, once it committed, a signal
 * to the streams of this process.
 */
export class JobEventLog {
  readonly storage: Storage;
  private readonly listeners = new Set<(jobIds: ReadonlySet<string>) => void>();
  private readonly turnEndedHooks: TurnEndedHook[] = [];

  constructor(storage: Storage) {
    this.storage = storage;
  }

  async transaction<T>(at: string, work: (tx: Executor, events: JobEventRecorder) => Promise<T>): Promise<T> {
    const events = new JobEventRecorder(at);
    const result = await this.storage.db.transaction().execute(async (tx) => {
      const value = await work(tx, events);
      await insertJobEvents(tx, events.rows);
      await enqueueWebhookEvents(tx, events.webhooks, at);
      if (this.storage.dialect === 'postgres') {
        for (const jobId of new Set(events.rows.map((r) => r.job_id))) await notifyJobEvents(tx, jobId);
      }
      return value;
    });
    if (events.rows.length > 0) {
      const jobIds = new Set(events.rows.map((r) => r.job_id));
      for (const listener of this.listeners) listener(jobIds);
    }
    return result;
  }

  /** Adds a hook told of every turn that ends, in its transaction. */
  onTurnEnded(hook: TurnEndedHook): void {
    this.turnEndedHooks.push(hook);
  }

  /** Runs the turn-ended hooks; called by the lifecycle steps that end a turn, inside their transaction. */
  async turnEnded(tx: Executor, events: JobEventRecorder, job: JobRow, turn: TurnRow): Promise<void> {
    for (const hook of this.turnEndedHooks) await hook(tx, events, job, turn);
  }

  /** Called after each commit that wrote events, with their jobs. */
  onCommit(listener: (jobIds: ReadonlySet<string>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

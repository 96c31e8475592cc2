import type { Storage } from '../../storage/database.ts';
import type { Executor } from '../../storage/queries/executor.ts';
import { findJob, type JobPageQuery, listJobs, updateJobIfStatus } from '../../storage/queries/jobs.ts';
import { findProject } from '../../storage/queries/projects.ts';
import { cancelOpenTurns, turnSummaries } from '../../storage/queries/turns.ts';
import type { JobRow } from '../../storage/schema.ts';
import { type Clock, iso } from '../clock.ts';
import { invalid, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { assertBudgetLeft } from '../projects/monthly-budget.ts';
import { type Project, projectModel, toProject } from '../projects/project.ts';
import { type ConversationMessage, type TurnView, toTurnView } from './conversation.ts';
import type { JobEventFeed } from './job-event-feed.ts';
import { openJobEventStream } from './job-event-stream.ts';
import type { JobEvent, JobEventLog } from './job-events.ts';
import { type JobStatus, type JobView, toJobView } from './job-view.ts';
import { loadConversation } from './lifecycle/load-conversation.ts';
import { queueTurn } from './lifecycle/queue-turn.ts';
import type { WorkSignal } from './work-signal.ts';

export interface JobPage {
  jobs: JobView[];
  nextCursor: string | null;
}

/** A job as the dashboard lists it: with its title (the first prompt, cut short) and its number of turns. */
export interface JobSummary extends JobView {
  title: string;
  turns: number;
}

export type JobListOptions = {
  status?: JobStatus | undefined;
  /** Case-insensitive text that one of the job's prompts contains. */
  q?: string | undefined;
  limit: number;
  cursor?: string | undefined;
};

const MAX_TITLE = 200;

export interface JobServiceDeps {
  storage: Storage;
  clock: Clock;
  /** The model used when the project names none; null when none is configured. */
  defaultModel: string | null;
  workSignal: WorkSignal;
  /** Writes job changes with their events. */
  events: JobEventLog;
  /** Wakes this process's event streams. */
  feed: JobEventFeed;
}

/**
 * Job lifecycle. Every state change happens in one transaction that starts by writing the
 * job row, which serialises it against the worker and against concurrent requests.
 */
export class JobService {
  private readonly deps: JobServiceDeps;
  constructor(deps: JobServiceDeps) {
    this.deps = deps;
  }

  /**
   * A new job with `prompt` as its first turn. `draft` decides whether its pull request opens
   * as a draft, over the project's setting (an automation's choice). Refused (`budget_spent`)
   * when the project's monthly budget is spent, so nothing is queued that would only fail; the
   * worker checks again when a turn starts.
   */
  async create(project: Project, prompt: string, options: { draft?: boolean } = {}): Promise<JobView> {
    const at = this.deps.clock();
    // Not atomic with the insert, on purpose: queueing spends nothing (the spend grows only when
    // a turn's usage is recorded), so two creations at once see the same total either way. The
    // bound is the worker's check when a turn starts (start-turn.ts), in that turn's transaction.
    await assertBudgetLeft(this.deps.storage.db, project, at);
    const now = iso(at);
    const job = await queueTurn(
      this.deps.events,
      { newJob: this.newJobRow(project, prompt, now, options) },
      prompt,
      now,
    );
    this.deps.workSignal.notify();
    return toJobView(job);
  }

  /** The row of a job not yet stored, for `queueTurnIn` in a caller's transaction (then call `notifyWorkers`). */
  newJobRow(project: Project, prompt: string, now: string, options: { draft?: boolean } = {}): JobRow {
    const id = newId('job');
    return {
      id,
      project_id: project.id,
      status: 'active',
      repository: project.repository,
      branch: branchName(id, prompt),
      base_branch: project.baseBranch,
      // The model it would run on now; each turn resolves it again when it starts.
      model: projectModel(project) ?? this.deps.defaultModel,
      pr_link: null,
      failure_reason: null,
      created_at: now,
      updated_at: now,
      archived_at: null,
      lease_owner: null,
      lease_expires_at: null,
      input_tokens: 0,
      output_tokens: 0,
      cost_usd: null,
      unpriced_turns: 0,
      draft: options.draft === undefined ? null : options.draft ? 1 : 0,
    };
  }

  /** Wakes this process's worker after turns were queued outside `create` and `message`. */
  notifyWorkers(): void {
    this.deps.workSignal.notify();
  }

  async get(projectId: string, jobId: string): Promise<JobView> {
    return toJobView(await this.find(this.deps.storage.db, projectId, jobId));
  }

  async list(projectId: string, options: JobListOptions): Promise<JobPage> {
    const query: JobPageQuery = {
      projectId,
      status: options.status,
      promptContains: options.q === undefined || options.q === '' ? undefined : options.q,
      limit: options.limit + 1,
      after: options.cursor === undefined ? undefined : decodeCursor(options.cursor),
    };
    const rows = await listJobs(this.deps.storage.db, query);
    const page = rows.slice(0, options.limit);
    const last = page.at(-1);
    return {
      jobs: page.map(toJobView),
      nextCursor: rows.length > options.limit && last ? encodeCursor(last) : null,
    };
  }

  /** A page of jobs as `list` gives it, each with its title and number of turns. */
  async listSummaries(
    projectId: string,
    options: JobListOptions,
  ): Promise<{ jobs: JobSummary[]; nextCursor: string | null }> {
    const page = await this.list(projectId, options);
    const summaries = await turnSummaries(
      this.deps.storage.db,
      page.jobs.map((j) => j.id),
    );
    return {
      jobs: page.jobs.map((job) => {
        const summary = summaries.get(job.id);
        return { ...job, title: titleOf(summary?.firstPrompt ?? ''), turns: summary?.turns ?? 0 };
      }),
      nextCursor: page.nextCursor,
    };
  }

  /**
   * A follow-up prompt: queued behind a running turn, or re-opens a finished job. Refused
   * (`budget_spent`) when the project's monthly budget is spent.
   */
  async message(projectId: string, jobId: string, prompt: string): Promise<JobView> {
    const at = this.deps.clock();
    const db = this.deps.storage.db;
    const project = await findProject(db, projectId);
    if (!project) throw notFound(`Job ${jobId} not found in project ${projectId}`);
    // An unknown job is a 404 before the budget is looked at.
    await this.find(db, projectId, jobId);
    await assertBudgetLeft(db, toProject(project), at);
    const job = await queueTurn(this.deps.events, { projectId, jobId }, prompt, iso(at));
    this.deps.workSignal.notify();
    return toJobView(job);
  }

  /** Stops pending and running turns and ends the job; archiving twice changes nothing. */
  async archive(projectId: string, jobId: string): Promise<JobView> {
    const now = iso(this.deps.clock());
    return this.deps.events.transaction(now, async (tx, events) => {
      const existing = await this.find(tx, projectId, jobId);
      const archived = await updateJobIfStatus(tx, existing.id, ['active', 'completed', 'failed'], {
        status: 'archived',
        archived_at: now,
        updated_at: now,
        lease_owner: null,
        lease_expires_at: null,
      });
      if (!archived) return toJobView(await this.find(tx, projectId, jobId));
      for (const turn of await cancelOpenTurns(tx, jobId, now)) {
        events.turn(archived, 'cancelled', turn);
        await this.deps.events.turnEnded(tx, events, archived, turn);
      }
      events.status(archived);
      events.announce(archived, 'job.archived');
      return toJobView(archived);
    });
  }

  /**
   * The job's events as they are written (see `openJobEventStream`): after `after`, or its
   * current status then all of them. Null when a finished job is resumed after its last event.
   */
  async events(
    projectId: string,
    jobId: string,
    after: number | null,
    signal: AbortSignal,
  ): Promise<AsyncGenerator<JobEvent[]> | null> {
    const db = this.deps.storage.db;
    return openJobEventStream(db, this.deps.feed, await this.find(db, projectId, jobId), after, signal);
  }

  async conversation(
    projectId: string,
    jobId: string,
  ): Promise<{ turns: TurnView[]; messages: ConversationMessage[] }> {
    const db = this.deps.storage.db;
    await this.find(db, projectId, jobId);
    const { turns, messages } = await loadConversation(db, jobId);
    return { turns: turns.map(toTurnView), messages };
  }

  private async find(db: Executor, projectId: string, jobId: string): Promise<JobRow> {
    const row = await findJob(db, projectId, jobId);
    if (!row) throw notFound(`Job ${jobId} not found in project ${projectId}`);
    return row;
  }
}

/** A readable, unique branch: `docwright/<8 chars of the id>-<slug of the prompt>`. */
export function branchName(jobId: string, prompt: string): string {
  const slug = prompt
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .split('-')
    .filter(Boolean)
    .slice(0, 6)
    .join('-')
    .slice(0, 40)
    .replace(/-+$/, '');
  const short = jobId.replace(/^job_/, '').slice(0, 8);
  return `docwright/${short}${slug ? `-${slug}` : ''}`;
}

/** The first prompt on one line, cut at a word near MAX_TITLE characters. */
function titleOf(prompt: string): string {
  const flat = prompt.replace(/\s+/g, ' ').trim();
  if (flat.length <= MAX_TITLE) return flat;
  const cut = flat.slice(0, MAX_TITLE);
  const space = cut.lastIndexOf(' ');
  return `${space > MAX_TITLE / 2 ? cut.slice(0, space) : cut}…`;
}

function encodeCursor(row: JobRow): string {
  return Buffer.from(JSON.stringify([row.created_at, row.id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((v) => typeof v === 'string')) {
      return { createdAt: parsed[0] as string, id: parsed[1] as string };
    }
  } catch {
    // fall through to the error below
  }
  throw invalid('cursor is not a value returned as nextCursor by this endpoint');
}

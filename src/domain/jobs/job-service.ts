import type { Storage } from '../../storage/database.ts';
import type { Executor } from '../../storage/queries/executor.ts';
import {
  findJob,
  insertJob,
  type JobPageQuery,
  listJobs,
  updateJobIfStatus,
} from '../../storage/queries/jobs.ts';
import { insertMessages, listMessages, nextMessageSeq } from '../../storage/queries/messages.ts';
import { cancelOpenTurns, insertTurn, listTurns, nextTurnSeq } from '../../storage/queries/turns.ts';
import type { JobRow, ProjectRow } from '../../storage/schema.ts';
import { type Clock, iso } from '../clock.ts';
import { conflict, invalid, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { projectSettings } from '../projects/project-service.ts';
import type { WorkSignal } from '../runner/work-signal.ts';
import {
  type ConversationMessage,
  type StoredMessage,
  type TurnView,
  toConversationMessage,
  toTurnView,
} from './conversation.ts';
import { type JobStatus, type JobView, toJobView } from './job-view.ts';

export interface JobPage {
  jobs: JobView[];
  nextCursor: string | null;
}

export interface JobServiceDeps {
  storage: Storage;
  clock: Clock;
  /** The model used when the project names none; null when none is configured. */
  defaultModel: string | null;
  workSignal: WorkSignal;
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

  async create(project: ProjectRow, prompt: string): Promise<JobView> {
    const now = iso(this.deps.clock());
    const id = newId('job');
    const row: JobRow = {
      id,
      project_id: project.id,
      status: 'active',
      repository: project.repository,
      branch: branchName(id, prompt),
      base_branch: project.base_branch,
      model: projectSettings(project).model ?? this.deps.defaultModel,
      pr_link: null,
      failure_reason: null,
      created_at: now,
      updated_at: now,
      archived_at: null,
      lease_owner: null,
      lease_expires_at: null,
    };
    await this.deps.storage.db.transaction().execute(async (tx) => {
      await insertJob(tx, row);
      await this.queueTurn(tx, id, 1, prompt, now);
    });
    this.deps.workSignal.notify();
    return toJobView(row);
  }

  async get(projectId: string, jobId: string): Promise<JobView> {
    return toJobView(await this.find(this.deps.storage.db, projectId, jobId));
  }

  async list(
    projectId: string,
    options: { status?: JobStatus | undefined; limit: number; cursor?: string | undefined },
  ): Promise<JobPage> {
    const query: JobPageQuery = {
      projectId,
      status: options.status,
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

  /** A follow-up prompt: queued behind a running turn, or re-opens a finished job. */
  async message(projectId: string, jobId: string, prompt: string): Promise<JobView> {
    const now = iso(this.deps.clock());
    const job = await this.deps.storage.db.transaction().execute(async (tx) => {
      const existing = await this.find(tx, projectId, jobId);
      const updated = await updateJobIfStatus(tx, existing.id, ['active', 'completed', 'failed'], {
        status: 'active',
        failure_reason: null,
        updated_at: now,
      });
      if (!updated) throw conflict(`Job ${jobId} is archived; an archived job takes no more messages`);
      await this.queueTurn(tx, jobId, await nextTurnSeq(tx, jobId), prompt, now);
      return updated;
    });
    this.deps.workSignal.notify();
    return toJobView(job);
  }

  /** Stops pending and running turns and ends the job; archiving twice changes nothing. */
  async archive(projectId: string, jobId: string): Promise<JobView> {
    const now = iso(this.deps.clock());
    return this.deps.storage.db.transaction().execute(async (tx) => {
      const existing = await this.find(tx, projectId, jobId);
      const archived = await updateJobIfStatus(tx, existing.id, ['active', 'completed', 'failed'], {
        status: 'archived',
        archived_at: now,
        updated_at: now,
        lease_owner: null,
        lease_expires_at: null,
      });
      if (!archived) return toJobView(await this.find(tx, projectId, jobId));
      await cancelOpenTurns(tx, jobId, now);
      return toJobView(archived);
    });
  }

  async conversation(
    projectId: string,
    jobId: string,
  ): Promise<{ turns: TurnView[]; messages: ConversationMessage[] }> {
    const db = this.deps.storage.db;
    await this.find(db, projectId, jobId);
    const [turns, messages] = await Promise.all([listTurns(db, jobId), listMessages(db, jobId)]);
    const seqByTurn = new Map(turns.map((t) => [t.id, t.seq]));
    return {
      turns: turns.map(toTurnView),
      messages: messages.map((m) => toConversationMessage(m, seqByTurn.get(m.turn_id) ?? 0)),
    };
  }

  private async find(db: Executor, projectId: string, jobId: string): Promise<JobRow> {
    const row = await findJob(db, projectId, jobId);
    if (!row) throw notFound(`Job ${jobId} not found in project ${projectId}`);
    return row;
  }

  private async queueTurn(
    tx: Executor,
    jobId: string,
    seq: number,
    prompt: string,
    now: string,
  ): Promise<void> {
    const turnId = newId('turn');
    await insertTurn(tx, {
      id: turnId,
      job_id: jobId,
      seq,
      prompt,
      status: 'pending',
      attempts: 0,
      error: null,
      summary: null,
      usage: null,
      created_at: now,
      started_at: null,
      finished_at: null,
    });
    const content: StoredMessage = { role: 'user', text: prompt };
    await insertMessages(tx, [
      {
        id: newId('msg'),
        job_id: jobId,
        turn_id: turnId,
        seq: await nextMessageSeq(tx, jobId),
        role: 'user',
        content: JSON.stringify(content),
        created_at: now,
      },
    ]);
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

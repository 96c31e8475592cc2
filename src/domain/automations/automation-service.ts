import type { Storage } from '../../storage/database.ts';
import {
  type AutomationRunWithTurn,
  countStartedRunsSince,
  findAutomationRun,
  findAutomationRunByKey,
  findOpenRunJob,
  insertAutomationRunOnce,
  listAutomationRuns,
  updateAutomationRun,
} from '../../storage/queries/automation-runs.ts';
import { claimAutomationSlot } from '../../storage/queries/automation-slots.ts';
import {
  deleteAutomation,
  findAutomation,
  insertAutomation,
  listAutomations,
  listEnabledAutomations,
  swapAutomationSecret,
  updateAutomation,
} from '../../storage/queries/automations.ts';
import type { Executor } from '../../storage/queries/executor.ts';
import { findProject } from '../../storage/queries/projects.ts';
import type { AutomationRow, AutomationRunRow, AutomationUpdate } from '../../storage/schema.ts';
import type { SourcePullRequest } from '../agent/agent.ts';
import { type Clock, iso } from '../clock.ts';
import { conflict, DomainError, invalid, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import type { JobEventLog } from '../jobs/job-events.ts';
import type { JobService } from '../jobs/job-service.ts';
import { queueTurnIn } from '../jobs/lifecycle/queue-turn.ts';
import { toProject } from '../projects/project.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import {
  type Automation,
  type AutomationView,
  type CodeChangeTrigger,
  type SourceHost,
  storedTrigger,
  type TriggerKind,
  toAutomation,
  toAutomationView,
} from './automation.ts';
import { runPrompt } from './run-prompt.ts';
import { runCompletedEvent } from './run-settlement.ts';
import { type AutomationRunView, toRunView } from './run-view.ts';
import { parseTrigger, type TriggerInput } from './trigger-input.ts';
import {
  acceptedSecrets,
  newWebhookSecret,
  SECRET_ROTATION_OVERLAP_MS,
  webhookSecretContext,
} from './webhook-secrets.ts';

/** Automations one project may have. */
export const MAX_AUTOMATIONS_PER_PROJECT = 50;
export const DEFAULT_MAX_RUNS_PER_DAY = 500;
const MAX_RUNS_PER_DAY = 100_000;
const DAY_MS = 24 * 60 * 60_000;
/** What a run without a turn (refused, or not yet started) joins: nothing. */
const NO_TURN = { turn_status: null, turn_usage: null, turn_cost_usd: null, pr_link: null };

export interface AutomationInput {
  name: string;
  trigger: TriggerInput;
  instructions: string;
  draft?: boolean;
  maxRunsPerDay?: number;
  enabled?: boolean;
}

export type AutomationChange = Partial<AutomationInput>;

export interface CreatedAutomation extends AutomationView {
  /** A code-change trigger's webhook secret: returned once, at creation; stored only sealed. */
  webhookSecret?: string;
}

/** What starts a run. */
export interface RunTrigger {
  kind: TriggerKind;
  /**
   * Runs with the same key start once per automation: a webhook delivery id, a pull request
   * and merge commit, a schedule slot. Null: never deduplicated (a manual trigger).
   */
  dedupeKey: string | null;
  /** Extra context for the prompt: a pull request's title, description and diff summary. */
  context: string;
  /** The pull request that caused it; listed in the documentation pull request's description. */
  source?: SourcePullRequest;
  /** A schedule slot (ISO instant) this run claims; a slot already claimed starts nothing. */
  slotAt?: string;
}

/**
 * - started: a new job was created;
 * - followed_up: a turn was added to the job of an earlier run whose pull request is open;
 * - duplicate: a run with this dedupe key (or slot) exists already; it is returned, nothing started;
 * - rate_limited: over the daily limit; the run is recorded as such, no job.
 */
export type StartRunStatus = 'started' | 'followed_up' | 'duplicate' | 'rate_limited';

export interface StartedRun {
  run: AutomationRunView;
  jobId: string | null;
  status: StartRunStatus;
}

export interface AutomationServiceDeps {
  storage: Storage;
  clock: Clock;
  /** Seals code-change webhook secrets; null when DOCWRIGHT_SECRET_KEY is not set. */
  box: SecretBox | null;
  jobs: JobService;
  events: JobEventLog;
  /** DOCWRIGHT_PUBLIC_URL, for the hook URL shown with a code-change trigger. */
  publicUrl: string;
}

/** A project's automations, their runs, and the one way a run starts (`startRun`). */
export class AutomationService {
  private readonly deps: AutomationServiceDeps;
  constructor(deps: AutomationServiceDeps) {
    this.deps = deps;
  }

  async create(projectId: string, input: AutomationInput): Promise<CreatedAutomation> {
    const { db } = this.deps.storage;
    if (!(await findProject(db, projectId))) throw notFound(`Project ${projectId} not found`);
    const trigger = parseTrigger(input.trigger);
    const name = checkName(input.name);
    const instructions = checkInstructions(input.instructions);
    const maxRunsPerDay = checkMaxRuns(input.maxRunsPerDay ?? DEFAULT_MAX_RUNS_PER_DAY);
    if ((await listAutomations(db, projectId)).length >= MAX_AUTOMATIONS_PER_PROJECT) {
      throw conflict(`A project has at most ${MAX_AUTOMATIONS_PER_PROJECT} automations; delete one first`);
    }
    const id = newId('aut');
    let webhookSecret: string | undefined;
    let sealed: string | null = null;
    if (trigger.kind === 'code_change') {
      const { box } = this.deps;
      if (!box) {
        throw invalid(
          'Cannot create a code_change trigger: DOCWRIGHT_SECRET_KEY is not configured, and its webhook secret is stored encrypted with it. Set it (a passphrase of 16+ characters, or base64:<32 random bytes>) and restart.',
        );
      }
      webhookSecret = newWebhookSecret();
      sealed = box.seal(webhookSecret, webhookSecretContext(id));
    }
    const now = iso(this.deps.clock());
    const row: AutomationRow = {
      id,
      project_id: projectId,
      name,
      trigger_kind: trigger.kind,
      trigger: storedTrigger(trigger),
      webhook_secret: sealed,
      previous_webhook_secret: null,
      previous_webhook_secret_expires_at: null,
      instructions,
      draft: (input.draft ?? true) ? 1 : 0,
      max_runs_per_day: maxRunsPerDay,
      enabled: (input.enabled ?? true) ? 1 : 0,
      schedule_from: now,
      created_at: now,
      updated_at: now,
    };
    await insertAutomation(db, row);
    const view = this.view(toAutomation(row));
    return webhookSecret === undefined ? view : { ...view, webhookSecret };
  }

  async list(projectId: string): Promise<AutomationView[]> {
    return (await listAutomations(this.deps.storage.db, projectId)).map((row) =>
      this.view(toAutomation(row)),
    );
  }

  async get(projectId: string, id: string): Promise<AutomationView> {
    return this.view(await this.find(projectId, id));
  }

  /** The automation as the domain uses it (for `startRun`). */
  async find(projectId: string, id: string): Promise<Automation> {
    const row = await findAutomation(this.deps.storage.db, projectId, id);
    if (!row) throw missing(projectId, id);
    return toAutomation(row);
  }

  /**
   * Changes what is given. The trigger's kind cannot change; a new schedule runs from now on
   * (its earlier slots are not caught up), and a code-change trigger keeps its secret.
   */
  async update(projectId: string, id: string, change: AutomationChange): Promise<AutomationView> {
    const { db } = this.deps.storage;
    const existing = await this.find(projectId, id);
    const now = iso(this.deps.clock());
    const changes: AutomationUpdate = { updated_at: now };
    if (change.name !== undefined) changes.name = checkName(change.name);
    if (change.instructions !== undefined) changes.instructions = checkInstructions(change.instructions);
    if (change.draft !== undefined) changes.draft = change.draft ? 1 : 0;
    if (change.maxRunsPerDay !== undefined) changes.max_runs_per_day = checkMaxRuns(change.maxRunsPerDay);
    if (change.enabled !== undefined) {
      changes.enabled = change.enabled ? 1 : 0;
      // Re-enabled: slots missed while disabled are not caught up.
      if (change.enabled && !existing.enabled) changes.schedule_from = now;
    }
    if (change.trigger !== undefined) {
      const trigger = parseTrigger(change.trigger);
      if (trigger.kind !== existing.trigger.kind) {
        throw invalid(
          `trigger.kind cannot change (it is ${existing.trigger.kind}); create another automation instead`,
        );
      }
      changes.trigger = storedTrigger(trigger);
      if (changes.trigger !== storedTrigger(existing.trigger)) changes.schedule_from = now;
    }
    const row = await updateAutomation(db, projectId, id, changes);
    if (!row) throw missing(projectId, id);
    return this.view(toAutomation(row));
  }

  /**
   * Gives a code-change automation a new webhook secret, returned this once. The replaced one
   * is still accepted for SECRET_ROTATION_OVERLAP_MS, so deliveries the host signs before its
   * settings are changed are not refused. Two rotations at once both succeed, one after the
   * other: the secret each returned is accepted (the first as the previous one).
   */
  async rotateSecret(projectId: string, id: string): Promise<CreatedAutomation> {
    const { box } = this.deps;
    if (!box) {
      throw invalid(
        'Cannot rotate the secret: DOCWRIGHT_SECRET_KEY is not configured, and webhook secrets are stored encrypted with it.',
      );
    }
    for (;;) {
      const row = await findAutomation(this.deps.storage.db, projectId, id);
      if (!row) throw missing(projectId, id);
      if (row.trigger_kind !== 'code_change' || row.webhook_secret === null) {
        throw conflict(`Automation ${id} has no webhook secret: only a code_change trigger has one`);
      }
      const now = this.deps.clock();
      const webhookSecret = newWebhookSecret();
      const rotated = await swapAutomationSecret(this.deps.storage.db, projectId, id, row.webhook_secret, {
        webhook_secret: box.seal(webhookSecret, webhookSecretContext(id)),
        previous_webhook_secret: row.webhook_secret,
        previous_webhook_secret_expires_at: iso(new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS)),
        updated_at: iso(now),
      });
      if (rotated) return { ...this.view(toAutomation(rotated)), webhookSecret };
    }
  }

  /** Removes the automation with its runs; the jobs they started stay. */
  async delete(projectId: string, id: string): Promise<void> {
    if (!(await deleteAutomation(this.deps.storage.db, projectId, id))) throw missing(projectId, id);
  }

  /**
   * THE way a run starts (manual trigger, schedule slot, code-change webhook), in one
   * transaction:
   * 1. a run with the same dedupe key (or a claimed slot) returns that run: `duplicate`;
   * 2. over `maxRunsPerDay` runs in the last 24 hours, the run is recorded `rate_limited`;
   * 3. while the job of an earlier run is open (not archived nor failed; running, or done
   *    with a pull request), a follow-up turn is queued on it (`followed_up`): its commits
   *    go to the same branch and pull request, whose description lists every source pull
   *    request covered; otherwise a new agent job is created (`started`), its pull request
   *    a draft or not as the automation says.
   * The run then follows its turn (run-settlement.ts). A disabled automation starts nothing (409).
   */
  async startRun(automation: Automation, trigger: RunTrigger): Promise<StartedRun> {
    if (!automation.enabled) throw conflict(`Automation ${automation.id} is disabled`);
    if (trigger.kind !== 'manual' && trigger.kind !== automation.trigger.kind) {
      throw invalid(`A ${trigger.kind} run cannot start a ${automation.trigger.kind} automation`);
    }
    const projectRow = await findProject(this.deps.storage.db, automation.projectId);
    if (!projectRow) throw notFound(`Project ${automation.projectId} not found`);
    const project = toProject(projectRow);
    const now = this.deps.clock();
    const at = iso(now);
    const dedupeKey = trigger.slotAt !== undefined ? `slot:${trigger.slotAt}` : trigger.dedupeKey;
    const result = await this.deps.events.transaction(at, async (tx, events): Promise<StartedRun> => {
      // Writing the automation row first serialises the runs of one automation (the daily count).
      const current = await updateAutomation(tx, automation.projectId, automation.id, { id: automation.id });
      if (!current) throw missing(automation.projectId, automation.id);
      const run: AutomationRunRow = {
        id: newId('run'),
        automation_id: automation.id,
        project_id: automation.projectId,
        trigger_kind: trigger.kind,
        dedupe_key: dedupeKey,
        source: trigger.source ? JSON.stringify(sourceOf(trigger.source)) : null,
        status: 'queued',
        job_id: null,
        turn_id: null,
        follow_up: 0,
        reason: null,
        created_at: at,
        updated_at: at,
        finished_at: null,
      };
      const slotClaimed =
        trigger.slotAt === undefined ||
        (await claimAutomationSlot(tx, {
          automationId: automation.id,
          slotAt: trigger.slotAt,
          runId: run.id,
          claimedAt: at,
        }));
      const started = await countStartedRunsSince(tx, automation.id, iso(new Date(now.getTime() - DAY_MS)));
      const limit = current.max_runs_per_day;
      if (started >= limit) {
        run.status = 'rate_limited';
        run.reason = `Over the daily limit: ${limit} run${limit === 1 ? '' : 's'} in 24 hours`;
        run.finished_at = at;
      }
      if (!slotClaimed || !(await insertAutomationRunOnce(tx, run))) {
        const existing =
          dedupeKey === null ? undefined : await findAutomationRunByKey(tx, automation.id, dedupeKey);
        if (!existing) throw conflict('The run was claimed by another process; try again');
        return { run: await this.runView(tx, existing), jobId: existing.job_id, status: 'duplicate' };
      }
      if (run.status === 'rate_limited') {
        const view = toRunView(run, NO_TURN);
        events.webhook(runCompletedEvent(this.view(toAutomation(current)), view));
        return { run: view, jobId: null, status: 'rate_limited' };
      }
      const open = await findOpenRunJob(tx, automation.id);
      const text = runPrompt({
        instructions: automation.instructions,
        context: trigger.context,
        source: trigger.source ?? null,
        followUp: open !== undefined,
      });
      const { job, turn } = await queueTurnIn(
        tx,
        events,
        open
          ? { projectId: automation.projectId, jobId: open.job_id }
          : { newJob: this.deps.jobs.newJobRow(project, text, at, { draft: automation.draft }) },
        text,
        at,
      );
      const updated = await updateAutomationRun(tx, run.id, {
        job_id: job.id,
        turn_id: turn.id,
        follow_up: open ? 1 : 0,
      });
      return {
        run: toRunView(updated ?? run, {
          turn_status: turn.status,
          turn_usage: turn.usage,
          turn_cost_usd: turn.cost_usd,
          pr_link: job.pr_link,
        }),
        jobId: job.id,
        status: open ? 'followed_up' : 'started',
      };
    });
    if (result.status === 'started' || result.status === 'followed_up') this.deps.jobs.notifyWorkers();
    return result;
  }

  /** `POST …/automations/{id}/trigger`: a manual run; over the daily limit, 429 (the refused run is listed). */
  async trigger(
    projectId: string,
    id: string,
    context: string | undefined,
  ): Promise<{ automationId: string; runId: string; jobId: string | null }> {
    const automation = await this.find(projectId, id);
    const { run, jobId, status } = await this.startRun(automation, {
      kind: 'manual',
      dedupeKey: null,
      context: context ?? '',
    });
    if (status === 'rate_limited') {
      throw new DomainError(
        'rate_limited',
        `Automation ${id} is over its daily limit of ${automation.maxRunsPerDay} runs; the refused run is ${run.id}`,
      );
    }
    return { automationId: id, runId: run.id, jobId };
  }

  /** The automation's runs, newest first. */
  async runs(
    projectId: string,
    id: string,
    options: { limit: number; cursor?: string | undefined },
  ): Promise<{ runs: AutomationRunView[]; nextCursor: string | null }> {
    const automation = await this.find(projectId, id);
    const rows = await listAutomationRuns(this.deps.storage.db, {
      automationId: automation.id,
      limit: options.limit + 1,
      after: options.cursor === undefined ? undefined : decodeCursor(options.cursor),
    });
    const page = rows.slice(0, options.limit);
    const last = page.at(-1);
    return {
      runs: page.map((row) => toRunView(row, row)),
      nextCursor: rows.length > options.limit && last ? encodeCursor(last) : null,
    };
  }

  /**
   * The project's enabled code-change automations for a host, each with its webhook secret
   * opened (the receiver checks the host's signature with it).
   */
  async codeChangeAutomations(
    projectId: string,
    provider: SourceHost,
  ): Promise<Array<{ automation: Automation & { trigger: CodeChangeTrigger }; secret: string }>> {
    const rows = await listEnabledAutomations(this.deps.storage.db, 'code_change', projectId);
    const { box } = this.deps;
    return rows.flatMap((row) => {
      const automation = toAutomation(row);
      if (automation.trigger.kind !== 'code_change' || automation.trigger.provider !== provider) return [];
      if (!box) return [];
      const now = this.deps.clock();
      return acceptedSecrets(box, row, now).map((secret) => ({
        automation: automation as Automation & { trigger: CodeChangeTrigger },
        secret,
      }));
    });
  }

  view(automation: Automation): AutomationView {
    return toAutomationView(automation, this.deps.publicUrl, this.deps.clock());
  }

  private async runView(db: Executor, row: AutomationRunRow): Promise<AutomationRunView> {
    const joined: AutomationRunWithTurn | undefined = await findAutomationRun(db, row.automation_id, row.id);
    return toRunView(row, joined ?? NO_TURN);
  }
}

function sourceOf(source: SourcePullRequest): SourcePullRequest {
  return {
    url: source.url,
    title: source.title,
    number: source.number,
    ...(source.author ? { author: source.author } : {}),
    ...(source.repository
      ? {
          repository: {
            url: source.repository.url,
            ref: source.repository.ref,
            commit: source.repository.commit,
          },
        }
      : {}),
  };
}

function missing(projectId: string, id: string) {
  return notFound(`Automation ${id} not found in project ${projectId}`);
}

function checkName(name: string): string {
  const value = name.trim();
  if (value === '') throw invalid('name must not be empty');
  if (value.length > 200) throw invalid('name must be at most 200 characters');
  return value;
}

function checkInstructions(instructions: string): string {
  const value = instructions.trim();
  if (value === '') throw invalid('instructions must not be empty: say what the agent should do each run');
  return value;
}

function checkMaxRuns(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_RUNS_PER_DAY) {
    throw invalid(`maxRunsPerDay must be a whole number from 1 to ${MAX_RUNS_PER_DAY}`);
  }
  return value;
}

function encodeCursor(row: AutomationRunRow): string {
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

import type { Automation, AutomationView } from '../../domain/automations/automation.ts';
import type { AutomationChange, AutomationInput } from '../../domain/automations/automation-service.ts';
import type { AutomationRunView } from '../../domain/automations/run-view.ts';
import type { TriggerInput } from '../../domain/automations/trigger-input.ts';
import { withServices } from '../context.ts';
import { print, table } from '../output.ts';

/** The trigger options the create and update commands take. */
export interface TriggerOptions {
  trigger?: string;
  cron?: string;
  timezone?: string;
  provider?: string;
  repo?: string;
  path?: string[];
  baseBranch?: string;
}

export async function createAutomationCommand(
  options: TriggerOptions & {
    project: string;
    name: string;
    instructions: string;
    draft?: boolean | undefined;
    maxRunsPerDay?: number | undefined;
    enabled?: boolean | undefined;
    json: boolean;
  },
) {
  const input: AutomationInput = {
    name: options.name,
    instructions: options.instructions,
    trigger: triggerInput(options.trigger ?? 'manual', options, null),
    ...(options.draft !== undefined ? { draft: options.draft } : {}),
    ...(options.maxRunsPerDay !== undefined ? { maxRunsPerDay: options.maxRunsPerDay } : {}),
    ...(options.enabled !== undefined ? { enabled: options.enabled } : {}),
  };
  const created = await withServices(options, (s) => s.automations.create(options.project, input));
  print(options.json, created, (a) =>
    [
      `Created automation ${a.id} (${a.name}) in project ${a.projectId}.`,
      describe(a),
      ...(a.trigger.kind === 'code_change' && 'hookUrl' in a.trigger
        ? [
            `Webhook URL: ${a.trigger.hookUrl}`,
            `Webhook secret (shown once, enter it in the ${a.trigger.provider === 'github' ? "webhook's Secret" : "webhook's Secret token"} now): ${a.webhookSecret}`,
          ]
        : []),
    ].join('\n'),
  );
}

export async function listAutomationsCommand(options: { project: string; json: boolean }) {
  const list = await withServices(options, (s) => s.automations.list(options.project));
  print(options.json, list, (automations) =>
    table(
      ['ID', 'NAME', 'TRIGGER', 'PULL REQUESTS', 'RUNS/DAY', 'ENABLED'],
      automations.map((a) => [
        a.id,
        a.name,
        triggerText(a),
        a.draft ? 'draft' : 'ready',
        String(a.maxRunsPerDay),
        a.enabled ? 'yes' : 'no',
      ]),
    ),
  );
}

export async function getAutomationCommand(id: string, options: { project: string; json: boolean }) {
  const automation = await withServices(options, (s) => s.automations.get(options.project, id));
  print(options.json, automation, (a) =>
    [`${a.id} ${a.name}`, describe(a), `instructions:\n${a.instructions}`].join('\n'),
  );
}

export async function updateAutomationCommand(
  id: string,
  options: TriggerOptions & {
    project: string;
    name?: string;
    instructions?: string;
    draft?: boolean | undefined;
    maxRunsPerDay?: number | undefined;
    enabled?: boolean | undefined;
    json: boolean;
  },
) {
  const updated = await withServices(options, async (s) => {
    const change: AutomationChange = {};
    if (options.name !== undefined) change.name = options.name;
    if (options.instructions !== undefined) change.instructions = options.instructions;
    if (options.draft !== undefined) change.draft = options.draft;
    if (options.maxRunsPerDay !== undefined) change.maxRunsPerDay = options.maxRunsPerDay;
    if (options.enabled !== undefined) change.enabled = options.enabled;
    const touchesTrigger = [
      options.cron,
      options.timezone,
      options.provider,
      options.repo,
      options.path,
      options.baseBranch,
    ].some((v) => v !== undefined);
    if (touchesTrigger || options.trigger !== undefined) {
      const existing = await s.automations.find(options.project, id);
      change.trigger = triggerInput(options.trigger ?? existing.trigger.kind, options, existing);
    }
    return s.automations.update(options.project, id, change);
  });
  print(options.json, updated, (a) => `Updated automation ${a.id} (${a.name}).\n${describe(a)}`);
}

export async function deleteAutomationCommand(id: string, options: { project: string; json: boolean }) {
  await withServices(options, (s) => s.automations.delete(options.project, id));
  print(options.json, { deleted: id }, () => `Deleted automation ${id} and its runs (their jobs stay).`);
}

export async function rotateSecretCommand(id: string, options: { project: string; json: boolean }) {
  const rotated = await withServices(options, (s) => s.automations.rotateSecret(options.project, id));
  print(options.json, rotated, (a) =>
    [
      `Rotated the webhook secret of automation ${a.id} (${a.name}).`,
      `New webhook secret (shown once, enter it in the ${a.trigger.kind === 'code_change' && a.trigger.provider === 'gitlab' ? "webhook's Secret token" : "webhook's Secret"} now): ${a.webhookSecret}`,
      `The old secret is accepted until ${a.previousSecretExpiresAt}.`,
    ].join('\n'),
  );
}

export async function triggerAutomationCommand(
  id: string,
  options: { project: string; context?: string; json: boolean },
) {
  const started = await withServices(options, (s) =>
    s.automations.trigger(options.project, id, options.context),
  );
  print(
    options.json,
    started,
    (r) => `Started run ${r.runId} of automation ${r.automationId}: job ${r.jobId ?? '-'}. A worker runs it.`,
  );
}

export async function listRunsCommand(
  id: string,
  options: { project: string; limit: number; json: boolean },
) {
  const page = await withServices(options, (s) =>
    s.automations.runs(options.project, id, { limit: options.limit }),
  );
  print(options.json, page, ({ runs }) =>
    table(
      ['RUN', 'STARTED', 'TRIGGER', 'STATUS', 'SOURCE', 'JOB', 'PULL REQUEST', 'REASON'],
      runs.map((r) => [
        r.id,
        r.createdAt,
        r.trigger,
        statusText(r),
        r.source ? `#${r.source.number} ${r.source.title}` : '-',
        r.jobId ?? '-',
        r.prLink ?? '-',
        oneLine(r.reason ?? '-'),
      ]),
    ),
  );
}

/** The trigger as given on the command line, over the existing one's settings when changing it. */
function triggerInput(kind: string, o: TriggerOptions, existing: Automation | null): TriggerInput {
  const was = existing?.trigger.kind === kind ? existing.trigger : null;
  if (kind === 'schedule') {
    const before = was?.kind === 'schedule' ? was : null;
    return {
      kind,
      ...((o.cron ?? before?.cron) ? { cron: o.cron ?? before?.cron } : {}),
      timezone: o.timezone ?? before?.timezone ?? 'UTC',
    };
  }
  if (kind === 'code_change') {
    const before = was?.kind === 'code_change' ? was : null;
    return {
      kind,
      ...((o.provider ?? before?.provider) ? { provider: o.provider ?? before?.provider } : {}),
      ...((o.repo ?? before?.repository) ? { repository: o.repo ?? before?.repository } : {}),
      paths: o.path ?? before?.paths ?? [],
      baseBranch: o.baseBranch ?? before?.baseBranch ?? null,
    };
  }
  return { kind };
}

function triggerText(a: AutomationView): string {
  const t = a.trigger;
  if (t.kind === 'schedule') return `schedule "${t.cron}" ${t.timezone}`;
  if (t.kind === 'code_change') {
    const filters = [
      t.baseBranch ? `into ${t.baseBranch}` : null,
      t.paths.length > 0 ? `paths ${t.paths.join(',')}` : null,
    ].filter(Boolean);
    return `merged PR in ${t.provider}:${t.repository}${filters.length ? ` (${filters.join('; ')})` : ''}`;
  }
  return 'manual';
}

function describe(a: AutomationView): string {
  return [
    `  trigger: ${triggerText(a)}`,
    `  pull requests: ${a.draft ? 'draft' : 'ready for review'}`,
    `  runs per day: at most ${a.maxRunsPerDay}`,
    `  enabled: ${a.enabled ? 'yes' : 'no'}`,
  ].join('\n');
}

function statusText(run: AutomationRunView): string {
  if (run.status === 'no_change') return 'no change needed';
  if (run.status === 'rate_limited') return 'over the daily limit';
  return run.status;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

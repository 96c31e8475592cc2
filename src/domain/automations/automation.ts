import type { AutomationRow } from '../../storage/schema.ts';

export const TRIGGER_KINDS = ['code_change', 'schedule', 'manual'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];

export const CODE_HOSTS = ['github', 'gitlab'] as const;
export type SourceHost = (typeof CODE_HOSTS)[number];

/** A merged pull request (merge request) in a source repository starts a run. */
export interface CodeChangeTrigger {
  kind: 'code_change';
  provider: SourceHost;
  /** `owner/name` on GitHub, the project's full path (`group/sub/name`) on GitLab. */
  repository: string;
  /** Globs (picomatch): the pull request must change a file matching one; empty: any change. */
  paths: string[];
  /** Only pull requests merged into this branch; null: any branch. */
  baseBranch: string | null;
}

/** Each slot of a cron expression, read in an IANA time zone, starts a run. */
export interface ScheduleTrigger {
  kind: 'schedule';
  cron: string;
  timezone: string;
}

/** Runs start only on demand (`POST …/automations/{id}/trigger`). */
export interface ManualTrigger {
  kind: 'manual';
}

export type Trigger = CodeChangeTrigger | ScheduleTrigger | ManualTrigger;

/** An automation as the domain uses it. */
export interface Automation {
  id: string;
  projectId: string;
  name: string;
  trigger: Trigger;
  /** The prompt template: what the agent should do each run. */
  instructions: string;
  /** Whether its pull requests open as drafts (over the project's setting). */
  draft: boolean;
  maxRunsPerDay: number;
  enabled: boolean;
  /** A schedule's slots before this instant never run. */
  scheduleFrom: string;
  /** code_change: until when the secret replaced by the last rotation is accepted too. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The API's view: a code-change trigger also says where the host must send its webhooks. */
export type TriggerView = Trigger | (CodeChangeTrigger & { hookUrl: string });

export interface AutomationView {
  id: string;
  projectId: string;
  name: string;
  trigger: TriggerView;
  instructions: string;
  draft: boolean;
  maxRunsPerDay: number;
  enabled: boolean;
  /** code_change: set while the secret replaced by a rotation is still accepted. */
  previousSecretExpiresAt?: string | null;
  createdAt: string;
  updatedAt: string;
}

export function toAutomation(row: AutomationRow): Automation {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    trigger: { kind: row.trigger_kind, ...JSON.parse(row.trigger) } as Trigger,
    instructions: row.instructions,
    draft: row.draft === 1,
    maxRunsPerDay: row.max_runs_per_day,
    enabled: row.enabled === 1,
    scheduleFrom: row.schedule_from,
    previousSecretExpiresAt: row.previous_webhook_secret_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The trigger as stored: its settings without the kind, which has a column of its own. */
export function storedTrigger(trigger: Trigger): string {
  const { kind: _kind, ...settings } = trigger;
  return JSON.stringify(settings);
}

/** Where GitHub or GitLab must POST a code-change automation's webhooks. */
export function hookUrl(publicUrl: string, provider: SourceHost, projectId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/v1/hooks/${provider}/${projectId}`;
}

export function toAutomationView(automation: Automation, publicUrl: string, now: Date): AutomationView {
  const { trigger, previousSecretExpiresAt: expires } = automation;
  const overlap = expires !== null && Date.parse(expires) > now.getTime() ? expires : null;
  return {
    id: automation.id,
    projectId: automation.projectId,
    name: automation.name,
    trigger:
      trigger.kind === 'code_change'
        ? { ...trigger, hookUrl: hookUrl(publicUrl, trigger.provider, automation.projectId) }
        : trigger,
    instructions: automation.instructions,
    draft: automation.draft,
    maxRunsPerDay: automation.maxRunsPerDay,
    enabled: automation.enabled,
    ...(trigger.kind === 'code_change' ? { previousSecretExpiresAt: overlap } : {}),
    createdAt: automation.createdAt,
    updatedAt: automation.updatedAt,
  };
}

import picomatch from 'picomatch';
import { invalid } from '../errors.ts';
import { CODE_HOSTS, type SourceHost, TRIGGER_KINDS, type Trigger, type TriggerKind } from './automation.ts';
import { pathFilter } from './code-change/path-filters.ts';
import { checkSchedule } from './schedule.ts';

/** A trigger as the API and the CLI take it: the fields of its kind, the others left out. */
export interface TriggerInput {
  kind: string;
  provider?: string;
  repository?: string;
  paths?: string[];
  baseBranch?: string | null;
  cron?: string;
  timezone?: string;
}

const FIELDS_OF: Record<TriggerKind, readonly string[]> = {
  code_change: ['provider', 'repository', 'paths', 'baseBranch'],
  schedule: ['cron', 'timezone'],
  manual: [],
};

const MAX_PATHS = 50;
// GitHub: owner/name. GitLab: group/subgroup…/name. Letters, digits, ., _ and -; no "..".
const REPOSITORY = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/;
const BRANCH = /^(?!\/|.*\/\/|.*\.\.|.*\/$)[^\s~^:?*[\\]{1,255}$/;

/** Checks a trigger and fills in its defaults; every error names the field at fault. */
export function parseTrigger(input: TriggerInput): Trigger {
  const kind = input.kind as TriggerKind;
  if (!(TRIGGER_KINDS as readonly string[]).includes(kind)) {
    throw invalid(`trigger.kind must be one of ${TRIGGER_KINDS.join(', ')}`);
  }
  const foreign = Object.keys(input).filter(
    (field) =>
      field !== 'kind' &&
      !FIELDS_OF[kind].includes(field) &&
      input[field as keyof TriggerInput] !== undefined,
  );
  if (foreign.length > 0) {
    throw invalid(`trigger.${foreign[0]} does not apply to a ${kind} trigger`);
  }
  if (kind === 'manual') return { kind };
  if (kind === 'schedule') {
    if (!input.cron?.trim()) throw invalid('trigger.cron is required for a schedule (e.g. "0 9 * * 1")');
    const cron = input.cron.trim().replace(/\s+/g, ' ');
    const timezone = input.timezone?.trim() || 'UTC';
    checkSchedule(cron, timezone);
    return { kind, cron, timezone };
  }
  const provider = input.provider as SourceHost;
  if (!(CODE_HOSTS as readonly string[]).includes(provider)) {
    throw invalid(`trigger.provider must be one of ${CODE_HOSTS.join(', ')}`);
  }
  const repository = input.repository?.trim() ?? '';
  if (!REPOSITORY.test(repository) || repository.split('/').some((part) => part === '.' || part === '..')) {
    throw invalid(
      `trigger.repository must be the repository's path on ${provider === 'github' ? 'GitHub (owner/name)' : 'GitLab (group/project, with any subgroups)'}`,
    );
  }
  if (provider === 'github' && repository.split('/').length !== 2) {
    throw invalid('trigger.repository must be owner/name on GitHub');
  }
  const paths = (input.paths ?? []).map((p) => p.trim());
  if (paths.length > MAX_PATHS) throw invalid(`trigger.paths: at most ${MAX_PATHS} globs`);
  for (const glob of paths) {
    if (glob === '') throw invalid('trigger.paths: a glob must not be empty');
    try {
      picomatch(glob);
    } catch {
      throw invalid(`trigger.paths: "${glob}" is not a valid glob`);
    }
  }
  const baseBranch = input.baseBranch?.trim() || null;
  if (baseBranch !== null && !BRANCH.test(baseBranch)) {
    throw invalid('trigger.baseBranch is not a valid branch name');
  }
  return { kind, provider, repository, paths, baseBranch };
}

/**
 * Whether a merged pull request matches a code-change trigger: same repository (whatever the
 * case), merged into the trigger's base branch if it names one, and changing at least one file
 * that matches its path globs if it has any (`!glob` excludes; see code-change/path-filters.ts).
 */
export function matchesCodeChange(
  trigger: Extract<Trigger, { kind: 'code_change' }>,
  change: { repository: string; baseBranch: string; changedFiles: readonly string[] },
): boolean {
  if (trigger.repository.toLowerCase() !== change.repository.toLowerCase()) return false;
  if (trigger.baseBranch !== null && trigger.baseBranch !== change.baseBranch) return false;
  return pathFilter(trigger.paths)(change.changedFiles);
}

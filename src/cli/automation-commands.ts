import { type Command, InvalidArgumentError, Option } from 'commander';
import { CODE_HOSTS, TRIGGER_KINDS } from '../domain/automations/automation.ts';
import type { createAutomationCommand, updateAutomationCommand } from './commands/automations.ts';

/** Loaded when an automations command runs (see `commands` in program.ts). */
const load = () => import('./commands/automations.ts');

/** `docwright automations list|create|get|update|delete|rotate-secret|trigger|runs`, on the local database. */
export function addAutomationCommands(program: Command, json: readonly [string, string]): void {
  const automations = program
    .command('automations')
    .description('manage automations: agent jobs started by merged pull requests, schedules, or on demand');
  const project = ['--project <id>', 'the project (prj_…)'] as const;
  const id = ['<automation-id>', 'the automation id (aut_…)'] as const;
  const positive = (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('not a whole number above 0');
    return n;
  };
  const triggerOptions = (command: Command) =>
    command
      .option('--cron <expression>', 'schedule: a cron expression, e.g. "0 9 * * 1"')
      .option('--timezone <zone>', 'schedule: the IANA time zone it is read in (default UTC)')
      .addOption(
        new Option('--provider <host>', 'code_change: where the source repository is').choices(CODE_HOSTS),
      )
      .option('--repo <path>', 'code_change: owner/name (GitHub) or group/project (GitLab)')
      .option(
        '--path <glob>',
        'code_change: only pull requests changing a matching file (repeat for several)',
        (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
      )
      .option('--base-branch <branch>', 'code_change: only pull requests merged into this branch')
      .option('--draft', 'open pull requests as drafts (the default)')
      .option('--ready', 'open pull requests ready for review')
      .option('--max-runs-per-day <n>', 'runs in any 24 hours (default 500)', positive);
  const common = (o: Record<string, unknown>) => ({
    ...o,
    draft: o.ready ? false : o.draft ? true : undefined,
    enabled: o.disable ? false : o.enable ? true : undefined,
    json: Boolean(o.json),
  });

  automations
    .command('list')
    .description("list a project's automations")
    .requiredOption(...project)
    .option(...json)
    .action(async (o) =>
      (await load()).listAutomationsCommand({ project: o.project, json: Boolean(o.json) }),
    );
  triggerOptions(
    automations
      .command('create')
      .description('create an automation (a code_change one prints its webhook URL and secret, once)')
      .requiredOption(...project)
      .requiredOption('--name <name>', 'a name people recognise it by')
      .requiredOption('--instructions <text>', 'what the agent should do on each run')
      .addOption(
        new Option('--trigger <kind>', 'what starts a run').choices(TRIGGER_KINDS).default('manual'),
      ),
  )
    .option('--disable', 'create it disabled')
    .option(...json)
    .action(async (o) =>
      (await load()).createAutomationCommand(common(o) as Parameters<typeof createAutomationCommand>[0]),
    );
  automations
    .command('get')
    .description('show an automation')
    .argument(...id)
    .requiredOption(...project)
    .option(...json)
    .action(async (automationId, o) =>
      (await load()).getAutomationCommand(automationId, { project: o.project, json: Boolean(o.json) }),
    );
  triggerOptions(
    automations
      .command('update')
      .description(
        "change an automation's name, instructions, trigger settings, limit, draft choice or state",
      )
      .argument(...id)
      .requiredOption(...project)
      .option('--name <name>', 'another name')
      .option('--instructions <text>', 'other instructions'),
  )
    .option('--enable', 'enable it')
    .option('--disable', 'disable it: no run starts')
    .option(...json)
    .action(async (automationId, o) =>
      (await load()).updateAutomationCommand(
        automationId,
        common(o) as Parameters<typeof updateAutomationCommand>[1],
      ),
    );
  automations
    .command('delete')
    .description('delete an automation and its runs (the jobs they started stay)')
    .argument(...id)
    .requiredOption(...project)
    .option(...json)
    .action(async (automationId, o) =>
      (await load()).deleteAutomationCommand(automationId, { project: o.project, json: Boolean(o.json) }),
    );
  automations
    .command('rotate-secret')
    .description(
      'give a code_change automation a new webhook secret, printed once; the old one is accepted for 24 hours',
    )
    .argument(...id)
    .requiredOption(...project)
    .option(...json)
    .action(async (automationId, o) =>
      (await load()).rotateSecretCommand(automationId, { project: o.project, json: Boolean(o.json) }),
    );
  automations
    .command('trigger')
    .description('start a run now (a worker runs its job)')
    .argument(...id)
    .requiredOption(...project)
    .option('--context <text>', 'extra context for this run')
    .option(...json)
    .action(async (automationId, o) =>
      (await load()).triggerAutomationCommand(automationId, {
        project: o.project,
        context: o.context,
        json: Boolean(o.json),
      }),
    );
  automations
    .command('runs')
    .description("list an automation's latest runs")
    .argument(...id)
    .requiredOption(...project)
    .option('--limit <n>', 'how many (at most 100)', positive, 20)
    .option(...json)
    .action(async (automationId, o) =>
      (await load()).listRunsCommand(automationId, {
        project: o.project,
        limit: Math.min(o.limit, 100),
        json: Boolean(o.json),
      }),
    );
}

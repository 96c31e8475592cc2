import { type Static, Type } from 'typebox';
import { CODE_HOSTS, TRIGGER_KINDS } from '../domain/automations/automation.ts';
import { RUN_STATUSES } from '../domain/automations/run-view.ts';
import { TurnUsage } from './usage-schema.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const Timestamp = (description: string) => Type.String({ format: 'date-time', description });

const TriggerFields = {
  kind: Type.Enum([...TRIGGER_KINDS], {
    description:
      'code_change: a merged pull request (merge request) in a source repository; schedule: each slot of a cron expression; manual: on demand only.',
  }),
  provider: Type.Optional(
    Type.Enum([...CODE_HOSTS], { description: 'code_change: where the source repository is.' }),
  ),
  repository: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 300,
      description: 'code_change: owner/name on GitHub, the full project path (group/sub/name) on GitLab.',
      examples: ['acme/api'],
    }),
  ),
  paths: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
      maxItems: 50,
      description:
        'code_change: globs (e.g. src/api/**); a pull request must change a file matching one. Empty or left out: any change.',
    }),
  ),
  baseBranch: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 255,
        description: 'code_change: only pull requests merged into this branch; null or left out: any.',
      }),
    ),
  ),
  cron: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'schedule: a cron expression (minute hour day month weekday; six fields with seconds first), e.g. "0 9 * * 1".',
      examples: ['0 9 * * 1'],
    }),
  ),
  timezone: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'schedule: the IANA time zone the cron expression is read in; default UTC.',
      examples: ['Europe/Paris'],
    }),
  ),
};

const TriggerBody = Type.Object(TriggerFields, {
  description: 'The trigger: its kind and the fields of that kind only.',
});

const TriggerView = Type.Object(
  {
    ...TriggerFields,
    hookUrl: Type.Optional(
      Type.String({
        description:
          'code_change: where the host must send its webhooks (GitHub: content type application/json, the "Pull requests" event; GitLab: "Merge request events").',
      }),
    ),
  },
  { description: 'The trigger, with its defaults filled in.' },
);

const AutomationFields = {
  id: Type.String({ description: 'The automation id (aut_…).' }),
  projectId: Type.String(),
  name: Type.String(),
  trigger: TriggerView,
  instructions: Type.String({ description: 'The prompt template: what the agent does on each run.' }),
  draft: Type.Boolean({ description: 'Whether its pull requests open as drafts.' }),
  maxRunsPerDay: Type.Integer({ description: 'Runs started in any 24 hours; more are refused (429).' }),
  enabled: Type.Boolean({ description: 'A disabled automation starts no run.' }),
  previousSecretExpiresAt: Type.Optional(
    Nullable(
      Timestamp(
        'code_change: after a rotation, until when webhooks signed with the replaced secret are still accepted; null when none is.',
      ),
    ),
  ),
  createdAt: Timestamp('When it was created.'),
  updatedAt: Timestamp('When it last changed.'),
};

export const Automation = Type.Object(AutomationFields, { $id: 'Automation' });

export const AutomationWithSecret = Type.Object(
  {
    ...AutomationFields,
    webhookSecret: Type.Optional(
      Type.String({
        description:
          "code_change: the secret to enter in the host's webhook settings (GitHub: Secret; GitLab: Secret token), shown this once. Docwright keeps it encrypted and never returns it again.",
      }),
    ),
  },
  { $id: 'AutomationWithSecret' },
);

export const AutomationList = Type.Object(
  { automations: Type.Array(Type.Ref('Automation'), { description: 'Oldest first.' }) },
  { $id: 'AutomationList' },
);

export const AutomationRun = Type.Object(
  {
    id: Type.String({ description: 'The run id (run_…).' }),
    automationId: Type.String(),
    trigger: Type.Enum([...TRIGGER_KINDS], { description: 'What started it.' }),
    source: Nullable(
      Type.Object(
        {
          url: Type.String(),
          title: Type.String(),
          number: Type.Integer(),
          author: Type.Optional(Type.String()),
        },
        { description: 'The source pull request (code_change).' },
      ),
    ),
    status: Type.Enum([...RUN_STATUSES], {
      description:
        'queued, running; then completed (its changes are in the pull request), no_change (no change needed: reason says why), failed, or rate_limited (over the daily limit, no job started).',
    }),
    jobId: Nullable(Type.String({ description: 'The agent job it started or added a turn to.' })),
    prLink: Nullable(Type.String({ description: "The job's pull request, once there is one." })),
    followUp: Type.Boolean({
      description: "Whether it added a turn to an earlier run's job, whose pull request was still open.",
    }),
    reason: Nullable(
      Type.String({
        description: "The agent's final answer (why no change was needed), or why it failed or was refused.",
      }),
    ),
    usage: Nullable(
      Type.Object(TurnUsage.properties, {
        description:
          "Tokens and estimated cost of the run's own turn (a follow-up run counts its turn only); null until the turn records its usage, or when it started none.",
      }),
    ),
    createdAt: Timestamp('When it started.'),
    updatedAt: Timestamp('When it last changed.'),
    finishedAt: Nullable(Timestamp('When it ended.')),
  },
  { $id: 'AutomationRun' },
);

export const AutomationRunList = Type.Object(
  {
    runs: Type.Array(Type.Ref('AutomationRun'), { description: 'Newest first.' }),
    nextCursor: Nullable(
      Type.String({ description: 'Pass as cursor to get the next page; null on the last.' }),
    ),
  },
  { $id: 'AutomationRunList' },
);

export const TriggeredRun = Type.Object(
  {
    automationId: Type.String(),
    runId: Type.String(),
    jobId: Nullable(Type.String({ description: 'The agent job the run started or added a turn to.' })),
  },
  { $id: 'TriggeredRun' },
);

export const AUTOMATION_SCHEMAS = [
  Automation,
  AutomationWithSecret,
  AutomationList,
  AutomationRun,
  AutomationRunList,
  TriggeredRun,
];

const Name = Type.String({ minLength: 1, maxLength: 200, description: 'A name people recognise it by.' });
const Instructions = (maxLength: number) =>
  Type.String({
    pattern: '\\S',
    maxLength,
    description: 'What the agent should do on each run (a prompt); the trigger adds its context.',
    examples: ['Update the API reference for what the merged pull request changed.'],
  });
const Draft = Type.Boolean({ description: 'Open its pull requests as drafts (default true).' });
const MaxRunsPerDay = Type.Integer({
  minimum: 1,
  maximum: 100_000,
  description: 'Runs started in any 24 hours; default 500.',
});
const Enabled = Type.Boolean({ description: 'Default true.' });

export const createAutomationBody = (maxInstructions: number) =>
  Type.Object({
    name: Name,
    trigger: TriggerBody,
    instructions: Instructions(maxInstructions),
    draft: Type.Optional(Draft),
    maxRunsPerDay: Type.Optional(MaxRunsPerDay),
    enabled: Type.Optional(Enabled),
  });

export const updateAutomationBody = (maxInstructions: number) =>
  Type.Object(
    {
      name: Type.Optional(Name),
      trigger: Type.Optional(TriggerBody),
      instructions: Type.Optional(Instructions(maxInstructions)),
      draft: Type.Optional(Draft),
      maxRunsPerDay: Type.Optional(MaxRunsPerDay),
      enabled: Type.Optional(Enabled),
    },
    { minProperties: 1 },
  );

export const triggerBody = (maxContext: number) =>
  Type.Object({
    context: Type.Optional(
      Type.String({ maxLength: maxContext, description: 'Extra context for this run, added to the prompt.' }),
    ),
  });

export const AutomationParams = Type.Object({
  projectId: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 64, description: 'The automation id.' }),
});

export const RunListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});

export type AutomationType = Static<typeof Automation>;
export type AutomationWithSecretType = Static<typeof AutomationWithSecret>;
export type AutomationRunType = Static<typeof AutomationRun>;
export type TriggeredRunType = Static<typeof TriggeredRun>;

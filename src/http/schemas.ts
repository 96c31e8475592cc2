import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { type JobEventType, TURN_CHANGES } from '../domain/jobs/job-events.ts';
import { JOB_STATUSES } from '../domain/jobs/job-view.ts';
import { MAX_PLAN_ITEMS, MAX_PLAN_TITLE, PLAN_STATUSES } from '../domain/jobs/plan.ts';
import { AUTOMATION_SCHEMAS } from './automation-schemas.ts';
import { CONTEXT_REPOSITORY_SCHEMAS } from './context-repository-schemas.ts';
import { TurnUsage } from './usage-schema.ts';
import { WEBHOOK_SCHEMAS } from './webhook-schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const Timestamp = (description: string) => Type.String({ format: 'date-time', description });

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, in words meant for the caller.' }),
    details: Type.Optional(Type.Array(Type.Object({ message: Type.String() }))),
    requestId: Type.Optional(Type.String({ description: 'Quote this when reporting a problem.' })),
  },
  { $id: 'Error' },
);

export const Job = Type.Object(
  {
    id: Type.String({ description: 'Opaque, unguessable job id.' }),
    status: Type.Enum([...JOB_STATUSES], {
      description:
        'active while a turn is pending or running; then completed or failed; archived when stopped.',
    }),
    source: Type.Object({
      repository: Type.String({ description: "The project's documentation repository (URL or path)." }),
      ref: Type.String({ description: 'The branch the agent works on.' }),
    }),
    model: Nullable(
      Type.String({
        description:
          "provider:model-id of the job's latest turn (resolved when it starts: the project's model, else the server's default); null if none is configured.",
      }),
    ),
    prLink: Nullable(Type.String({ description: 'The pull request, once one exists.' })),
    createdAt: Timestamp('When the job was created (UTC).'),
    archivedAt: Nullable(Timestamp('When the job was archived (UTC).')),
    failureReason: Nullable(
      Type.String({ description: 'Why the job failed; null unless status is failed.' }),
    ),
    updatedAt: Timestamp('When the job last changed (UTC).'),
    usage: Type.Object(
      {
        inputTokens: Type.Integer({ minimum: 0, description: "Input tokens of the job's turns, summed." }),
        outputTokens: Type.Integer({ minimum: 0, description: "Output tokens of the job's turns, summed." }),
        costUsd: Nullable(
          Type.Number({
            minimum: 0,
            description:
              "Estimated cost in US dollars: the sum of its turns' estimates, each made from the price table when the turn's usage was recorded (later price changes do not rewrite it). 0 before any usage. null when turns recorded usage but none has an estimate (their model is not in the price table): unknown, not free.",
          }),
        ),
        unpricedTurns: Type.Integer({
          minimum: 0,
          description:
            'Turns whose usage has no estimate (their model is not in the price table, or they were recorded before cost estimates existed); above 0, costUsd leaves them out and is a lower bound.',
        }),
      },
      {
        description:
          'Tokens and estimated cost so far, summed over the turns whose usage is recorded (a turn records it when it ends).',
      },
    ),
  },
  { $id: 'Job' },
);

export const JobList = Type.Object(
  {
    jobs: Type.Array(Type.Ref('Job')),
    nextCursor: Nullable(
      Type.String({ description: 'Pass as cursor to get the next page; null on the last.' }),
    ),
  },
  { $id: 'JobList' },
);

const TurnSourceSchema = Type.Union([
  Type.Object({
    kind: Type.Literal('file'),
    repository: Type.String({ description: 'The connected repository, by its name in the project.' }),
    commit: Type.String({ description: 'The commit the file was read at.' }),
    path: Type.String(),
    url: Nullable(Type.String({ description: 'The file at that commit on its code host.' })),
  }),
  Type.Object({ kind: Type.Literal('url'), url: Type.String() }),
]);

const TurnFields = {
  turn: Type.Integer({ description: '1 for the first prompt, then one more per follow-up.' }),
  status: Type.Enum(['pending', 'running', 'succeeded', 'failed', 'cancelled']),
  prompt: Type.String(),
  model: Nullable(
    Type.String({
      description: 'provider:model-id the turn ran on; null until it starts or with none configured.',
    }),
  ),
  attempts: Type.Integer(),
  summary: Nullable(Type.String()),
  error: Nullable(Type.String()),
  usage: Nullable(TurnUsage),
  createdAt: Timestamp('When the turn was queued.'),
  startedAt: Nullable(Timestamp('When the turn last started.')),
  finishedAt: Nullable(Timestamp('When the turn ended.')),
  sources: Type.Array(TurnSourceSchema, {
    description:
      "What the turn's change relied on beyond the docs repository, as Docwright saw the agent read it: files of connected repositories at the commit read (`url` on their code host when there is one) and web pages fetched. Empty when there were none.",
  }),
};

const Tool = Type.Object({ name: Type.String(), input: Type.Unknown(), output: Type.String() });
const PlanItems = Type.Array(
  Type.Object({
    title: Type.String({ minLength: 1, maxLength: MAX_PLAN_TITLE }),
    status: Type.Enum([...PLAN_STATUSES], { description: 'At most one step is in_progress.' }),
  }),
  { minItems: 1, maxItems: MAX_PLAN_ITEMS, description: "The plan's steps, in order." },
);
const Message = Type.Object({
  id: Type.String(),
  turn: Type.Integer(),
  role: Type.Enum(['user', 'assistant', 'tool', 'note', 'plan'], {
    description:
      "plan: the agent's checklist for the turn, as it last set it (the turn stores only its last; each update is a plan event).",
  }),
  text: Nullable(Type.String()),
  tool: Nullable(Tool),
  // Optional: `message` events recorded before plans existed are replayed as they were written.
  plan: Type.Optional(
    Nullable(
      Type.Object(
        { items: PlanItems },
        {
          description:
            'For a plan message; null for the others. Absent only from message events recorded before plans existed.',
        },
      ),
    ),
  ),
  createdAt: Timestamp('When the message was stored.'),
});

export const Conversation = Type.Object(
  { turns: Type.Array(Type.Object(TurnFields)), messages: Type.Array(Message) },
  { $id: 'Conversation' },
);

const eventOf = (type: JobEventType, description: string, data: Parameters<typeof Type.Object>[0][string]) =>
  Type.Object(
    {
      id: Type.Integer({ minimum: 0, description: 'Sent as `id:`; resume after it with Last-Event-ID.' }),
      event: Type.Literal(type, { description: 'Sent as `event:`.' }),
      data,
    },
    { title: type, description },
  );

/** One event of a job's event stream (the SSE fields id, event and data, data as JSON). */
export const JobEvent = Type.Union(
  [
    eventOf(
      'status',
      'The job after a change. A stream opened without Last-Event-ID starts with the current one as id 0.',
      Type.Ref('Job'),
    ),
    eventOf(
      'turn',
      'A turn was queued, started, ended (succeeded, failed), put back (retrying, released) or cancelled.',
      Type.Object({ change: Type.Enum([...TURN_CHANGES]), ...TurnFields }),
    ),
    eventOf('message', 'A stored conversation message, as in …/messages.', Message),
    eventOf(
      'step',
      "Something the agent said or did in the running turn, as it happens. The turn's messages, sent when it ends, are the record.",
      Type.Object({
        turn: Type.Integer(),
        role: Type.Enum(['assistant', 'tool', 'note']),
        text: Nullable(Type.String()),
        tool: Nullable(Tool),
        createdAt: Timestamp('When the step was recorded.'),
      }),
    ),
    eventOf(
      'plan',
      "The agent set its plan for the running turn: the whole checklist, each time. The turn's last plan is stored as a plan message when it ends.",
      Type.Object({
        turn: Type.Integer(),
        items: PlanItems,
        createdAt: Timestamp('When the plan was set.'),
      }),
    ),
    eventOf(
      'pull_request',
      "The job's pull request (or local review page) appeared or changed.",
      Type.Object({ prLink: Type.String() }),
    ),
  ],
  {
    $id: 'JobEvent',
    description:
      'Each event is sent as `id: <id>`, `event: <type>` and `data: <JSON>` lines and a blank line; comment lines (`: …`) keep an idle stream open.',
  },
);

export const BranchReview = Type.Object(
  {
    branch: Type.String({ description: 'The job branch.' }),
    baseBranch: Type.String({ description: 'The branch it would be merged into.' }),
    state: Type.Enum(['open', 'merged', 'missing'], {
      description: 'missing: nothing pushed yet; merged: everything on the branch is in the base branch.',
    }),
    commits: Type.Array(
      Type.Object({ sha: Type.String(), author: Type.String(), date: Type.String(), subject: Type.String() }),
    ),
    files: Type.Array(
      Type.Object({
        path: Type.String(),
        oldPath: Type.Optional(Type.String({ description: 'Set for renames and copies.' })),
        status: Type.Enum(['added', 'modified', 'deleted', 'renamed', 'copied', 'changed']),
        additions: Nullable(Type.Integer({ description: 'null for binary files.' })),
        deletions: Nullable(Type.Integer()),
      }),
    ),
    diff: Type.String({ description: 'Unified diff of the branch against where it left the base branch.' }),
    diffTruncated: Type.Boolean(),
    sources: Type.Array(TurnSourceSchema, {
      description:
        "What the job's turns relied on beyond the docs repository (the pull request's Sources), each once, in the order first read.",
    }),
  },
  { $id: 'BranchReview' },
);

export const ProjectParams = Type.Object({
  projectId: Type.String({ minLength: 1, maxLength: 64, description: 'The project id (see the dashboard).' }),
});

export const JobParams = Type.Object({
  projectId: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 64, description: 'The job id.' }),
});

/** The prompt body; its maximum length comes from the configuration. */
export const promptBody = (maxPromptLength: number) =>
  Type.Object({
    prompt: Type.String({
      // Not empty and not only whitespace: one pattern, so one message.
      pattern: '\\S',
      maxLength: maxPromptLength,
      description: `What the agent should do, in natural language (at most ${maxPromptLength} characters).`,
      examples: ['Add a guide about rate limits and link it in the navigation'],
    }),
  });

export const JobListQuery = Type.Object({
  status: Type.Optional(Type.Enum([...JOB_STATUSES])),
  q: Type.Optional(
    Type.String({
      maxLength: 200,
      description: 'Only jobs one of whose prompts contains this text, whatever its case.',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});

export type JobListQueryType = Static<typeof JobListQuery>;

/** An error response with its own description (a route's own meaning of a status). */
export const error = (description: string) => Type.Ref('Error', { description });

/** Error responses every authenticated route may give. */
export const errorResponses = {
  400: error('Invalid request: the body or a parameter is malformed; details name each problem.'),
  401: error(
    'Missing, malformed, unknown, revoked or expired API key (an expired key is told when it expired).',
  ),
  403: error(
    "The API key belongs to another project, its scope does not allow this endpoint (a read key only reads), or the request comes from an address outside the key's IP allowlist.",
  ),
  404: error('Unknown project, job or route.'),
  429: error('Rate limited; Retry-After says when to try again.'),
  500: error('Internal error; quote the requestId when reporting it.'),
  503: error(
    'Storage is unavailable for a moment (a database connection failed or timed out, a server is restarting or overloaded); Retry-After says when to try again. A retried analytics batch adds no duplicate of an event with an id.',
  ),
};

export const bodyErrorResponses = {
  ...errorResponses,
  408: error(
    'The request body did not arrive in time (DOCWRIGHT_BODY_TIMEOUT_SECONDS after the server started reading it); the connection is closed.',
  ),
  409: error('Conflict: the job is archived.'),
  413: error('Request body too large.'),
  415: error('Content-Type is not application/json.'),
};
/** A body error, or the project's monthly budget is spent: for the routes that queue a turn. */
export const turnErrorResponses = {
  ...bodyErrorResponses,
  402: error(
    "The project's monthly budget is spent (estimated cost of this calendar month's turns, UTC); the error says how much was used and when it resets. Nothing was queued.",
  ),
};

/** A success response: a shared schema with a description for the API reference. */
export const ok = (ref: string, description: string) => Type.Ref(ref, { description });

/** Registers the schemas that routes refer to by name (`Type.Ref('Job')`). */
export function addSharedSchemas(app: FastifyInstance): void {
  for (const schema of [
    ErrorBody,
    Job,
    JobList,
    Conversation,
    JobEvent,
    BranchReview,
    ...WEBHOOK_SCHEMAS,
    ...AUTOMATION_SCHEMAS,
    ...CONTEXT_REPOSITORY_SCHEMAS,
  ]) {
    app.addSchema(schema);
  }
}

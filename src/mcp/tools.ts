import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import packageJson from '../../package.json' with { type: 'json' };

/**
 * Docwright's MCP tools, defined once against `DocwrightOperations`. `docwright mcp` (stdio)
 * binds them to the HTTP client of a Docwright elsewhere; `POST /mcp` binds them to the
 * server's own services for the calling key's project. Either way the tools, their arguments
 * and their descriptions are these.
 */

/** The statuses a job can have (as in the API's Job schema). */
export const JOB_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;

export interface JobListInput {
  status?: (typeof JOB_STATUSES)[number] | undefined;
  q?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface VisitorsInput {
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
  verifiedOnly?: boolean | undefined;
}

/** What the tools do, for one project; each answer is sent to the agent as JSON. */
export interface DocwrightOperations {
  /** POST …/job: the new job. */
  createJob(prompt: string): Promise<unknown>;
  /** POST …/job/{id}/message: the job, active again. */
  followUp(jobId: string, prompt: string): Promise<unknown>;
  /** GET …/job/{id} and …/messages. */
  getJob(jobId: string): Promise<{ job: unknown; conversation: unknown }>;
  /** GET …/jobs. */
  listJobs(input: JobListInput): Promise<unknown>;
  /** GET /v1/analytics/{projectId}/visitors. */
  visitors(input: VisitorsInput): Promise<unknown>;
}

export interface McpServerOptions {
  operations: DocwrightOperations;
  /**
   * The words for the agent when an operation fails on purpose (refused, not found, invalid):
   * the server's own message. Null for anything unexpected, which the agent sees only as an
   * internal error (never a stack) and which goes to `onUnexpectedError`.
   */
  describeError(error: unknown): string | null;
  onUnexpectedError(error: unknown, tool: string): void;
}

const jobId = z
  .string()
  .min(1)
  .max(64)
  .describe('The job id (job_…), as create_docs_job or list_docs_jobs gave it.');
const prompt = z
  .string()
  .regex(/\S/, 'prompt must not be empty')
  .describe(
    'What the documentation agent should do, in plain language, with the context it needs: what changed in the code (API names, parameters, behaviour, versions), which pages are likely affected, and anything it must not change.',
  );
const dateParam = (what: string) =>
  z
    .string()
    .max(64)
    .optional()
    .describe(`${what}: YYYY-MM-DD (midnight UTC) or an ISO 8601 date-time with offset. Absent: unbounded.`);

/** A new MCP server with Docwright's tools over `operations`; connect it to a transport. */
export function createDocwrightMcpServer(options: McpServerOptions): McpServer {
  const { operations } = options;
  const server = new McpServer(
    { name: 'docwright', title: 'Docwright', version: packageJson.version },
    {
      instructions:
        "Docwright keeps a project's documentation up to date: its documentation agent edits the docs repository and opens a pull request. After changing code that users see (an API, a CLI flag, a configuration setting, a behaviour), call create_docs_job with what changed; the agent works in the background, so check on it with get_docs_job. Docs analytics (export_docs_visitors) tell which pages people and AI agents read.",
    },
  );

  /** Runs a tool: its answer as JSON text, or a tool error with the server's message. */
  const run =
    <A>(tool: string, operation: (args: A) => Promise<unknown>) =>
    async (args: A): Promise<CallToolResult> => {
      try {
        const result = await operation(args);
        return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }] };
      } catch (error) {
        const message = options.describeError(error);
        if (message === null) options.onUnexpectedError(error, tool);
        return {
          isError: true,
          content: [{ type: 'text', text: message ?? `Docwright could not do ${tool}: internal error` }],
        };
      }
    };

  server.registerTool(
    'create_docs_job',
    {
      title: 'Create a documentation job',
      description:
        "Asks Docwright's documentation agent to update the project's documentation. Use it after changing code that users see. The agent works in the background on a branch of the docs repository and, when it changes files, opens a pull request (the job's prLink). Answers at once with the new job (status active); follow it with get_docs_job until its status is completed (prLink null means nothing needed changing; the conversation says why) or failed (failureReason). Needs an admin API key.",
      inputSchema: { prompt },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    run('create_docs_job', ({ prompt }: { prompt: string }) => operations.createJob(prompt)),
  );

  server.registerTool(
    'follow_up_docs_job',
    {
      title: 'Send a follow-up to a documentation job',
      description:
        'Sends the agent another instruction in an existing job, with everything the job did so far as context: a correction, more detail, or the next change. Queued behind a running turn, or re-opens a completed or failed job; an archived job refuses it. Answers with the job, active again. Needs an admin API key.',
      inputSchema: { jobId, prompt },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    run('follow_up_docs_job', ({ jobId, prompt }: { jobId: string; prompt: string }) =>
      operations.followUp(jobId, prompt),
    ),
  );

  server.registerTool(
    'get_docs_job',
    {
      title: 'Get a documentation job and its conversation',
      description:
        'One job: { job, conversation }. job has status (active while the agent works; then completed, failed or archived), prLink (its pull request, once one exists), failureReason and timestamps. conversation has the turns (one per prompt, with status, summary and token usage) and the messages: each prompt, what the agent said, and each tool it used (file reads, edits, validation) with its output, and its plan for the turn (role plan: a checklist of steps, pending, in_progress or done). Poll it every few seconds while status is active.',
      inputSchema: { jobId },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run('get_docs_job', ({ jobId }: { jobId: string }) => operations.getJob(jobId)),
  );

  server.registerTool(
    'list_docs_jobs',
    {
      title: 'List documentation jobs',
      description:
        "The project's documentation jobs, newest first: { jobs, nextCursor }. Filter by status, or by text in any of a job's prompts (q); pass nextCursor back as cursor for the next page (null on the last).",
      inputSchema: {
        status: z.enum(JOB_STATUSES).optional().describe('Only jobs with this status.'),
        q: z
          .string()
          .max(200)
          .optional()
          .describe('Only jobs one of whose prompts contains this text, whatever its case.'),
        limit: z.number().int().min(1).max(100).optional().describe('Jobs per page, 1-100 (default 20).'),
        cursor: z.string().max(200).optional().describe('nextCursor of the previous page.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run('list_docs_jobs', (input: JobListInput) => operations.listJobs(input)),
  );

  server.registerTool(
    'export_docs_visitors',
    {
      title: 'Export unique visitors per docs page',
      description:
        'Docs analytics: exact distinct visitors per page over [dateFrom, dateTo) (dateTo is exclusive), split into human and ai (assistants and coding agents fetching for a person, AI search and training crawlers by purpose). Answers { totals, visitors: [{ path, human, ai, total, aiAssistant, aiSearch, aiTraining, aiOther }], hasMore }, ordered by total descending then path; page with offset += limit while hasMore. Useful to see which pages matter before and after a docs change.',
      inputSchema: {
        dateFrom: dateParam('Inclusive start'),
        dateTo: dateParam('Exclusive end'),
        limit: z.number().int().min(1).max(250).optional().describe('Rows per page, 1-250 (default 50).'),
        offset: z.number().int().min(0).optional().describe('Rows to skip (default 0).'),
        verifiedOnly: z
          .boolean()
          .optional()
          .describe(
            "true: count an AI agent or crawler only when its operator's published IP ranges verify it; one that only claims its user agent counts as a bot. Default false.",
          ),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run('export_docs_visitors', (input: VisitorsInput) => operations.visitors(input)),
  );

  return server;
}

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { pino } from 'pino';
import { createClient, DocwrightApiError, type DocwrightClient } from '../../client/index.ts';
import { loadRemoteSettings } from '../../config/remote.ts';
import { createLogger } from '../../logging/logger.ts';
import { createDocwrightMcpServer, type DocwrightOperations } from '../../mcp/tools.ts';

export interface McpCommandOptions {
  /** --url; else DOCWRIGHT_URL. */
  url?: string | undefined;
  /** --project; else DOCWRIGHT_PROJECT_ID. */
  project?: string | undefined;
}

/**
 * `docwright mcp`: Docwright's MCP tools on standard input and output, for a coding agent on a
 * developer's machine. It talks to a running Docwright over HTTP with the typed client, so it
 * needs no database and none of the server's settings: only where the server is, the API key
 * (from DOCWRIGHT_API_KEY, never from the command line, where process lists show it) and the
 * project. Standard output carries the protocol alone; logs go to standard error.
 */
export async function mcpCommand(options: McpCommandOptions): Promise<void> {
  const { url, apiKey, projectId } = loadRemoteSettings(options);
  const origin = new URL(url).origin;
  const logger = createLogger('info', pino.destination(2), 'docwright-mcp');
  const client = createClient({ baseUrl: url, apiKey });
  const server = createDocwrightMcpServer({
    operations: clientOperations(client, projectId),
    describeError: (error) => describeClientError(error, origin),
    onUnexpectedError: (error, tool) => logger.error({ err: error, tool }, 'MCP tool failed'),
  });
  await server.connect(new StdioServerTransport());
  logger.info({ server: origin, projectId }, 'Docwright MCP server on stdio');
}

/** The tools bound to a Docwright elsewhere, through its public API. */
export function clientOperations(client: DocwrightClient, projectId: string): DocwrightOperations {
  return {
    createJob: (prompt) => client.jobs.create(projectId, prompt),
    followUp: (jobId, prompt) => client.jobs.followUp(projectId, jobId, prompt),
    async getJob(jobId) {
      const [job, conversation] = await Promise.all([
        client.jobs.get(projectId, jobId),
        client.jobs.conversation(projectId, jobId),
      ]);
      return { job, conversation };
    },
    listJobs: ({ status, q, limit, cursor }) =>
      client.jobs.list(projectId, {
        ...(status !== undefined ? { status } : {}),
        ...(q !== undefined ? { q } : {}),
        ...(limit !== undefined ? { limit } : {}),
        ...(cursor !== undefined ? { cursor } : {}),
      }),
    visitors: (input) =>
      client.analytics.visitors(
        projectId,
        Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)),
      ),
  };
}

/** The server's own message for what it refused; a plain word when it could not be reached. */
function describeClientError(error: unknown, origin: string): string | null {
  if (error instanceof DocwrightApiError) return `${error.message} (HTTP ${error.status})`;
  // fetch fails with a TypeError whose cause says why (ECONNREFUSED, ENOTFOUND, a certificate).
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
    const why = typeof cause?.code === 'string' ? cause.code : String(cause?.message ?? 'no answer');
    return `Could not reach Docwright at ${origin}: ${why}`;
  }
  return null;
}

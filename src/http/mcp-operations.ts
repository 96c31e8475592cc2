import { type Principal, permits } from '../domain/access/principal.ts';
import type { AnalyticsService } from '../domain/analytics/analytics-service.ts';
import { parsePageParams } from '../domain/analytics/query-params.ts';
import { DomainError, invalid } from '../domain/errors.ts';
import type { JobService } from '../domain/jobs/job-service.ts';
import type { ProjectService } from '../domain/projects/project-service.ts';
import type { RateLimiter } from '../domain/rate-limit/rate-limiter.ts';
import type { DocwrightOperations } from '../mcp/tools.ts';
import { STATUS_BY_KIND } from './errors.ts';
import { pagesJson } from './routes/analytics-format.ts';

export interface InProcessOperationsDeps {
  jobs: JobService;
  projects: ProjectService;
  analytics: AnalyticsService;
  /** The limits the API's routes apply: job creation and messages, and analytics exports. */
  rateLimiter: RateLimiter;
  analyticsRateLimiter: RateLimiter;
  maxPromptLength: number;
}

/**
 * The MCP tools bound to this server's services, for one authenticated caller. The project is
 * the key's own, fixed here: no tool argument names a project, so no call can reach another.
 * Each operation does what its API route does: the same permission, limits and answer.
 */
export function inProcessOperations(
  principal: Principal & { kind: 'key' },
  deps: InProcessOperationsDeps,
): DocwrightOperations {
  const { projectId } = principal;
  const { jobs, analytics } = deps;

  /** Creating and changing jobs needs `write`, as the API's POST routes do. */
  const mayWrite = () => {
    if (!permits(principal, 'write')) {
      throw new DomainError(
        'forbidden',
        `An API key with scope "${principal.scope}" cannot create jobs or send follow-ups: use an admin key`,
      );
    }
  };
  const checkPrompt = (prompt: string) => {
    if (prompt.length > deps.maxPromptLength) {
      throw invalid(`prompt must be at most ${deps.maxPromptLength} characters`);
    }
  };

  return {
    async createJob(prompt) {
      mayWrite();
      checkPrompt(prompt);
      await deps.rateLimiter.hit(`jobs:${projectId}`);
      return jobs.create(await deps.projects.get(projectId), prompt);
    },
    async followUp(jobId, prompt) {
      mayWrite();
      checkPrompt(prompt);
      await deps.rateLimiter.hit(`jobs:${projectId}`);
      return jobs.message(projectId, jobId, prompt);
    },
    async getJob(jobId) {
      const job = await jobs.get(projectId, jobId);
      return { job, conversation: await jobs.conversation(projectId, jobId) };
    },
    listJobs({ status, q, limit, cursor }) {
      return jobs.list(projectId, { status, q, limit: limit ?? 20, cursor });
    },
    async visitors({ dateFrom, dateTo, limit, offset, verifiedOnly }) {
      // The export's own parser, so the tool accepts and refuses exactly what the API does.
      const parsed = parsePageParams({
        dateFrom,
        dateTo,
        limit: limit === undefined ? undefined : String(limit),
        offset: offset === undefined ? undefined : String(offset),
        verifiedOnly: verifiedOnly === undefined ? undefined : String(verifiedOnly),
      });
      if (!parsed.ok) throw invalid(`Invalid arguments: ${parsed.issues.map((i) => i.message).join('; ')}`);
      await deps.analyticsRateLimiter.hit(`analytics:${projectId}`);
      return pagesJson(await analytics.pages(projectId, 'visitors', parsed.value), 'visitors');
    },
  };
}

/**
 * A domain error's message is meant for the caller, with the status the API would answer (as
 * `docwright mcp` reports it); anything else is internal.
 */
export function describeDomainError(error: unknown): string | null {
  return error instanceof DomainError ? `${error.message} (HTTP ${STATUS_BY_KIND[error.kind]})` : null;
}

import createFetchClient, { type Client } from 'openapi-fetch';
import { DocwrightApiError } from './api-error.ts';
import { type IngestOptions, type IngestResult, ingestEvents, type PageViewEvent } from './ingest.ts';
import type { components, paths } from './openapi-types.ts';
import { type WaitOptions, waitForJob } from './wait-for-job.ts';

export type { IngestOptions, IngestResult, PageViewEvent };
export { DocwrightApiError };

export type Job = components['schemas']['Job'];
export type JobList = components['schemas']['JobList'];
export type Conversation = components['schemas']['Conversation'];
export type JobStatus = Job['status'];
export type ContextRepository = components['schemas']['ContextRepository'];
export type ConnectedContextRepository = components['schemas']['ConnectedContextRepository'];
/** A repository to connect: a git URL or a path on the server, and its branch (default main). */
export type NewContextRepository =
  paths['/v2/agent/{projectId}/context']['post']['requestBody']['content']['application/json'];
export type JobListOptions = NonNullable<paths['/v2/agent/{projectId}/jobs']['get']['parameters']['query']>;
type VisitorsOperation = paths['/v1/analytics/{projectId}/visitors']['get'];
export type VisitorsReport = VisitorsOperation['responses'][200]['content']['application/json'];

/** The visitors export's parameters; dateTo is exclusive. */
export interface VisitorsOptions {
  /** Inclusive start: YYYY-MM-DD (midnight UTC) or an ISO 8601 date-time with offset. */
  dateFrom?: string;
  /** Exclusive end, in the same forms. */
  dateTo?: string;
  /** Rows per page, 1-250 (default 50). */
  limit?: number;
  /** Rows to skip; add limit while hasMore. */
  offset?: number;
  /** Count agents only when verified by their operator's published IP ranges. */
  verifiedOnly?: boolean;
}

export interface ClientOptions {
  /** Where Docwright answers, e.g. https://docwright.example.com. */
  baseUrl: string;
  /** An API key (dw_…); it belongs to one project. */
  apiKey: string;
  /** A fetch of your own (proxies, tests); the global one otherwise. */
  fetch?: typeof globalThis.fetch;
}

export interface DocwrightClient {
  jobs: {
    /** Queues the prompt as the first turn of a new job (201); the job is active. */
    create(projectId: string, prompt: string): Promise<Job>;
    get(projectId: string, id: string): Promise<Job>;
    /** Newest first; follow nextCursor for more. */
    list(projectId: string, options?: JobListOptions): Promise<JobList>;
    /** Queues a follow-up prompt: behind a running turn, or re-opening a finished job. */
    followUp(projectId: string, id: string, prompt: string): Promise<Job>;
    /** Stops pending and running turns and ends the job. */
    archive(projectId: string, id: string): Promise<Job>;
    /** Each turn and every message of the job, oldest first. */
    conversation(projectId: string, id: string): Promise<Conversation>;
  };
  /** The source repositories a project's documentation agent may read (its context). */
  context: {
    /** The connected repositories, by name. */
    list(projectId: string): Promise<ContextRepository[]>;
    /**
     * Connects a repository (an admin key), checked like the project's own: a path must lie
     * under the server's DOCWRIGHT_LOCAL_REPOSITORY_ROOTS. What could not be checked yet (a
     * remote it cannot reach now) comes back in `warnings`.
     */
    add(projectId: string, repository: NewContextRepository): Promise<ConnectedContextRepository>;
    /** Disconnects it (an admin key); a DocwrightApiError with status 404 when none has that name. */
    remove(projectId: string, name: string): Promise<void>;
  };
  analytics: {
    /** Distinct visitors per page, human and AI, over [dateFrom, dateTo). */
    visitors(projectId: string, options?: VisitorsOptions): Promise<VisitorsReport>;
    /**
     * Stores page views (an admin or `ingest` key), in batches of 1,000, each once the server
     * says it is durable; resends a batch whose events all have an id after a "not now" answer
     * or a broken connection. Rejected events come back with their index and reason.
     */
    ingest(
      projectId: string,
      events: readonly PageViewEvent[],
      options?: IngestOptions,
    ): Promise<IngestResult>;
  };
  /**
   * Resolves with the job once it is completed, failed or archived. Follows the job's event
   * stream when the server has one, and polls the job otherwise (or with `events: false`).
   */
  waitForJob(projectId: string, id: string, options?: WaitOptions): Promise<Job>;
  /** The underlying openapi-fetch client, typed by the whole public API, for what is not wrapped here. */
  api: Client<paths>;
}

/** A typed client for Docwright's public API (types generated from its /openapi.json). */
export function createClient(options: ClientOptions): DocwrightClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const authorization = `Bearer ${options.apiKey}`;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const api = createFetchClient<paths>({
    baseUrl,
    headers: { authorization, accept: 'application/json' },
    fetch: (request) => fetchImpl(request),
  });

  /** The body of a success, or a DocwrightApiError with the server's message. */
  const settle = <T>(result: { data?: T; error?: unknown; response: Response }): T => {
    if (result.response.ok && result.data !== undefined) return result.data;
    throw new DocwrightApiError(result.response.status, result.error, result.response.headers);
  };
  const job = (projectId: string, id: string) => ({ params: { path: { projectId, id } } });

  const jobs: DocwrightClient['jobs'] = {
    create: async (projectId, prompt) =>
      settle(
        await api.POST('/v2/agent/{projectId}/job', { params: { path: { projectId } }, body: { prompt } }),
      ),
    get: async (projectId, id) => settle(await api.GET('/v2/agent/{projectId}/job/{id}', job(projectId, id))),
    list: async (projectId, query = {}) =>
      settle(await api.GET('/v2/agent/{projectId}/jobs', { params: { path: { projectId }, query } })),
    followUp: async (projectId, id, prompt) =>
      settle(
        await api.POST('/v2/agent/{projectId}/job/{id}/message', { ...job(projectId, id), body: { prompt } }),
      ),
    archive: async (projectId, id) =>
      settle(await api.POST('/v2/agent/{projectId}/job/{id}/archive', job(projectId, id))),
    conversation: async (projectId, id) =>
      settle(await api.GET('/v2/agent/{projectId}/job/{id}/messages', job(projectId, id))),
  };

  const context: DocwrightClient['context'] = {
    list: async (projectId) =>
      settle(await api.GET('/v2/agent/{projectId}/context', { params: { path: { projectId } } }))
        .repositories,
    add: async (projectId, body) =>
      settle(await api.POST('/v2/agent/{projectId}/context', { params: { path: { projectId } }, body })),
    remove: async (projectId, name) => {
      const { response, error } = await api.DELETE('/v2/agent/{projectId}/context/{name}', {
        params: { path: { projectId, name } },
      });
      // 204: no body to settle.
      if (!response.ok) throw new DocwrightApiError(response.status, error, response.headers);
    },
  };

  const analytics: DocwrightClient['analytics'] = {
    visitors: async (projectId, { dateFrom, dateTo, limit, offset, verifiedOnly } = {}) => {
      // The export takes every parameter as a string (it names the one it cannot read).
      const query: VisitorsOperation['parameters']['query'] = {
        ...(dateFrom !== undefined ? { dateFrom } : {}),
        ...(dateTo !== undefined ? { dateTo } : {}),
        ...(limit !== undefined ? { limit: String(limit) } : {}),
        ...(offset !== undefined ? { offset: String(offset) } : {}),
        ...(verifiedOnly !== undefined ? { verifiedOnly: String(verifiedOnly) } : {}),
      };
      return settle(
        await api.GET('/v1/analytics/{projectId}/visitors', { params: { path: { projectId }, query } }),
      );
    },
    ingest: (projectId, events, ingestOptions) =>
      ingestEvents(
        async (batch, signal) =>
          settle(
            await api.POST('/v1/analytics/{projectId}/events', {
              params: { path: { projectId } },
              body: { events: [...batch] },
              ...(signal ? { signal } : {}),
            }),
          ),
        events,
        ingestOptions,
      ),
  };

  return {
    jobs,
    context,
    analytics,
    api,
    waitForJob: (projectId, id, waitOptions = {}) =>
      waitForJob(
        {
          jobId: id,
          getJob: async (signal) =>
            settle(await api.GET('/v2/agent/{projectId}/job/{id}', { ...job(projectId, id), signal })),
          openEvents: (lastEventId, signal) =>
            fetchImpl(
              `${baseUrl}/v2/agent/${encodeURIComponent(projectId)}/job/${encodeURIComponent(id)}/events`,
              {
                headers: {
                  authorization,
                  accept: 'text/event-stream',
                  ...(lastEventId !== null ? { 'last-event-id': lastEventId } : {}),
                },
                signal,
              },
            ),
        },
        waitOptions,
      ),
  };
}

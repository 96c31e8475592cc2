/**
 * `docwright/client`: a small typed client for Docwright's public API. Its types are generated
 * from the server's /openapi.json (`npm run client:types`); it imports nothing else of the server.
 */
export {
  type ClientOptions,
  type ConnectedContextRepository,
  type ContextRepository,
  type Conversation,
  createClient,
  DocwrightApiError,
  type DocwrightClient,
  type IngestOptions,
  type IngestResult,
  type Job,
  type JobList,
  type JobListOptions,
  type JobStatus,
  type NewContextRepository,
  type PageViewEvent,
  type VisitorsOptions,
  type VisitorsReport,
} from './client.ts';
export type { components, paths } from './openapi-types.ts';
export { DocwrightTimeoutError, type WaitOptions } from './wait-for-job.ts';

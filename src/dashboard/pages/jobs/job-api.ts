/**
 * The jobs pages' server state: the public job API through the session
 * (`/dashboard/api/v2/agent/{projectId}/…`) and the dashboard's own job endpoints
 * (`/dashboard/api/projects/{projectId}/jobs…`), as TanStack Query hooks.
 */
import {
  type InfiniteData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import type { Static } from 'typebox';
import type { DashboardJob, JobChanges } from '../../../http/routes/dashboard-jobs.ts';
import { api, seg } from '../../api/client.ts';
import type { ConversationPayload, JobPayload } from '../../api/types.ts';

export type Job = JobPayload;
export type JobStatus = Job['status'];
export type Conversation = ConversationPayload;
export type Turn = Conversation['turns'][number];
export type Message = Conversation['messages'][number];
/** A job branch's commits, files and diff; `source: 'repository'` for a repository on this machine. */
export type BranchReview = Static<typeof JobChanges>;
// The payloads of the live stream's events (src/http/schemas.ts JobEvent: its Static type
// widens the union, so each is named here from the conversation's own types).
/** `turn`: a turn as in …/messages, and what just happened to it. */
export type TurnEvent = Turn & { change: string };
/** `step`: what the agent said or did in the running turn, before it is stored as a message. */
export type Step = Omit<Message, 'id' | 'role' | 'plan'> & {
  role: Exclude<Message['role'], 'user' | 'plan'>;
};
/** The agent's checklist for a turn (a `plan` message's `plan`). */
export type Plan = NonNullable<Message['plan']>;
export type PlanItem = Plan['items'][number];
/** `plan`: the agent set its plan for the running turn (the whole list; the turn stores its last). */
export interface PlanEvent {
  turn: number;
  items: PlanItem[];
  createdAt: string;
}

/** A row of the dashboard's jobs list: the job, its first prompt as a title, and how many turns it had. */
export type JobRow = Static<typeof DashboardJob>;
export interface JobRowPage {
  jobs: JobRow[];
  nextCursor: string | null;
}

export const JOB_STATUSES: readonly JobStatus[] = ['active', 'completed', 'failed', 'archived'];
/** A job that may still change on its own (a turn pending or running). */
export const isLive = (job: Pick<Job, 'status'>) => job.status === 'active';

const agentPath = (projectId: string) => `/v2/agent/${seg(projectId)}`;
export const jobPath = (projectId: string, jobId: string) => `${agentPath(projectId)}/job/${seg(jobId)}`;
/** The EventSource URL of a job's live events (the public API's twin under the session). */
export const jobEventsUrl = (projectId: string, jobId: string, after: number | null) =>
  `/dashboard/api${jobPath(projectId, jobId)}/events${after === null ? '' : `?lastEventId=${after}`}`;

export const jobKeys = {
  lists: (projectId: string) => ['project', projectId, 'jobs'] as const,
  list: (projectId: string, filter: JobFilter) => ['project', projectId, 'jobs', filter] as const,
  job: (projectId: string, jobId: string) => ['project', projectId, 'job', jobId] as const,
  conversation: (projectId: string, jobId: string) =>
    ['project', projectId, 'job', jobId, 'messages'] as const,
  changes: (projectId: string, jobId: string) => ['project', projectId, 'job', jobId, 'changes'] as const,
};

export interface JobFilter {
  status: JobStatus | null;
  q: string;
}

const PAGE_SIZE = 25;

/**
 * The project's jobs, newest first, a page at a time. While one of the loaded jobs is active
 * the list asks again every few seconds, so statuses change on screen without a reload.
 */
export function useJobList(projectId: string, filter: JobFilter) {
  return useInfiniteQuery({
    queryKey: jobKeys.list(projectId, filter),
    queryFn: ({ pageParam, signal }) => {
      const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
      if (filter.status) query.set('status', filter.status);
      if (filter.q) query.set('q', filter.q);
      if (pageParam) query.set('cursor', pageParam);
      return api.get<JobRowPage>(`/projects/${seg(projectId)}/jobs?${query}`, { signal });
    },
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
    refetchInterval: (query) => (anyLive(query.state.data) ? 3000 : 30_000),
    // Typing in the search box keeps the last results on screen until the new ones arrive.
    placeholderData: (previous) => previous,
  });
}

function anyLive(data: InfiniteData<JobRowPage> | undefined): boolean {
  return data?.pages.some((page) => page.jobs.some(isLive)) ?? false;
}

/** `pollMs`: ask again this often (the live stream failed); false while the stream works. */
export function useJob(projectId: string, jobId: string, pollMs: number | false) {
  return useQuery({
    queryKey: jobKeys.job(projectId, jobId),
    queryFn: ({ signal }) => api.get<Job>(jobPath(projectId, jobId), { signal }),
    refetchInterval: (query) => (pollMs && query.state.data && isLive(query.state.data) ? pollMs : false),
  });
}

export function useConversation(projectId: string, jobId: string, pollMs: number | false, live: boolean) {
  return useQuery({
    queryKey: jobKeys.conversation(projectId, jobId),
    queryFn: ({ signal }) => api.get<Conversation>(`${jobPath(projectId, jobId)}/messages`, { signal }),
    refetchInterval: pollMs && live ? pollMs : false,
  });
}

/** The job branch's commits, files and diff against its base; asked again when the branch changes. */
export function useChanges(projectId: string, jobId: string, enabled: boolean) {
  return useQuery({
    queryKey: jobKeys.changes(projectId, jobId),
    queryFn: ({ signal }) =>
      api.get<BranchReview>(`/projects/${seg(projectId)}/jobs/${seg(jobId)}/changes`, { signal }),
    enabled,
  });
}

export function useCreateJob(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (prompt: string) => api.post<Job>(`${agentPath(projectId)}/job`, { prompt }),
    onSuccess: (job) => {
      queryClient.setQueryData(jobKeys.job(projectId, job.id), job);
      return queryClient.invalidateQueries({ queryKey: jobKeys.lists(projectId) });
    },
  });
}

/** A change to one job (follow-up, archive): the answer is the job as it is now. */
function useJobChange<Input>(projectId: string, jobId: string, call: (input: Input) => Promise<Job>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: (job) => {
      queryClient.setQueryData(jobKeys.job(projectId, jobId), job);
      void queryClient.invalidateQueries({ queryKey: jobKeys.conversation(projectId, jobId) });
      return queryClient.invalidateQueries({ queryKey: jobKeys.lists(projectId) });
    },
  });
}

export const useFollowUp = (projectId: string, jobId: string) =>
  useJobChange(projectId, jobId, (prompt: string) =>
    api.post<Job>(`${jobPath(projectId, jobId)}/message`, { prompt }),
  );

export const useArchive = (projectId: string, jobId: string) =>
  useJobChange(projectId, jobId, () => api.post<Job>(`${jobPath(projectId, jobId)}/archive`));

/** Merges a local repository's job branch into its base branch. */
export function useMerge(projectId: string, jobId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      api.post<{ merged: true; sha: string }>(`/projects/${seg(projectId)}/jobs/${seg(jobId)}/merge`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: jobKeys.changes(projectId, jobId) }),
  });
}

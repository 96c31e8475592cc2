import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, seg } from './client.ts';
import type {
  AutomationChangePayload,
  AutomationListPayload,
  AutomationPayload,
  AutomationRunListPayload,
  CreatedAutomationPayload,
  NewAutomationPayload,
  TriggeredRunPayload,
} from './types.ts';

// The public API's automation routes, through the session (/dashboard/api/v2/…).
const automationsKey = (projectId: string) => ['project', projectId, 'automations'] as const;
const runsKey = (projectId: string, id: string) => ['project', projectId, 'automations', id, 'runs'] as const;
const automationsPath = (projectId: string) => `/v2/agent/${seg(projectId)}/automations`;

export function useAutomations(projectId: string) {
  return useQuery({
    queryKey: automationsKey(projectId),
    queryFn: () => api.get<AutomationListPayload>(automationsPath(projectId)),
    select: (list) => list.automations,
  });
}

export function useCreateAutomation(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewAutomationPayload) =>
      api.post<CreatedAutomationPayload>(automationsPath(projectId), body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: automationsKey(projectId), exact: true }),
  });
}

export function useUpdateAutomation(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, change }: { id: string; change: AutomationChangePayload }) =>
      api.patch<AutomationPayload>(`${automationsPath(projectId)}/${seg(id)}`, change),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: automationsKey(projectId), exact: true }),
  });
}

export function useDeleteAutomation(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete(`${automationsPath(projectId)}/${seg(id)}`),
    onSuccess: (_nothing, id) => {
      // Its runs are gone with it: dropped, not fetched again (which would answer 404).
      queryClient.removeQueries({ queryKey: runsKey(projectId, id) });
      return queryClient.invalidateQueries({ queryKey: automationsKey(projectId), exact: true });
    },
  });
}

export function useRotateHookSecret(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      api.post<CreatedAutomationPayload>(`${automationsPath(projectId)}/${seg(id)}/rotate-secret`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: automationsKey(projectId), exact: true }),
  });
}

export function useTriggerAutomation(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, context }: { id: string; context: string }) =>
      api.post<TriggeredRunPayload>(
        `${automationsPath(projectId)}/${seg(id)}/trigger`,
        context.trim() ? { context } : {},
      ),
    // A refused run (over the daily limit) is listed too.
    onSettled: (_run, _error, { id }) => queryClient.invalidateQueries({ queryKey: runsKey(projectId, id) }),
  });
}

/** The automation's latest runs; polled while one is queued or running, so the list shows the outcome. */
export function useRuns(projectId: string, id: string) {
  return useQuery({
    queryKey: runsKey(projectId, id),
    queryFn: () =>
      api.get<AutomationRunListPayload>(`${automationsPath(projectId)}/${seg(id)}/runs?limit=50`),
    select: (page) => page.runs,
    refetchInterval: (query) =>
      query.state.data?.runs.some((r) => r.status === 'queued' || r.status === 'running') ? 2000 : false,
  });
}

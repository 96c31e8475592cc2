import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, seg } from './client.ts';
import type {
  ConnectedContextRepositoryPayload,
  ContextRepositoryListPayload,
  NewContextRepositoryPayload,
} from './types.ts';

// The public API's connected-repository routes, through the session (/dashboard/api/v2/…).
const contextKey = (projectId: string) => ['project', projectId, 'context'] as const;
const contextPath = (projectId: string) => `/v2/agent/${seg(projectId)}/context`;

export function useContextRepositories(projectId: string) {
  return useQuery({
    queryKey: contextKey(projectId),
    queryFn: () => api.get<ContextRepositoryListPayload>(contextPath(projectId)),
    select: (list) => list.repositories,
  });
}

export function useConnectRepository(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewContextRepositoryPayload) =>
      api.post<ConnectedContextRepositoryPayload>(contextPath(projectId), body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contextKey(projectId) }),
  });
}

/** Disconnects the repository of that name. */
export function useDisconnectRepository(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api.delete(`${contextPath(projectId)}/${seg(name)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contextKey(projectId) }),
  });
}

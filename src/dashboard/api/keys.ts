import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, seg } from './client.ts';
import type { CreatedKeyPayload, KeyInfoPayload, KeyListPayload, NewKeyPayload } from './types.ts';

const keysKey = (projectId: string) => ['project', projectId, 'keys'] as const;
const keysPath = (projectId: string) => `/projects/${seg(projectId)}/keys`;

export function useKeys(projectId: string, enabled = true) {
  return useQuery({
    queryKey: keysKey(projectId),
    queryFn: () => api.get<KeyListPayload>(keysPath(projectId)),
    select: (list) => list.keys,
    enabled,
  });
}

export function useCreateKey(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewKeyPayload) => api.post<CreatedKeyPayload>(keysPath(projectId), body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keysKey(projectId) }),
  });
}

export function useRevokeKey(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (keyId: string) => api.delete<KeyInfoPayload>(`${keysPath(projectId)}/${seg(keyId)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keysKey(projectId) }),
  });
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, seg } from './client.ts';
import type { SettingsChangePayload, SettingsPayload } from './types.ts';

const settingsKey = (projectId: string) => ['project', projectId, 'settings'] as const;
const settingsPath = (projectId: string) => `/projects/${seg(projectId)}/settings`;

export function useSettings(projectId: string) {
  return useQuery({
    queryKey: settingsKey(projectId),
    queryFn: () => api.get<SettingsPayload>(settingsPath(projectId)),
  });
}

export function useUpdateSettings(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SettingsChangePayload) => api.patch<SettingsPayload>(settingsPath(projectId), body),
    onSuccess: (settings) => queryClient.setQueryData(settingsKey(projectId), settings),
  });
}

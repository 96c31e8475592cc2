import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, seg } from './client.ts';
import type {
  CheckedProjectPayload,
  NewProjectPayload,
  ProjectChangePayload,
  ProjectListPayload,
  ProjectPayload,
} from './types.ts';

export const projectsKey = ['projects'] as const;

export function useProjects() {
  return useQuery({
    queryKey: projectsKey,
    queryFn: () => api.get<ProjectListPayload>('/projects'),
    select: (list) => list.projects,
  });
}

export function useProject(projectId: string) {
  return useQuery({
    queryKey: [...projectsKey, projectId],
    queryFn: () => api.get<ProjectPayload>(`/projects/${seg(projectId)}`),
  });
}

export function useCreateProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewProjectPayload) => api.post<CheckedProjectPayload>('/projects', body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: projectsKey }),
  });
}

export function useUpdateProject(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ProjectChangePayload) =>
      api.patch<CheckedProjectPayload>(`/projects/${seg(projectId)}`, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: projectsKey }),
  });
}

export function useDeleteProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (projectId: string) => api.delete(`/projects/${seg(projectId)}`),
    onSuccess: (_result, projectId) => {
      queryClient.removeQueries({ queryKey: ['project', projectId] });
      return queryClient.invalidateQueries({ queryKey: projectsKey });
    },
  });
}

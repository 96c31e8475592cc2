import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, seg } from './client.ts';
import type {
  CreatedWebhookPayload,
  NewWebhookPayload,
  WebhookChangesPayload,
  WebhookDeliveryListPayload,
  WebhookDeliveryPayload,
  WebhookEndpointListPayload,
  WebhookEndpointPayload,
} from './types.ts';

// The public API's webhook routes, through the session (/dashboard/api/v2/…).
const webhooksKey = (projectId: string) => ['project', projectId, 'webhooks'] as const;
const deliveriesKey = (projectId: string, id: string) => ['project', projectId, 'webhooks', id] as const;
const webhooksPath = (projectId: string) => `/v2/agent/${seg(projectId)}/webhooks`;

export function useWebhooks(projectId: string) {
  return useQuery({
    queryKey: webhooksKey(projectId),
    queryFn: () => api.get<WebhookEndpointListPayload>(webhooksPath(projectId)),
    select: (list) => list.webhooks,
  });
}

export function useCreateWebhook(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewWebhookPayload) => api.post<CreatedWebhookPayload>(webhooksPath(projectId), body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhooksKey(projectId), exact: true }),
  });
}

export function useUpdateWebhook(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, changes }: { id: string; changes: WebhookChangesPayload }) =>
      api.patch<WebhookEndpointPayload>(`${webhooksPath(projectId)}/${seg(id)}`, changes),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhooksKey(projectId), exact: true }),
  });
}

/** A new signing secret (in the answer, once); the old one still signs for 24 hours. */
export function useRotateSecret(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      api.post<CreatedWebhookPayload>(`${webhooksPath(projectId)}/${seg(id)}/rotate-secret`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhooksKey(projectId), exact: true }),
  });
}

export function useDeleteWebhook(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete(`${webhooksPath(projectId)}/${seg(id)}`),
    onSuccess: (_nothing, id) => {
      // Its log is gone with it: dropped, not fetched again (which would answer 404).
      queryClient.removeQueries({ queryKey: deliveriesKey(projectId, id) });
      return queryClient.invalidateQueries({ queryKey: webhooksKey(projectId), exact: true });
    },
  });
}

/** The endpoint's latest deliveries; polled while any is pending, so the log shows the outcome. */
export function useDeliveries(projectId: string, id: string) {
  return useQuery({
    queryKey: deliveriesKey(projectId, id),
    queryFn: () => api.get<WebhookDeliveryListPayload>(`${webhooksPath(projectId)}/${seg(id)}/deliveries`),
    select: (list) => list.deliveries,
    refetchInterval: (query) =>
      query.state.data?.deliveries.some((d) => d.status === 'pending') ? 2000 : false,
  });
}

export function useSendTest(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      api.post<WebhookDeliveryPayload>(`${webhooksPath(projectId)}/${seg(id)}/test`),
    onSuccess: (_delivery, id) => queryClient.invalidateQueries({ queryKey: deliveriesKey(projectId, id) }),
  });
}

export function useResend(projectId: string, id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) =>
      api.post<WebhookDeliveryPayload>(
        `${webhooksPath(projectId)}/${seg(id)}/deliveries/${seg(deliveryId)}/resend`,
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: deliveriesKey(projectId, id) }),
  });
}

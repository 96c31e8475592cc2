import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../storage/schema.ts';
import type { DeliveredEventType, WebhookEventType } from './event-types.ts';

/** An endpoint as the API returns it: never its secret. */
export interface WebhookEndpointView {
  id: string;
  url: string;
  events: WebhookEventType[];
  /** False when paused: new events are not queued for it. */
  enabled: boolean;
  /** Until when the secret replaced by the last rotation still signs deliveries; null if none. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string | null;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One delivery in the endpoint's log. */
export interface WebhookDeliveryView {
  id: string;
  eventId: string;
  type: DeliveredEventType;
  status: DeliveryStatus;
  attempts: number;
  /** When a pending delivery is tried next; null once it succeeded or failed. */
  nextAttemptAt: string | null;
  lastResponseCode: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
}

export function toEndpointView(row: WebhookEndpointRow, now: Date): WebhookEndpointView {
  const overlap =
    row.previous_secret !== null &&
    row.previous_secret_expires_at !== null &&
    Date.parse(row.previous_secret_expires_at) > now.getTime();
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookEventType[],
    enabled: row.enabled === 1,
    previousSecretExpiresAt: overlap ? row.previous_secret_expires_at : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toDeliveryView(row: WebhookDeliveryRow): WebhookDeliveryView {
  return {
    id: row.id,
    eventId: row.event_id,
    type: row.type as DeliveredEventType,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    lastResponseCode: row.last_response_code,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deliveredAt: row.delivered_at,
  };
}

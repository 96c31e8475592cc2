import type { Executor } from '../../storage/queries/executor.ts';
import { insertWebhookDeliveries } from '../../storage/queries/webhook-deliveries.ts';
import { listWebhookEndpoints } from '../../storage/queries/webhook-endpoints.ts';
import type { NewWebhookDeliveryRow, WebhookDeliveryRow, WebhookEndpointRow } from '../../storage/schema.ts';
import { newId } from '../ids.ts';
import type { DeliveredEventType, WebhookEventType } from './event-types.ts';

/** An event to announce to a project's endpoints. */
export interface WebhookEvent {
  projectId: string;
  type: WebhookEventType;
  /** `data` of the body: for job events, `{ job }` with the job as `GET …/job/{id}` returns it. */
  data: unknown;
}

/** The JSON body every attempt of a delivery sends, byte for byte. */
export interface WebhookBody {
  id: string;
  type: DeliveredEventType;
  createdAt: string;
  data: unknown;
}

/**
 * Writes one delivery per subscribed endpoint for each event, inside the caller's
 * transaction (the transactional outbox: the deliveries commit or roll back with the change
 * they report). Each event gets one id, the same in every endpoint's body, so a receiver can
 * tell a redelivery from a new event. Nothing is sent here: a worker process sends due rows.
 */
export async function enqueueWebhookEvents(
  tx: Executor,
  events: readonly WebhookEvent[],
  at: string,
): Promise<void> {
  if (events.length === 0) return;
  const endpointsOf = new Map<string, WebhookEndpointRow[]>();
  const rows: NewWebhookDeliveryRow[] = [];
  for (const event of events) {
    let endpoints = endpointsOf.get(event.projectId);
    if (!endpoints) {
      endpoints = await listWebhookEndpoints(tx, event.projectId);
      endpointsOf.set(event.projectId, endpoints);
    }
    // A paused endpoint is not given new events (they are skipped, not held back).
    const subscribed = endpoints.filter(
      (e) => e.enabled === 1 && (JSON.parse(e.events) as string[]).includes(event.type),
    );
    if (subscribed.length === 0) continue;
    const body = webhookBody(event.type, event.data, at);
    for (const endpoint of subscribed) rows.push(deliveryRow(endpoint, body, at));
  }
  await insertWebhookDeliveries(tx, rows);
}

export function webhookBody(type: DeliveredEventType, data: unknown, at: string): WebhookBody {
  return { id: newId('evt'), type, createdAt: at, data };
}

/** A pending delivery of `body` to the endpoint, due at once. */
export function deliveryRow(
  endpoint: Pick<WebhookEndpointRow, 'id' | 'project_id'>,
  body: WebhookBody,
  at: string,
): WebhookDeliveryRow {
  return {
    id: newId('whd'),
    endpoint_id: endpoint.id,
    project_id: endpoint.project_id,
    event_id: body.id,
    type: body.type,
    body: JSON.stringify(body),
    status: 'pending',
    attempts: 0,
    next_attempt_at: at,
    retry_from: at,
    lease_owner: null,
    lease_expires_at: null,
    last_response_code: null,
    last_error: null,
    created_at: at,
    updated_at: at,
    delivered_at: null,
  };
}

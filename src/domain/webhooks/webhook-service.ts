import { randomBytes } from 'node:crypto';
import type { Storage } from '../../storage/database.ts';
import {
  findWebhookDelivery,
  insertWebhookDeliveries,
  listWebhookDeliveries,
  requeueWebhookDelivery,
} from '../../storage/queries/webhook-deliveries.ts';
import {
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpoints,
  updateWebhookEndpoint,
  type WebhookEndpointChanges,
} from '../../storage/queries/webhook-endpoints.ts';
import type { WebhookEndpointRow } from '../../storage/schema.ts';
import { type Clock, iso } from '../clock.ts';
import { conflict, invalid, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import type { OutboundPolicy } from '../network/outbound-policy.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { checkEndpointUrl } from './endpoint-url.ts';
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES, type WebhookEventType } from './event-types.ts';
import { deliveryRow, webhookBody } from './outbox.ts';
import {
  toDeliveryView,
  toEndpointView,
  type WebhookDeliveryView,
  type WebhookEndpointView,
} from './webhook-views.ts';

/** How long the secret replaced by a rotation keeps signing deliveries beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Endpoints one project may have: enough for every consumer, few enough to bound each event's fan-out. */
export const MAX_ENDPOINTS_PER_PROJECT = 20;

export interface CreatedWebhook extends WebhookEndpointView {
  /** The signing secret: returned once, at creation or rotation; stored only sealed. */
  secret: string;
}

/** What an update may change; what is left out stays as it is. */
export interface WebhookUpdate {
  url?: string;
  events?: string[];
  enabled?: boolean;
}

export interface WebhookServiceDeps {
  storage: Storage;
  clock: Clock;
  /** Seals the signing secrets; null when DOCWRIGHT_SECRET_KEY is not set (endpoints cannot be created). */
  box: SecretBox | null;
  /** The outgoing-network policy: a URL with a literal IP it refuses is refused at once. */
  network: OutboundPolicy;
  /** Told when a delivery was queued by hand (test, resend), to wake a sender in this process. */
  onQueued?: () => void;
}

/** The sealed secret is bound to its endpoint: copied to another row, it does not open. */
export const secretContext = (endpointId: string) => `webhook:${endpointId}`;

// Rotations that lost the compare-and-set to another one at the same time are retried this often.
const MAX_ROTATION_ATTEMPTS = 5;

/** A project's webhook endpoints and their delivery logs. */
export class WebhookService {
  private readonly deps: WebhookServiceDeps;
  constructor(deps: WebhookServiceDeps) {
    this.deps = deps;
  }

  async create(projectId: string, input: { url: string; events?: string[] }): Promise<CreatedWebhook> {
    const { box } = this.deps;
    const url = checkEndpointUrl(input.url, this.deps.network);
    const events = checkEvents(input.events);
    if (!box) {
      throw invalid(
        'Cannot create a webhook: DOCWRIGHT_SECRET_KEY is not configured, and the signing secret is stored encrypted with it. Set it (a passphrase of 16+ characters, or base64:<32 random bytes>) and restart.',
      );
    }
    const existing = await listWebhookEndpoints(this.deps.storage.db, projectId);
    if (existing.length >= MAX_ENDPOINTS_PER_PROJECT) {
      throw conflict(
        `A project has at most ${MAX_ENDPOINTS_PER_PROJECT} webhook endpoints; delete one first`,
      );
    }
    const id = newId('whk');
    const secret = newSecret();
    const now = this.deps.clock();
    const row: WebhookEndpointRow = {
      id,
      project_id: projectId,
      url,
      events: JSON.stringify(events),
      secret: box.seal(secret, secretContext(id)),
      enabled: 1,
      previous_secret: null,
      previous_secret_expires_at: null,
      created_at: iso(now),
      updated_at: null,
    };
    await insertWebhookEndpoint(this.deps.storage.db, row);
    return { ...toEndpointView(row, now), secret };
  }

  async list(projectId: string): Promise<WebhookEndpointView[]> {
    const now = this.deps.clock();
    return (await listWebhookEndpoints(this.deps.storage.db, projectId)).map((r) => toEndpointView(r, now));
  }

  /**
   * Changes the URL, the events or the enabled flag, checked as at creation. Deliveries
   * already queued keep their body and go to the endpoint's URL at the time they are sent.
   */
  async update(projectId: string, id: string, input: WebhookUpdate): Promise<WebhookEndpointView> {
    await this.endpoint(projectId, id);
    const now = this.deps.clock();
    const changes: WebhookEndpointChanges = { updated_at: iso(now) };
    if (input.url !== undefined) {
      changes.url = checkEndpointUrl(input.url, this.deps.network);
    }
    if (input.events !== undefined) changes.events = JSON.stringify(checkEvents(input.events));
    if (input.enabled !== undefined) changes.enabled = input.enabled ? 1 : 0;
    const row = await updateWebhookEndpoint(this.deps.storage.db, projectId, id, changes);
    if (!row) throw missing(projectId, id);
    return toEndpointView(row, now);
  }

  /**
   * Replaces the signing secret with a new one, returned this once. The replaced secret keeps
   * signing beside it for ROTATION_OVERLAP_MS (two v1 values per delivery), so a receiver can
   * switch without losing events. Rotating again during the overlap drops the oldest secret.
   */
  async rotateSecret(projectId: string, id: string): Promise<CreatedWebhook> {
    const { box } = this.deps;
    if (!box) {
      throw invalid(
        'Cannot rotate the secret: DOCWRIGHT_SECRET_KEY is not configured, and signing secrets are stored encrypted with it.',
      );
    }
    // Compare-and-set on the sealed secret (a fresh nonce each time, so never repeated): two
    // rotations at once must not both keep the same old secret, losing the first one's answer.
    for (let attempt = 0; attempt < MAX_ROTATION_ATTEMPTS; attempt++) {
      const endpoint = await this.endpoint(projectId, id);
      const now = this.deps.clock();
      const secret = newSecret();
      const changes = {
        secret: box.seal(secret, secretContext(endpoint.id)),
        previous_secret: endpoint.secret,
        previous_secret_expires_at: iso(new Date(now.getTime() + ROTATION_OVERLAP_MS)),
        updated_at: iso(now),
      };
      const row = await updateWebhookEndpoint(this.deps.storage.db, projectId, id, changes, endpoint.secret);
      if (row) return { ...toEndpointView(row, now), secret };
    }
    throw conflict('The secret was being rotated by another request at the same time; try again');
  }

  /** Removes the endpoint with its deliveries, sent or not. */
  async delete(projectId: string, id: string): Promise<void> {
    if (!(await deleteWebhookEndpoint(this.deps.storage.db, projectId, id))) throw missing(projectId, id);
  }

  /** Queues a `webhook.test` event to this endpoint only; the delivery shows in its log. */
  async test(projectId: string, id: string): Promise<WebhookDeliveryView> {
    const endpoint = await this.endpoint(projectId, id);
    const at = iso(this.deps.clock());
    const body = webhookBody(
      TEST_EVENT_TYPE,
      { message: 'A test event from Docwright: your endpoint receives and verifies webhooks.' },
      at,
    );
    const row = deliveryRow(endpoint, body, at);
    await insertWebhookDeliveries(this.deps.storage.db, [row]);
    this.deps.onQueued?.();
    return toDeliveryView(row);
  }

  /** The endpoint's latest deliveries, newest first. */
  async deliveries(projectId: string, id: string, limit: number): Promise<WebhookDeliveryView[]> {
    const endpoint = await this.endpoint(projectId, id);
    return (await listWebhookDeliveries(this.deps.storage.db, endpoint.id, limit)).map(toDeliveryView);
  }

  /**
   * Sends a delivery again, whatever its status, with the same body (so the same event id),
   * due now and with a fresh retry window.
   */
  async resend(projectId: string, id: string, deliveryId: string): Promise<WebhookDeliveryView> {
    const endpoint = await this.endpoint(projectId, id);
    const { db } = this.deps.storage;
    if (!(await findWebhookDelivery(db, endpoint.id, deliveryId))) {
      throw notFound(`Delivery ${deliveryId} not found for webhook ${id}`);
    }
    const now = iso(this.deps.clock());
    const row = await requeueWebhookDelivery(db, deliveryId, { now, retryFrom: now });
    if (!row) throw notFound(`Delivery ${deliveryId} not found for webhook ${id}`);
    this.deps.onQueued?.();
    return toDeliveryView(row);
  }

  private async endpoint(projectId: string, id: string): Promise<WebhookEndpointRow> {
    const row = await findWebhookEndpoint(this.deps.storage.db, projectId, id);
    if (!row) throw missing(projectId, id);
    return row;
  }
}

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

function missing(projectId: string, id: string) {
  return notFound(`Webhook ${id} not found in project ${projectId}`);
}

/** The event types asked for (all of them when absent), each once, in the documented order. */
function checkEvents(events: string[] | undefined): WebhookEventType[] {
  if (events === undefined) return [...WEBHOOK_EVENT_TYPES];
  if (events.length === 0) throw invalid('events must name at least one event type (or be left out for all)');
  const unknown = events.filter((e) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length > 0) {
    throw invalid(
      `events: unknown event type ${unknown.map((e) => `"${e}"`).join(', ')}; known: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
    );
  }
  return WEBHOOK_EVENT_TYPES.filter((type) => events.includes(type));
}

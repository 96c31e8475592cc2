import type { Logger } from 'pino';
import type { Storage } from '../../storage/database.ts';
import {
  claimDueWebhookDeliveries,
  deleteSettledWebhookDeliveries,
  settleWebhookDelivery,
} from '../../storage/queries/webhook-deliveries.ts';
import { findWebhookEndpointsById } from '../../storage/queries/webhook-endpoints.ts';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../storage/schema.ts';
import { type Clock, iso } from '../clock.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { nextAttemptAt, type RetryPolicy } from './backoff.ts';
import { signatureHeader } from './signature.ts';
import type { WebhookTransport } from './transport.ts';
import { secretContext } from './webhook-service.ts';

export interface DispatcherSettings {
  /** Deliveries sent at once by this process. */
  concurrency: number;
  /** An answer must come within this, or the attempt failed. */
  timeoutMs: number;
  /** How often an idle sender looks for due deliveries. */
  pollIntervalMs: number;
  retry: RetryPolicy;
  retention: RetentionSettings;
}

export interface RetentionSettings {
  /** Succeeded and failed deliveries last changed longer ago than this are deleted. */
  keepMs: number;
  /** How often the sender's loop deletes them. */
  everyMs: number;
  /** Rows deleted per statement, so no statement holds the table for long. */
  batchSize: number;
}

/** The defaults besides the retention itself: once an hour, 500 rows at a time. */
export const RETENTION_EVERY_MS = 60 * 60 * 1000;
export const RETENTION_BATCH_SIZE = 500;
/** Batches in one pass at most; what is left waits for the next pass. */
const RETENTION_MAX_BATCHES = 100;

export interface DispatcherDeps {
  storage: Storage;
  clock: Clock;
  box: SecretBox | null;
  transport: WebhookTransport;
  logger: Logger;
  settings: DispatcherSettings;
  /** Names this process in the leases it takes. */
  owner: string;
  userAgent: string;
}

const MAX_ERROR_LENGTH = 500;
const LEASE_MARGIN_MS = 5_000;

/**
 * Sends the outbox: claims due deliveries with a lease (so one process sends each, and a
 * process that died mid-way leaves them to another once the lease expires), signs and POSTs
 * them, and records each outcome: succeeded on a 2xx, else retried with backoff until the
 * retry window closes, then failed. At least once: an answer that arrives but is not
 * recorded (the process died in between) is sent again.
 */
export class WebhookDispatcher {
  private readonly deps: DispatcherDeps;
  private readonly log: Logger;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private woken = false;
  private lastPrunedAt = Number.NEGATIVE_INFINITY;

  constructor(deps: DispatcherDeps) {
    this.deps = deps;
    this.log = deps.logger.child({ component: 'webhooks' });
  }

  start(): void {
    if (this.loop) return;
    this.running = true;
    this.loop = this.runLoop();
  }

  /** Stops claiming; waits for the deliveries in flight (each bounded by the timeout). */
  async stop(): Promise<void> {
    if (!this.loop) return;
    this.running = false;
    this.notify();
    await this.loop;
    this.loop = null;
  }

  /** Looks for due deliveries now rather than at the next poll. */
  notify(): void {
    this.woken = true;
    this.wake?.();
  }

  /** Claims one batch of due deliveries and sends them; returns how many it claimed. */
  async sendDue(): Promise<number> {
    const batch = await this.claim(this.deps.settings.concurrency);
    await Promise.all(batch.map(([delivery, endpoint]) => this.attempt(delivery, endpoint)));
    return batch.length;
  }

  /**
   * Deletes succeeded and failed deliveries older than the retention (by their last change),
   * in batches, oldest first; pending ones never. Returns how many it deleted.
   */
  async prune(): Promise<number> {
    const { storage, clock, settings } = this.deps;
    const before = iso(new Date(clock().getTime() - settings.retention.keepMs));
    let deleted = 0;
    for (let i = 0; i < RETENTION_MAX_BATCHES; i++) {
      const n = await deleteSettledWebhookDeliveries(storage.db, before, settings.retention.batchSize);
      deleted += n;
      // A stopping sender leaves the rest to the next pass.
      if (n < settings.retention.batchSize || (this.loop !== null && !this.running)) break;
      // Let the sender and the API in between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (deleted > 0) this.log.info({ deleted, before }, 'old webhook deliveries deleted');
    return deleted;
  }

  /** Runs prune() when a retention interval has passed since the last pass (at start, first). */
  private async pruneWhenDue(): Promise<void> {
    const now = this.deps.clock().getTime();
    if (now - this.lastPrunedAt < this.deps.settings.retention.everyMs) return;
    this.lastPrunedAt = now;
    try {
      await this.prune();
    } catch (error) {
      this.log.error({ err: error }, 'deleting old webhook deliveries failed; retrying at the next pass');
    }
  }

  /** Leases up to `limit` due deliveries, each with its endpoint. */
  private async claim(limit: number): Promise<Array<[WebhookDeliveryRow, WebhookEndpointRow]>> {
    const { storage, clock, settings } = this.deps;
    const now = clock();
    // A lease outlives the longest attempt (the timeout) and the write of its outcome, so it
    // expires only when its process is gone; another process then sends the delivery again.
    const leaseUntil = iso(new Date(now.getTime() + settings.timeoutMs + LEASE_MARGIN_MS));
    const claimed = await claimDueWebhookDeliveries(storage.db, storage.dialect, {
      owner: this.deps.owner,
      now: iso(now),
      leaseUntil,
      limit,
    });
    if (claimed.length === 0) return [];
    const ids = [...new Set(claimed.map((d) => d.endpoint_id))];
    const endpoints = new Map((await findWebhookEndpointsById(storage.db, ids)).map((e) => [e.id, e]));
    // An endpoint deleted meanwhile took its deliveries with it.
    return claimed.flatMap((d) => {
      const endpoint = endpoints.get(d.endpoint_id);
      return endpoint ? [[d, endpoint] as [WebhookDeliveryRow, WebhookEndpointRow]] : [];
    });
  }

  /** Keeps up to `concurrency` deliveries in flight, so one slow receiver does not hold up the rest. */
  private async runLoop(): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    const { concurrency } = this.deps.settings;
    while (this.running) {
      await this.pruneWhenDue();
      if (inFlight.size >= concurrency) {
        await Promise.race(inFlight);
        continue;
      }
      let batch: Array<[WebhookDeliveryRow, WebhookEndpointRow]> = [];
      try {
        batch = await this.claim(concurrency - inFlight.size);
      } catch (error) {
        this.log.error({ err: error }, 'claiming webhook deliveries failed; retrying');
      }
      for (const [delivery, endpoint] of batch) {
        const sending: Promise<void> = this.attempt(delivery, endpoint)
          .catch((error: unknown) =>
            this.log.error({ err: error, deliveryId: delivery.id }, 'webhook attempt failed'),
          )
          .finally(() => {
            inFlight.delete(sending);
            // A free slot: look for more at once.
            this.notify();
          });
        inFlight.add(sending);
      }
      if (batch.length === 0 && this.running) await this.idle();
    }
    await Promise.all(inFlight);
  }

  private idle(): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.deps.settings.pollIntervalMs);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        self.woken = false;
        resolve();
      }
      this.wake = done;
    });
  }

  private async attempt(delivery: WebhookDeliveryRow, endpoint: WebhookEndpointRow): Promise<void> {
    const { clock, settings, transport, box } = this.deps;
    let status: number | null = null;
    let error: string | null = null;
    try {
      if (!box)
        throw new Error('DOCWRIGHT_SECRET_KEY is not configured: the signing secret cannot be opened');
      const now = clock();
      const secrets = [box.open(endpoint.secret, secretContext(endpoint.id))];
      // For a while after a rotation the replaced secret signs too, so receivers can switch.
      if (
        endpoint.previous_secret &&
        endpoint.previous_secret_expires_at &&
        Date.parse(endpoint.previous_secret_expires_at) > now.getTime()
      ) {
        secrets.push(box.open(endpoint.previous_secret, secretContext(endpoint.id)));
      }
      const response = await transport.post({
        url: endpoint.url,
        body: delivery.body,
        timeoutMs: settings.timeoutMs,
        headers: {
          'content-type': 'application/json',
          'user-agent': this.deps.userAgent,
          'docwright-delivery': delivery.id,
          'docwright-event': delivery.type,
          'docwright-signature': signatureHeader(secrets, delivery.body, now.getTime() / 1000),
        },
      });
      status = response.status;
      if (status >= 300 && status < 400) {
        error = `Redirect (${status}${response.location ? ` to ${response.location}` : ''}) not followed: give the final URL`;
      } else if (status < 200 || status >= 300) error = `Answered ${status}`;
    } catch (thrown) {
      error = thrown instanceof Error ? thrown.message : String(thrown);
    }
    const now = clock();
    const attempts = delivery.attempts + 1;
    const succeeded = error === null;
    const next = succeeded
      ? null
      : nextAttemptAt(settings.retry, attempts, now.getTime(), Date.parse(delivery.retry_from));
    const settled = await settleWebhookDelivery(
      this.deps.storage.db,
      { id: delivery.id, owner: this.deps.owner },
      {
        status: succeeded ? 'succeeded' : next === null ? 'failed' : 'pending',
        attempts,
        next_attempt_at: next === null ? null : iso(new Date(next)),
        last_response_code: status,
        last_error: error === null ? null : error.slice(0, MAX_ERROR_LENGTH),
        updated_at: iso(now),
        ...(succeeded ? { delivered_at: iso(now) } : {}),
      },
    );
    const fields = {
      deliveryId: delivery.id,
      endpointId: endpoint.id,
      type: delivery.type,
      attempts,
      status,
    };
    if (!settled) this.log.warn(fields, 'webhook delivery lease lost before its outcome was recorded');
    else if (succeeded) this.log.debug(fields, 'webhook delivered');
    else this.log.info({ ...fields, error, final: next === null }, 'webhook delivery attempt failed');
  }
}

import type { Dialect } from '../database.ts';
import type { NewWebhookDeliveryRow, WebhookDeliveryRow } from '../schema.ts';
import type { Executor } from './executor.ts';

export async function insertWebhookDeliveries(db: Executor, rows: NewWebhookDeliveryRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('webhook_deliveries').values(rows).execute();
}

/** The endpoint's deliveries, newest first, at most `limit`. */
export function listWebhookDeliveries(
  db: Executor,
  endpointId: string,
  limit: number,
): Promise<WebhookDeliveryRow[]> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export function findWebhookDelivery(
  db: Executor,
  endpointId: string,
  id: string,
): Promise<WebhookDeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Leases up to `limit` pending deliveries that are due and not leased by a live sender, in
 * one statement: on PostgreSQL the candidates are locked with SKIP LOCKED, so concurrent
 * senders never take the same row; SQLite runs one writer at a time, which gives the same.
 */
export function claimDueWebhookDeliveries(
  db: Executor,
  dialect: Dialect,
  claim: { owner: string; now: string; leaseUntil: string; limit: number },
): Promise<WebhookDeliveryRow[]> {
  const candidates = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', claim.now)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', claim.now)]))
    .orderBy('next_attempt_at')
    .limit(claim.limit)
    .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked());
  return db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: claim.owner, lease_expires_at: claim.leaseUntil })
    .where('id', 'in', candidates)
    .returningAll()
    .execute();
}

/** Records an attempt's outcome if `owner` still holds the delivery's lease; false otherwise. */
export async function settleWebhookDelivery(
  db: Executor,
  lease: { id: string; owner: string },
  changes: Pick<
    WebhookDeliveryRow,
    'status' | 'attempts' | 'next_attempt_at' | 'last_response_code' | 'last_error' | 'updated_at'
  > & { delivered_at?: string | null },
): Promise<boolean> {
  const row = await db
    .updateTable('webhook_deliveries')
    .set({ ...changes, lease_owner: null, lease_expires_at: null })
    .where('id', '=', lease.id)
    .where('lease_owner', '=', lease.owner)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Puts a delivery back in the queue, due now, with a fresh retry window; its attempts keep counting. */
export function requeueWebhookDelivery(
  db: Executor,
  id: string,
  times: { now: string; retryFrom: string },
): Promise<WebhookDeliveryRow | undefined> {
  return db
    .updateTable('webhook_deliveries')
    .set({
      status: 'pending',
      next_attempt_at: times.now,
      retry_from: times.retryFrom,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: times.now,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Deletes up to `limit` succeeded or failed deliveries last changed before `before`, oldest
 * first; never a pending one. Returns how many it deleted.
 */
export async function deleteSettledWebhookDeliveries(
  db: Executor,
  before: string,
  limit: number,
): Promise<number> {
  const batch = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', 'in', ['succeeded', 'failed'])
    .where('updated_at', '<', before)
    .orderBy('updated_at')
    .limit(limit);
  const result = await db.deleteFrom('webhook_deliveries').where('id', 'in', batch).executeTakeFirst();
  return Number(result.numDeletedRows);
}

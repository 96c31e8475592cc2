import type { WebhookEndpointRow } from '../schema.ts';
import type { Executor } from './executor.ts';

export async function insertWebhookEndpoint(db: Executor, row: WebhookEndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

/** The project's endpoints, oldest first. */
export function listWebhookEndpoints(db: Executor, projectId: string): Promise<WebhookEndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findWebhookEndpoint(
  db: Executor,
  projectId: string,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Endpoints by id, whatever their project (the sender opens each delivery's endpoint). */
export function findWebhookEndpointsById(
  db: Executor,
  ids: readonly string[],
): Promise<WebhookEndpointRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', ids).execute();
}

/** Deletes the endpoint and (by cascade) its deliveries; false when there was none. */
export async function deleteWebhookEndpoint(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The columns an endpoint update may change. */
export type WebhookEndpointChanges = Partial<
  Pick<
    WebhookEndpointRow,
    'url' | 'events' | 'enabled' | 'secret' | 'previous_secret' | 'previous_secret_expires_at'
  >
> & { updated_at: string };

/**
 * Changes the endpoint; its row afterwards, or undefined when there is none or, with
 * `ifSecret`, when its sealed secret is no longer that one (compare-and-set).
 */
export function updateWebhookEndpoint(
  db: Executor,
  projectId: string,
  id: string,
  changes: WebhookEndpointChanges,
  ifSecret?: string,
): Promise<WebhookEndpointRow | undefined> {
  let query = db
    .updateTable('webhook_endpoints')
    .set(changes)
    .where('project_id', '=', projectId)
    .where('id', '=', id);
  if (ifSecret !== undefined) query = query.where('secret', '=', ifSecret);
  return query.returningAll().executeTakeFirst();
}

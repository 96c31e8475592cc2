import type { Kysely } from 'kysely';

/**
 * Webhook endpoint changes and signing-secret rotation. `enabled` pauses an endpoint (1 or 0;
 * existing endpoints stay enabled). After a rotation the replaced secret is kept, sealed like
 * the current one (bound to the endpoint id), until `previous_secret_expires_at`: until then
 * each delivery is signed with both, so receivers can switch without losing events. The worker
 * deletes settled deliveries older than the retention, found by status and last change.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_expires_at', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('updated_at', 'text').execute();
  await db.schema
    .createIndex('webhook_deliveries_settled_idx')
    .on('webhook_deliveries')
    .columns(['status', 'updated_at'])
    .execute();
}

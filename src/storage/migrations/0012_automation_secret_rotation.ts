import type { Kysely } from 'kysely';

/**
 * Rotating a code-change automation's webhook secret. The replaced secret is kept, sealed like
 * the current one (bound to the automation id), until `previous_webhook_secret_expires_at`:
 * until then a webhook signed with either is accepted, so the host's settings can be changed
 * after the rotation without refusing the deliveries sent meanwhile.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('automations').addColumn('previous_webhook_secret', 'text').execute();
  await db.schema.alterTable('automations').addColumn('previous_webhook_secret_expires_at', 'text').execute();
}

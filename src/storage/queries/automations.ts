import type { AutomationRow, AutomationUpdate } from '../schema.ts';
import type { Executor } from './executor.ts';

export async function insertAutomation(db: Executor, row: AutomationRow): Promise<void> {
  await db.insertInto('automations').values(row).execute();
}

/** The project's automations, oldest first. */
export function listAutomations(db: Executor, projectId: string): Promise<AutomationRow[]> {
  return db
    .selectFrom('automations')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findAutomation(
  db: Executor,
  projectId: string,
  id: string,
): Promise<AutomationRow | undefined> {
  return db
    .selectFrom('automations')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Enabled automations with this trigger kind, in every project (the scheduler's list), or in one. */
export function listEnabledAutomations(
  db: Executor,
  triggerKind: string,
  projectId?: string,
): Promise<AutomationRow[]> {
  return db
    .selectFrom('automations')
    .selectAll()
    .where('trigger_kind', '=', triggerKind)
    .where('enabled', '=', 1)
    .$if(projectId !== undefined, (qb) => qb.where('project_id', '=', projectId as string))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function updateAutomation(
  db: Executor,
  projectId: string,
  id: string,
  changes: AutomationUpdate,
): Promise<AutomationRow | undefined> {
  return db
    .updateTable('automations')
    .set(changes)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the automation with its runs and slots (by cascade); false when there was none. */
export async function deleteAutomation(db: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('automations')
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Replaces the webhook secret only if it is still `expectedSecret` (compare and swap): of two
 * rotations at once, the second finds the secret changed and starts again from the new one, so
 * neither answer's secret is lost.
 */
export function swapAutomationSecret(
  db: Executor,
  projectId: string,
  id: string,
  expectedSecret: string,
  changes: Pick<
    AutomationUpdate,
    'webhook_secret' | 'previous_webhook_secret' | 'previous_webhook_secret_expires_at' | 'updated_at'
  >,
): Promise<AutomationRow | undefined> {
  return db
    .updateTable('automations')
    .set(changes)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('webhook_secret', '=', expectedSecret)
    .returningAll()
    .executeTakeFirst();
}

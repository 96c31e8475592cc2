import type { Executor } from './executor.ts';

/**
 * Claims a schedule slot: inserts (automation, slot) unless it is there already. Inside the
 * transaction that starts the slot's run, so a slot is claimed only with its run; on
 * PostgreSQL a concurrent claim waits for the other transaction, then does nothing. True
 * when this call claimed it.
 */
export async function claimAutomationSlot(
  db: Executor,
  slot: { automationId: string; slotAt: string; runId: string; claimedAt: string },
): Promise<boolean> {
  const result = await db
    .insertInto('automation_slots')
    .values({
      automation_id: slot.automationId,
      slot_at: slot.slotAt,
      run_id: slot.runId,
      claimed_at: slot.claimedAt,
    })
    .onConflict((oc) => oc.columns(['automation_id', 'slot_at']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The latest slot claimed for the automation, or null. */
export async function latestClaimedSlot(db: Executor, automationId: string): Promise<string | null> {
  const row = await db
    .selectFrom('automation_slots')
    .select((eb) => eb.fn.max('slot_at').as('latest'))
    .where('automation_id', '=', automationId)
    .executeTakeFirst();
  return (row?.latest as string | null | undefined) ?? null;
}

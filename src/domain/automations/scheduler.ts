import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Storage } from '../../storage/database.ts';
import { latestClaimedSlot } from '../../storage/queries/automation-slots.ts';
import { listEnabledAutomations } from '../../storage/queries/automations.ts';
import { type Clock, iso } from '../clock.ts';
import { toAutomation } from './automation.ts';
import type { AutomationService } from './automation-service.ts';
import { latestSlot } from './schedule.ts';

export interface SchedulerDeps {
  storage: Storage;
  clock: Clock;
  automations: AutomationService;
  logger: Logger;
  /** How often due slots are looked for; a slot starts within this after its time. */
  pollIntervalMs: number;
}

/**
 * Runs scheduled automations, in every worker process. Each pass looks, for every enabled
 * schedule, at its latest slot at or before now: if that slot is not older than the schedule
 * (creation, last change, re-enabling) and not claimed yet, it starts a run that claims it
 * (`startRun` with `slotAt`: the slot row is inserted under its primary key in the run's
 * transaction, so one process wins and the others start nothing).
 *
 * Only the latest slot is ever due: slots missed while every process was down are not run
 * one by one on start; the latest of them runs once.
 */
export class AutomationScheduler {
  private readonly deps: SchedulerDeps;
  private readonly log: Logger;
  private running = false;
  private loop: Promise<void> | null = null;
  private stopping = new AbortController();

  constructor(deps: SchedulerDeps) {
    this.deps = deps;
    this.log = deps.logger.child({ component: 'scheduler' });
  }

  start(): void {
    if (this.loop) return;
    this.running = true;
    this.stopping = new AbortController();
    this.loop = this.runLoop();
  }

  async stop(): Promise<void> {
    if (!this.loop) return;
    this.running = false;
    this.stopping.abort();
    await this.loop;
    this.loop = null;
  }

  /** One pass: starts the runs of the slots due now; returns how many this process started. */
  async runDue(): Promise<number> {
    const { storage, clock, automations } = this.deps;
    const now = clock();
    let started = 0;
    for (const row of await listEnabledAutomations(storage.db, 'schedule')) {
      const automation = toAutomation(row);
      if (automation.trigger.kind !== 'schedule') continue;
      const { cron, timezone } = automation.trigger;
      const slot = latestSlot(cron, timezone, now);
      if (slot === null || iso(slot) < automation.scheduleFrom) continue;
      const slotAt = iso(slot);
      const claimed = await latestClaimedSlot(storage.db, automation.id);
      if (claimed !== null && claimed >= slotAt) continue;
      try {
        const result = await automations.startRun(automation, {
          kind: 'schedule',
          dedupeKey: null,
          context: `Scheduled run for ${slotAt} (${cron}, ${timezone}).`,
          slotAt,
        });
        if (result.status !== 'duplicate') {
          started++;
          this.log.info(
            { automationId: automation.id, slotAt, runId: result.run.id, status: result.status },
            'scheduled run started',
          );
        }
      } catch (error) {
        // Disabled or deleted meanwhile, or a passing database error: the next pass looks again.
        this.log.warn({ err: error, automationId: automation.id, slotAt }, 'could not start a scheduled run');
      }
    }
    return started;
  }

  private async runLoop(): Promise<void> {
    while (this.running) {
      try {
        await this.runDue();
      } catch (error) {
        this.log.error({ err: error }, 'looking for scheduled runs failed; retrying');
      }
      await sleep(this.deps.pollIntervalMs, undefined, { signal: this.stopping.signal }).catch(() => {});
    }
  }
}

import { Cron } from 'croner';
import { invalid } from '../errors.ts';

/**
 * Cron expressions read by croner: five fields (minute hour day month weekday), or six with
 * seconds first; `@daily`-style nicknames too. Day of month and day of week combine with OR,
 * as in Vixie cron. Slots are computed in the automation's IANA time zone, so "0 9 * * 1" is
 * 09:00 on Mondays there, summer time or not.
 */
function cronOf(expression: string, timezone: string): Cron {
  return new Cron(expression, { timezone, paused: true, domAndDow: false });
}

/** Checks a cron expression and time zone; errors name the field at fault. */
export function checkSchedule(expression: string, timezone: string, field = 'trigger'): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    throw invalid(`${field}.timezone: "${timezone}" is not an IANA time zone (e.g. Europe/Paris, UTC)`);
  }
  let cron: Cron;
  try {
    cron = cronOf(expression, timezone);
  } catch (error) {
    throw invalid(`${field}.cron: ${(error as Error).message.replace(/^CronPattern: /, '')}`);
  }
  if (cron.nextRun() === null) throw invalid(`${field}.cron: "${expression}" never fires`);
}

/** The latest slot at or before `now`, or null when there is none. */
export function latestSlot(expression: string, timezone: string, now: Date): Date | null {
  // croner looks strictly before its reference: a slot exactly at `now` counts as due.
  return cronOf(expression, timezone).previousRuns(1, new Date(now.getTime() + 1))[0] ?? null;
}

/** The first slot after `now`, or null when there is none. */
export function nextSlot(expression: string, timezone: string, now: Date): Date | null {
  return cronOf(expression, timezone).nextRun(now);
}

/**
 * What "unique visitors" means over the chosen days. Without a caller-given id, a visitor is a
 * keyed hash of its address and user agent under a salt that rotates (daily by default; see
 * docs/analytics.md, "What a visitor is"): the same person on two days of a daily rotation is two
 * visitors. The page says so whenever the range touches more than one period of the rotation.
 */
import type { SettingsPayload } from '../../api/types.ts';

export type SaltRotation = SettingsPayload['server']['saltRotation'];

const DAY_MS = 86_400_000;

/** The rotation in force for the project: its own, else the server's. */
export const rotationOf = (settings: SettingsPayload): SaltRotation =>
  settings.analytics.saltRotation ?? settings.server.saltRotation;

/** How many rotation periods (UTC days, Monday-based UTC weeks, UTC months) [dateFrom, dateTo) touches. */
export function saltPeriods(rotation: SaltRotation, range: { dateFrom: string; dateTo: string }): number {
  const from = Date.parse(range.dateFrom);
  const last = Date.parse(range.dateTo) - 1;
  if (!Number.isFinite(from) || !Number.isFinite(last) || last < from) return 0;
  const period = (ms: number): number => {
    const day = Math.floor(ms / DAY_MS);
    switch (rotation) {
      case 'never':
        return 0;
      case 'daily':
        return day;
      case 'weekly':
        // 1970-01-01 was a Thursday: (day + 3) / 7 turns over on Mondays.
        return Math.floor((day + 3) / 7);
      case 'monthly': {
        const date = new Date(ms);
        return date.getUTCFullYear() * 12 + date.getUTCMonth();
      }
    }
  };
  return period(last) - period(from) + 1;
}

const WORDS: Record<Exclude<SaltRotation, 'never'>, { once: string; several: string; unit: string }> = {
  daily: { once: 'once per UTC day', several: 'several days', unit: 'visitor-days' },
  weekly: { once: 'once per week (Monday to Sunday, UTC)', several: 'several weeks', unit: 'visitor-weeks' },
  monthly: { once: 'once per calendar month (UTC)', several: 'several months', unit: 'visitor-months' },
};

/** The sentence for the page, or null when the range lies in one period (or ids never rotate). */
export function visitorCountNote(
  rotation: SaltRotation,
  range: { dateFrom: string; dateTo: string },
): string | null {
  if (rotation === 'never' || saltPeriods(rotation, range) <= 1) return null;
  const words = WORDS[rotation];
  return `A visitor counts ${words.once}: visitor ids rotate ${rotation} (the salt rotation, in Settings), so over ${words.several} a person who comes back counts again. These unique visitors are ${words.unit}, not people.`;
}

import type { Storage } from '../../storage/database.ts';
import { findAnalyticsSalt, insertAnalyticsSaltIfAbsent } from '../../storage/queries/analytics-salts.ts';
import { insertAnalyticsSettingsIfAbsent } from '../../storage/queries/analytics-settings.ts';
import { findProject } from '../../storage/queries/projects.ts';
import { type Clock, iso } from '../clock.ts';

/** Salts and settings kept somewhere else before (the embedded engine's file, until 0007). */
export interface EarlierMetadata {
  salts: ReadonlyArray<{ period: string; salt: Buffer; createdAt: string }>;
  settings: ReadonlyArray<{ projectId: string; value: string }>;
}

export interface AdoptionReport {
  /** Salts now in the main database that were only in the earlier place. */
  saltsCopied: number;
  /** Periods whose salt the main database already held with another value (see below). */
  saltsDiffering: string[];
  /** Salts past their retention: not copied, so they are gone for good. */
  saltsExpired: number;
  settingsCopied: number;
}

/**
 * Copies earlier salts and settings into the main database where it has none of its own: a
 * salt copied means today's visitors keep their keys across the upgrade (else each would count
 * twice). Idempotent and safe with several processes at once (insert-if-absent): running it
 * again copies nothing, and what the main database holds always wins. Expired salts are left
 * behind (their retention promise), and settings of projects that no longer exist too.
 */
export async function adoptMetadata(
  storage: Storage,
  earlier: EarlierMetadata,
  options: { clock: Clock; expired: (period: string) => boolean },
): Promise<AdoptionReport> {
  const db = storage.db;
  const report: AdoptionReport = { saltsCopied: 0, saltsDiffering: [], saltsExpired: 0, settingsCopied: 0 };
  for (const salt of earlier.salts) {
    if (options.expired(salt.period)) {
      report.saltsExpired++;
      continue;
    }
    if (await insertAnalyticsSaltIfAbsent(db, salt)) {
      report.saltsCopied++;
      continue;
    }
    // Another process copied it (same bytes), or the main database made this period's salt
    // before the copy (a node that never saw the earlier file): then its salt stays.
    const stored = await findAnalyticsSalt(db, salt.period);
    if (stored && !stored.equals(salt.salt)) report.saltsDiffering.push(salt.period);
  }
  const now = iso(options.clock());
  for (const setting of earlier.settings) {
    if (!(await findProject(db, setting.projectId))) continue;
    const copied = await insertAnalyticsSettingsIfAbsent(db, {
      projectId: setting.projectId,
      value: setting.value,
      updatedAt: now,
    });
    if (copied) report.settingsCopied++;
  }
  return report;
}

import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { adoptMetadata } from '../domain/analytics/adopt-metadata.ts';
import { saltExpired } from '../domain/analytics/identity.ts';
import type { Clock } from '../domain/clock.ts';
import {
  readEmbeddedMetadata,
  removeEmbeddedSalts,
} from '../integrations/analytics/embedded/earlier-metadata.ts';
import type { Storage } from '../storage/database.ts';

/**
 * The upgrade to salts and settings in the main database: an embedded analytics file written
 * before it holds them, so on start (before any view is keyed) copy what the main database does
 * not have, then delete the copied salts from the file, which keeps nothing else in step with
 * the main database's salt retention. Safe to run from several processes at once, and on every
 * start: once the file's salts are gone there is nothing left to copy but settings the main
 * database already has.
 */
export async function adoptEmbeddedMetadata(options: {
  /** The embedded engine's file (whichever backend is used now). */
  file: string;
  storage: Storage;
  clock: Clock;
  logger: Logger;
  saltRetentionDays: number;
}): Promise<void> {
  if (!existsSync(options.file)) return;
  const earlier = readEmbeddedMetadata(options.file);
  if (earlier.salts.length === 0 && earlier.settings.length === 0) return;
  const now = options.clock().getTime();
  const report = await adoptMetadata(options.storage, earlier, {
    clock: options.clock,
    expired: (period) => saltExpired(period, now, options.saltRetentionDays),
  });
  removeEmbeddedSalts(options.file, earlier.salts);
  if (report.saltsCopied > 0 || report.settingsCopied > 0) {
    options.logger.info(
      { salts: report.saltsCopied, settings: report.settingsCopied, expiredSalts: report.saltsExpired },
      'analytics: moved salts and settings from the analytics file to the main database',
    );
  }
  if (report.saltsDiffering.length > 0) {
    options.logger.warn(
      { periods: report.saltsDiffering },
      'analytics: the main database already had another salt for these periods; visitors seen in them before the upgrade may count twice',
    );
  }
}

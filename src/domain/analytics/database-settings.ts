import type { Storage } from '../../storage/database.ts';
import {
  deleteAnalyticsSettings,
  findAnalyticsSettings,
  saveAnalyticsSettings,
} from '../../storage/queries/analytics-settings.ts';
import { type Clock, iso } from '../clock.ts';
import { type AnalyticsSettings, type AnalyticsSettingsStore, completeAnalyticsSettings } from './store.ts';

/**
 * Each project's analytics settings in the main database, as JSON text: one primary-key read
 * per ingested batch and per export, so a change made through one API process holds on every
 * other at once (no cache to go stale).
 */
export class DatabaseSettingsStore implements AnalyticsSettingsStore {
  private readonly storage: Storage;
  private readonly clock: Clock;

  constructor(storage: Storage, clock: Clock) {
    this.storage = storage;
    this.clock = clock;
  }

  async settings(projectId: string): Promise<AnalyticsSettings> {
    const stored = await findAnalyticsSettings(this.storage.db, projectId);
    return parseAnalyticsSettings(stored);
  }

  async saveSettings(projectId: string, settings: AnalyticsSettings): Promise<void> {
    await saveAnalyticsSettings(this.storage.db, {
      projectId,
      value: JSON.stringify(settings),
      updatedAt: iso(this.clock()),
    });
  }

  async deleteSettings(projectId: string): Promise<void> {
    await deleteAnalyticsSettings(this.storage.db, projectId);
  }
}

/** Stored settings (JSON text, possibly from an older version with fewer fields) with defaults. */
export function parseAnalyticsSettings(stored: string | undefined): AnalyticsSettings {
  if (stored === undefined) return completeAnalyticsSettings(null);
  return completeAnalyticsSettings(JSON.parse(stored) as Partial<AnalyticsSettings>);
}

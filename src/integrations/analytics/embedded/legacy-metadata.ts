import { randomBytes } from 'node:crypto';
import type SqliteDatabase from 'better-sqlite3';
import { type AnalyticsSettings, completeAnalyticsSettings } from '../../../domain/analytics/store.ts';

/**
 * The identity salts and per-project analytics settings kept in the analytics file (tables
 * `salts` and `settings`, whose layout must not change). The main database holds them now, so
 * that every process and backend shares them; this file remains only so the embedded store can
 * still serve them (SaltStore, AnalyticsSettingsStore) and so old installations' salts and
 * settings can be read for the one-time copy into the main database. Remove it with that copy.
 */
export class LegacyMetadata {
  private readonly sqlite: SqliteDatabase.Database;
  private readonly salts = new Map<string, Buffer>();
  private readonly statements;

  constructor(sqlite: SqliteDatabase.Database) {
    this.sqlite = sqlite;
    this.statements = {
      selectSalt: sqlite.prepare('select salt from salts where period = ?').pluck(),
      saltPeriods: sqlite.prepare('select period from salts').pluck(),
      deleteSalt: sqlite.prepare('delete from salts where period = ?'),
      insertSalt: sqlite.prepare(
        'insert into salts (period, salt, created_at) values (?, ?, ?) on conflict (period) do nothing',
      ),
      selectSettings: sqlite.prepare('select value from settings where project_id = ?').pluck(),
      deleteSettings: sqlite.prepare('delete from settings where project_id = ?'),
      upsertSettings: sqlite.prepare(
        `insert into settings (project_id, value) values (?, ?)
         on conflict (project_id) do update set value = excluded.value`,
      ),
    };
  }

  /** The secret salt of a period, created on first use. */
  salt(period: string): Buffer {
    const cached = this.salts.get(period);
    if (cached) return cached;
    let salt = this.statements.selectSalt.get(period) as Buffer | undefined;
    if (!salt) {
      // Two processes may race here: the first insert wins and both read it back.
      this.statements.insertSalt.run(period, randomBytes(32), new Date().toISOString());
      salt = this.statements.selectSalt.get(period) as Buffer;
    }
    this.salts.set(period, salt);
    return salt;
  }

  /** Deletes the salts of the periods `expired` picks; returns them. */
  forgetSalts(expired: (period: string) => boolean): string[] {
    const forget = this.sqlite.transaction(() => {
      const periods = (this.statements.saltPeriods.all() as string[]).filter(expired);
      for (const period of periods) this.statements.deleteSalt.run(period);
      return periods;
    });
    const periods = forget.immediate();
    for (const period of periods) this.salts.delete(period);
    return periods;
  }

  /** The project's settings, completed by the defaults (all of them when never saved). */
  settings(projectId: string): AnalyticsSettings {
    const raw = this.statements.selectSettings.get(projectId) as string | undefined;
    return completeAnalyticsSettings(
      raw === undefined ? null : (JSON.parse(raw) as Partial<AnalyticsSettings>),
    );
  }

  saveSettings(projectId: string, settings: AnalyticsSettings): void {
    this.statements.upsertSettings.run(projectId, JSON.stringify(settings));
  }

  deleteSettings(projectId: string): void {
    this.statements.deleteSettings.run(projectId);
  }
}

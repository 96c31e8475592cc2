import { randomBytes } from 'node:crypto';
import type { Storage } from '../../storage/database.ts';
import {
  deleteAnalyticsSalts,
  findAnalyticsSalt,
  insertAnalyticsSaltIfAbsent,
  listAnalyticsSaltPeriods,
} from '../../storage/queries/analytics-salts.ts';
import { type Clock, iso } from '../clock.ts';
import type { SaltStore } from './store.ts';

const SALT_BYTES = 32;

/**
 * Visitor-identity salts in the main database (SQLite or PostgreSQL), so every process of a
 * deployment keys visitors alike whatever engine holds the views. A new period's salt is made
 * race-free across processes: insert unless present, then read back what won. Salts never
 * change once made, so each is read from the database once per process.
 */
export class DatabaseSaltStore implements SaltStore {
  private readonly storage: Storage;
  private readonly clock: Clock;
  /** By period; a promise, so concurrent callers of one new period share one round trip. */
  private readonly cache = new Map<string, Promise<Buffer>>();

  constructor(storage: Storage, clock: Clock) {
    this.storage = storage;
    this.clock = clock;
  }

  salt(period: string): Promise<Buffer> {
    let salt = this.cache.get(period);
    if (!salt) {
      const loading = this.load(period);
      salt = loading;
      this.cache.set(period, loading);
      // A failed read is not remembered: the next caller tries again.
      loading.catch(() => {
        if (this.cache.get(period) === loading) this.cache.delete(period);
      });
    }
    return salt;
  }

  async forgetSalts(expired: (period: string) => boolean): Promise<string[]> {
    const periods = (await listAnalyticsSaltPeriods(this.storage.db)).filter(expired);
    await deleteAnalyticsSalts(this.storage.db, periods);
    for (const period of periods) this.cache.delete(period);
    return periods;
  }

  private async load(period: string): Promise<Buffer> {
    const db = this.storage.db;
    const stored = await findAnalyticsSalt(db, period);
    if (stored) return stored;
    await insertAnalyticsSaltIfAbsent(db, {
      period,
      salt: randomBytes(SALT_BYTES),
      createdAt: iso(this.clock()),
    });
    const salt = await findAnalyticsSalt(db, period);
    // Only a prune racing with the first use of an expired period gets here.
    if (!salt) throw new Error(`The salt of period ${period} was deleted as it was made; try again`);
    return salt;
  }
}

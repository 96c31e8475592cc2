import type { Storage } from '../../storage/database.ts';
import {
  deleteRateLimitWindowsWithPrefixBefore,
  hitRateLimitWindow,
  readRateLimitWindow,
} from '../../storage/queries/rate-limits.ts';
import { type Clock, iso } from '../clock.ts';
import { DomainError } from '../errors.ts';

export interface FailureLimiterOptions {
  /** Buckets are this prefix and a key, e.g. `sign-in:ip:` and an address. */
  prefix: string;
  /** Failures allowed per window; the next attempt is refused until the window ends. */
  limit: number;
  windowSeconds: number;
  /** Ends the refusal's message: "Too many failed sign-ins <refusal>; try again in N s". */
  refusal: string;
}

/**
 * Counts failures (wrong passwords), not attempts, in fixed windows kept in the database
 * (`rate_limit_windows`), so every process sharing it shares the count. `check` runs before
 * the attempt is judged: once a bucket has had `limit` failures in a window, nothing more is
 * tried until the window ends.
 */
export class FailureLimiter {
  private readonly storage: Storage;
  private readonly clock: Clock;
  private readonly options: FailureLimiterOptions;
  constructor(storage: Storage, clock: Clock, options: FailureLimiterOptions) {
    this.storage = storage;
    this.clock = clock;
    this.options = options;
  }

  /** Throws `rate_limited` (with Retry-After) while the key is over its limit. */
  async check(key: string): Promise<void> {
    const { windowStart, retryAfterSeconds } = this.window();
    const bucket = this.options.prefix + key;
    const failures = await readRateLimitWindow(this.storage.db, bucket, iso(new Date(windowStart)));
    if (failures >= this.options.limit) {
      throw new DomainError(
        'rate_limited',
        `Too many failed sign-ins ${this.options.refusal}; try again in ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    }
  }

  async fail(key: string): Promise<void> {
    const { windowStart } = this.window();
    const start = iso(new Date(windowStart));
    const hits = await hitRateLimitWindow(this.storage.db, this.options.prefix + key, start);
    // Keys come and go (addresses, emails): the first failure of a window clears every
    // key's past windows, not only this key's.
    if (hits === 1) await deleteRateLimitWindowsWithPrefixBefore(this.storage.db, this.options.prefix, start);
  }

  private window(): { windowStart: number; retryAfterSeconds: number } {
    const now = this.clock().getTime();
    const windowMs = this.options.windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    return { windowStart, retryAfterSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)) };
  }
}

import type { Storage } from '../../storage/database.ts';
import { deleteRateLimitWindowsBefore, hitRateLimitWindow } from '../../storage/queries/rate-limits.ts';
import { type Clock, iso } from '../clock.ts';
import { DomainError } from '../errors.ts';

/**
 * Fixed-window limiter kept in the database, so every API process sharing a database
 * shares one count per project.
 */
export class RateLimiter {
  private readonly storage: Storage;
  private readonly clock: Clock;
  private readonly limit: number;
  private readonly windowSeconds: number;
  constructor(storage: Storage, clock: Clock, limit: number, windowSeconds: number) {
    this.storage = storage;
    this.clock = clock;
    this.limit = limit;
    this.windowSeconds = windowSeconds;
  }

  /** Counts one request for `bucket`; throws `rate_limited` with Retry-After when over the limit. */
  async hit(bucket: string): Promise<void> {
    if (this.limit === 0) return;
    const now = this.clock().getTime();
    const windowMs = this.windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const hits = await hitRateLimitWindow(this.storage.db, bucket, iso(new Date(windowStart)));
    if (hits === 1) {
      await deleteRateLimitWindowsBefore(this.storage.db, bucket, iso(new Date(windowStart)));
    }
    if (hits > this.limit) {
      const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      throw new DomainError(
        'rate_limited',
        `Rate limit of ${this.limit} requests per ${this.windowSeconds} s for this project reached; retry in ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    }
  }
}

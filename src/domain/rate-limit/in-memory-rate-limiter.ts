import type { Clock } from '../clock.ts';
import { DomainError } from '../errors.ts';

/** Keys tracked at once by default: about 12 MB at worst (long IPv6 keys); far more than a minute sees. */
export const DEFAULT_MAX_KEYS = 50_000;

/**
 * Fixed-window limiter held in this process's memory: no database write per request, so it
 * suits high-volume public endpoints. Each process counts on its own (N API processes allow up
 * to N times the limit).
 *
 * Memory is bounded twice: windows are aligned to the clock, so when a new window starts every
 * count of the old one is dropped at once; and at most `maxKeys` keys are tracked in a window,
 * the least recently seen one being forgotten to make room (it starts again from zero, which
 * only ever errs towards letting a request through).
 */
export class InMemoryRateLimiter {
  private readonly clock: Clock;
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly maxKeys: number;
  private readonly unit: string;
  private windowStart = Number.NaN;
  /** Hits per key in the current window, least recently seen first. */
  private readonly hits = new Map<string, number>();

  constructor(options: {
    clock: Clock;
    /** Requests per key per window; 0 disables the limiter. */
    limit: number;
    windowSeconds: number;
    maxKeys?: number;
    /** What is counted, for the error message (default "requests"). */
    unit?: string;
  }) {
    if (!Number.isInteger(options.limit) || options.limit < 0) throw new RangeError('limit must be ≥ 0');
    if (!(options.windowSeconds > 0)) throw new RangeError('windowSeconds must be > 0');
    const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be ≥ 1');
    this.clock = options.clock;
    this.limit = options.limit;
    this.windowMs = options.windowSeconds * 1000;
    this.maxKeys = maxKeys;
    this.unit = options.unit ?? 'requests';
  }

  /** Keys currently tracked (for tests and metrics). */
  get size(): number {
    return this.hits.size;
  }

  /** Counts one request for `key`; throws `rate_limited` with Retry-After when over the limit. */
  hit(key: string): void {
    if (this.limit === 0) return;
    const now = this.clock().getTime();
    const windowStart = Math.floor(now / this.windowMs) * this.windowMs;
    if (windowStart !== this.windowStart) {
      this.hits.clear();
      this.windowStart = windowStart;
    }
    const previous = this.hits.get(key);
    if (previous === undefined) {
      if (this.hits.size >= this.maxKeys) {
        const leastRecent = this.hits.keys().next();
        if (!leastRecent.done) this.hits.delete(leastRecent.value);
      }
    } else {
      this.hits.delete(key); // re-inserted below: the Map's order is least recently seen first
    }
    const count = (previous ?? 0) + 1;
    this.hits.set(key, count);
    if (count > this.limit) {
      const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + this.windowMs - now) / 1000));
      throw new DomainError(
        'rate_limited',
        `Rate limit of ${this.limit} ${this.unit} per ${this.windowMs / 1000} s reached; retry in ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    }
  }
}

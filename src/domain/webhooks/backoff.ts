/** How failed deliveries are retried. */
export interface RetryPolicy {
  /** The wait after the first failed attempt; it doubles after each further one. */
  baseMs: number;
  /** The longest wait between two attempts. */
  maxDelayMs: number;
  /** How long after its creation (or last resend) a delivery is retried; then it fails for good. */
  windowMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseMs: 10_000,
  maxDelayMs: 60 * 60_000,
  windowMs: 24 * 60 * 60_000,
};

/**
 * When to try again after `attempts` failed attempts, or null when that would be past the
 * retry window. Exponential with "equal jitter" (half the delay fixed, half random), so
 * deliveries that failed together (a receiver that was down) do not all come back at once.
 */
export function nextAttemptAt(
  policy: RetryPolicy,
  attempts: number,
  now: number,
  retryFrom: number,
  random: () => number = Math.random,
): number | null {
  const exponential = Math.min(policy.baseMs * 2 ** Math.max(0, attempts - 1), policy.maxDelayMs);
  const delay = exponential / 2 + random() * (exponential / 2);
  const at = now + delay;
  return at > retryFrom + policy.windowMs ? null : at;
}

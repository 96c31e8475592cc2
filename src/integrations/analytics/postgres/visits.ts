/** Shared constants of the PostgreSQL store's tables (see schema.ts). */

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
/** "No earlier visit" in analytics_visits.last_*: before every day. */
export const NEVER = -2147483648;
/** Categories 0..2 (human, ai, ai_crawler) are the counted classes, mask bits 1, 2, 4. */
export const COUNTED_CLASSES = 3;

/**
 * The most views one write of the PostgreSQL and ClickHouse engines takes from the appends
 * waiting (one append larger than this goes alone). Unbounded, a write took every request
 * waiting, so the server's memory grew with the clients' concurrency: at 128 requests of 1,000
 * events in flight, 1,047 MB peak on ClickHouse and 825 MB on PostgreSQL (docs/analytics-engines.md,
 * "Append groups, bounded").
 */
export const MAX_GROUP_VIEWS = 16_384;

/**
 * Takes the oldest waiting appends off `queue`, up to `maxViews` views in all, and at least one
 * append whatever its size; the rest stay queued, in order.
 */
export function takeGroup<T extends { events: readonly unknown[] }>(queue: T[], maxViews: number): T[] {
  let views = 0;
  let n = 0;
  while (n < queue.length) {
    const size = (queue[n] as T).events.length;
    if (n > 0 && views + size > maxViews) break;
    views += size;
    n++;
  }
  return queue.splice(0, n);
}

import type { Counts, PageRow } from '../../../domain/analytics/store.ts';
import type { ProjectIndex } from './project-index.ts';

export interface CachedPages {
  /** The index the answer was computed from: a rebuilt index (reclassified views) is a miss. */
  index: ProjectIndex;
  /** The range's fingerprint (see RangePlan): a newer view in the range is a miss. */
  fingerprint: number;
  totals: Counts;
  rows: PageRow[];
}

const CACHE_ENTRIES = 64;

/** The last CACHE_ENTRIES page exports, whole (every row), for paging and repeated queries. */
export class PageCache {
  private readonly entries = new Map<string, CachedPages>();

  /** The cached answer for `key`, if it was computed from `index` at `fingerprint`. */
  get(key: string, index: ProjectIndex, fingerprint: number): CachedPages | undefined {
    const cached = this.entries.get(key);
    return cached && cached.index === index && cached.fingerprint === fingerprint ? cached : undefined;
  }

  set(key: string, value: CachedPages): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > CACHE_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}

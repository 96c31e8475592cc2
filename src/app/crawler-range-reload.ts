import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { CrawlerRanges } from '../domain/analytics/crawler-ranges.ts';
import type { Storage } from '../storage/database.ts';
import { loadCrawlerRanges, storedRangeLists } from './crawler-ranges.ts';

/** How often a serving process looks for lists that `update-lists` stored (docs/analytics.md). */
export const CRAWLER_RANGE_RELOAD_EVERY_MS = 3_600_000;

/**
 * Keeps a process's crawler ranges in step with the lists in the main database: `update-lists`,
 * run on any machine, stores refreshed lists there, and every API node picks them up at its
 * next check (hourly, see `start`) without a restart.
 */
export class CrawlerRangeReload {
  private readonly storage: Storage;
  private readonly dataDir: string;
  private readonly logger: Logger;
  /** Where the ranges go once loaded: the analytics service, set when it exists. */
  private apply: ((ranges: CrawlerRanges) => void) | null = null;
  /** A digest of the stored lists last loaded; null before the first load. */
  private loaded: string | null = null;
  private checking: Promise<boolean> | null = null;

  constructor(options: { storage: Storage; dataDir: string; logger: Logger }) {
    this.storage = options.storage;
    this.dataDir = options.dataDir;
    this.logger = options.logger;
  }

  /** The ranges as stored now (the start's load); later changes go to `applyTo`'s target. */
  async load(): Promise<CrawlerRanges> {
    const stored = await storedRangeLists(this.storage);
    this.loaded = digest(stored);
    return loadCrawlerRanges(this.dataDir, this.logger, stored);
  }

  /** Where `check` hands ranges that changed. */
  applyTo(apply: (ranges: CrawlerRanges) => void): void {
    this.apply = apply;
  }

  /**
   * Reads the stored lists; when they differ from those last loaded, loads them and hands them
   * on. True when they changed. Concurrent calls share one read.
   */
  check(): Promise<boolean> {
    this.checking ??= this.reloadIfChanged().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  /** Checks every `everyMs` until the returned function is called. */
  start(everyMs: number, onError: (error: unknown) => void): () => void {
    const timer = setInterval(() => void this.check().catch(onError), everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async reloadIfChanged(): Promise<boolean> {
    // Nothing to hand them to yet: leave them for the first check after `applyTo`.
    if (!this.apply) return false;
    const stored = await storedRangeLists(this.storage);
    const now = digest(stored);
    if (now === this.loaded) return false;
    const ranges = loadCrawlerRanges(this.dataDir, this.logger, stored);
    this.apply(ranges);
    this.loaded = now;
    this.logger.info(
      { lists: [...stored.keys()] },
      'crawler ranges: loaded the lists update-lists stored; agents are verified with them from now on',
    );
    return true;
  }
}

function digest(stored: ReadonlyMap<string, string>): string {
  const hash = createHash('sha256');
  for (const [file, body] of [...stored].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    hash.update(`${file}\0${body.length}\0${body}`);
  }
  return hash.digest('hex');
}

import type { Logger } from 'pino';
import {
  CRAWLER_RANGE_SOURCES,
  type CrawlerRangeSource,
  parsePublishedRanges,
} from '../domain/analytics/crawler-range-files.ts';
import type { Clock } from '../domain/clock.ts';
import type { Storage } from '../storage/database.ts';
import { saveCrawlerRangeList } from '../storage/queries/crawler-range-lists.ts';
import { loadRangeLists, storedRangeLists } from './crawler-ranges.ts';

/** What `update-lists` did with one source. */
export interface ListUpdate {
  file: string;
  operator: string;
  url: string;
  status: 'updated' | 'unchanged' | 'failed';
  /** Prefixes of the copy in use before (refreshed or shipped; 0 when there was none). */
  before: number;
  /** Prefixes now in use: the new copy's, or the old one's when the download failed. */
  after: number;
  added: number;
  removed: number;
  creationTime: string | null;
  error?: string;
}

export interface UpdateOptions {
  /** The main database, migrated: the lists go there, for every node. */
  storage: Storage;
  clock: Clock;
  /** Where an older version's refreshed copies may be (read for "before", not written). */
  dataDir: string;
  /** Fetches one published list (HTTPS, with a timeout and a size cap). */
  fetchText: (url: string) => Promise<string>;
  /** Fetch `<baseUrl>/<file>` instead of each published URL (a mirror, or a test server). */
  baseUrl?: string | undefined;
  sources?: readonly CrawlerRangeSource[];
  logger?: Logger;
}

/**
 * Fetches every published list, checks its shape strictly and stores the good ones in the main
 * database (one row a list, written whole), so every node reads the same lists when it starts. A
 * list that fails (network, status, size, shape) keeps its old copy, and its error names it;
 * the other lists are updated all the same.
 */
export async function updateCrawlerRangeLists(options: UpdateOptions): Promise<ListUpdate[]> {
  const sources = options.sources ?? CRAWLER_RANGE_SOURCES;
  const stored = await storedRangeLists(options.storage);
  const current = new Map(
    loadRangeLists(options.dataDir, options.logger, sources, stored).map((l) => [l.source.file, l]),
  );
  const updates: ListUpdate[] = [];
  for (const source of sources) {
    const url = options.baseUrl ? `${options.baseUrl.replace(/\/+$/, '')}/${source.file}` : source.url;
    const old = current.get(source.file);
    const before = old?.prefixes ?? [];
    const base = { file: source.file, operator: source.operator, url, before: before.length };
    try {
      const text = await options.fetchText(url);
      const list = parsePublishedRanges(text, source.file);
      const oldSet = new Set(before);
      const newSet = new Set(list.prefixes);
      const added = [...newSet].filter((p) => !oldSet.has(p)).length;
      const removed = [...oldSet].filter((p) => !newSet.has(p)).length;
      await saveCrawlerRangeList(options.storage.db, {
        file: source.file,
        body: text,
        updatedAt: options.clock().toISOString(),
      });
      updates.push({
        ...base,
        status: added + removed === 0 && old?.origin === 'refreshed' ? 'unchanged' : 'updated',
        after: list.prefixes.length,
        added,
        removed,
        creationTime: list.creationTime,
      });
    } catch (error) {
      updates.push({
        ...base,
        status: 'failed',
        after: before.length,
        added: 0,
        removed: 0,
        creationTime: old?.creationTime ?? null,
        error: (error as Error).message,
      });
    }
  }
  return updates;
}

import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import {
  CRAWLER_RANGE_SOURCES,
  type CrawlerRangeSource,
  parsePublishedRanges,
} from '../domain/analytics/crawler-range-files.ts';
import { loadRangeLists, refreshedRangesDir } from './crawler-ranges.ts';

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
  dataDir: string;
  /** Fetches one published list (HTTPS, with a timeout and a size cap). */
  fetchText: (url: string) => Promise<string>;
  /** Fetch `<baseUrl>/<file>` instead of each published URL (a mirror, or a test server). */
  baseUrl?: string | undefined;
  sources?: readonly CrawlerRangeSource[];
  logger?: Logger;
}

/**
 * Fetches every published list, checks its shape strictly and writes the good ones into
 * `<dataDir>/crawler-ranges/` atomically (a temporary file renamed over the old copy), so a
 * reader never sees half a list. A list that fails (network, status, size, shape) keeps its old
 * copy, and its error names it; the other lists are updated all the same.
 */
export async function updateCrawlerRangeLists(options: UpdateOptions): Promise<ListUpdate[]> {
  const sources = options.sources ?? CRAWLER_RANGE_SOURCES;
  const current = new Map(
    loadRangeLists(options.dataDir, options.logger, sources).map((l) => [l.source.file, l]),
  );
  const dir = refreshedRangesDir(options.dataDir);
  await mkdir(dir, { recursive: true });
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
      await writeAtomically(path.join(dir, source.file), text);
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

async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, text, { flush: true });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

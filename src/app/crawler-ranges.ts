import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import {
  CRAWLER_RANGE_SOURCES,
  type CrawlerRangeSource,
  parsePublishedRanges,
  rangeSets,
  SHIPPED_CRAWLER_RANGES,
} from '../domain/analytics/crawler-range-files.ts';
import { CrawlerRanges } from '../domain/analytics/crawler-ranges.ts';
import type { Storage } from '../storage/database.ts';
import { listCrawlerRangeLists } from '../storage/queries/crawler-range-lists.ts';

/**
 * Where `docwright analytics update-lists` kept its refreshed copies before they moved to the
 * main database (still read, after the main database's, so an upgrade keeps them).
 */
export function refreshedRangesDir(dataDir: string): string {
  return path.join(dataDir, 'crawler-ranges');
}

/** One source as loaded: a refreshed copy (main database or data dir), the shipped copy, or neither. */
export interface LoadedRangeList {
  source: CrawlerRangeSource;
  origin: 'refreshed' | 'shipped' | 'none';
  creationTime: string | null;
  prefixes: string[];
}

/** The refreshed lists in the main database (`update-lists` writes them there): file → text. */
export async function storedRangeLists(storage: Storage): Promise<Map<string, string>> {
  return new Map((await listCrawlerRangeLists(storage.db)).map((row) => [row.file, row.body]));
}

/**
 * Every source's current list: the refreshed copy in the main database (`stored`, from
 * `storedRangeLists`) when there is one and it reads, else one in `<dataDir>/crawler-ranges/`
 * (where versions before 2026-12-02 wrote them), else the copy shipped with Docwright. A
 * refreshed copy that does not read (edited by hand, cut short) is skipped with a warning
 * rather than stopping the server.
 */
export function loadRangeLists(
  dataDir: string,
  logger?: Logger,
  sources: readonly CrawlerRangeSource[] = CRAWLER_RANGE_SOURCES,
  stored: ReadonlyMap<string, string> = new Map(),
): LoadedRangeList[] {
  return sources.map((source) => {
    const text = stored.get(source.file);
    if (text !== undefined) {
      const fromDatabase = parseList(text, source.file);
      if (!(fromDatabase instanceof Error)) return { source, origin: 'refreshed', ...fromDatabase };
      logger?.warn(
        { list: source.file, err: fromDatabase.message },
        'crawler ranges: ignoring a refreshed list in the main database that does not read',
      );
    }
    const refreshed = path.join(refreshedRangesDir(dataDir), source.file);
    const fromDataDir = readList(refreshed, source.file);
    if (fromDataDir instanceof Error) {
      logger?.warn(
        { file: refreshed, err: fromDataDir.message },
        'crawler ranges: ignoring a refreshed list that does not read',
      );
    } else if (fromDataDir !== null) {
      return { source, origin: 'refreshed', ...fromDataDir };
    }
    if (source.copy === null) return { source, origin: 'none', creationTime: null, prefixes: [] };
    const shipped = readList(fileURLToPath(new URL(source.file, SHIPPED_CRAWLER_RANGES)), source.file);
    // A shipped copy that does not read is a packaging error: fail loudly.
    if (shipped instanceof Error || shipped === null)
      throw shipped ?? new Error(`${source.file}: not shipped`);
    return { source, origin: 'shipped', ...shipped };
  });
}

/** The ranges that verify agents at ingest (see loadRangeLists). */
export function loadCrawlerRanges(
  dataDir: string,
  logger?: Logger,
  stored: ReadonlyMap<string, string> = new Map(),
): CrawlerRanges {
  // A source with no list (none shipped, none refreshed) verifies nothing: leave it out, so
  // operators() names only operators whose ranges are known.
  const lists = loadRangeLists(dataDir, logger, CRAWLER_RANGE_SOURCES, stored).filter(
    (l) => l.prefixes.length > 0,
  );
  const byFile = new Map(lists.map((l) => [l.source.file, l.prefixes]));
  return new CrawlerRanges(
    rangeSets(
      lists.map((l) => l.source),
      (s) => byFile.get(s.file) ?? [],
    ),
  );
}

function readList(file: string, name: string): ReturnType<typeof parsePublishedRanges> | Error | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return error as Error;
  }
  return parseList(text, name);
}

function parseList(text: string, name: string): ReturnType<typeof parsePublishedRanges> | Error {
  try {
    return parsePublishedRanges(text, name);
  } catch (error) {
    return error as Error;
  }
}

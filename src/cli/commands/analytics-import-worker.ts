// One slice of a parallel log import (see analytics-import-parallel.ts), in a worker thread
// with its own connections to the analytics backend and to the main database (salts, settings).
import { createReadStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { loadCrawlerRanges, storedRangeLists } from '../../app/crawler-ranges.ts';
import { openAnalytics } from '../../app/open-analytics.ts';
import type { AnalyticsBackendConfig } from '../../config/analytics-backend.ts';
import type { LogFormat } from '../../domain/analytics/log-formats.ts';
import { importLog } from '../../domain/analytics/log-import.ts';
import type { AnalyticsOptions } from '../../domain/analytics/options.ts';
import { systemClock } from '../../domain/clock.ts';
import { type DatabaseConfig, openStorage } from '../../storage/database.ts';

interface Slice {
  file: string;
  start: number;
  end: number;
  projectId: string;
  format: LogFormat;
  fields: string[] | null;
  backend: AnalyticsBackendConfig;
  database: DatabaseConfig;
  settings: AnalyticsOptions;
  /** Where an older version's refreshed crawler ranges are; the main database's come first. */
  dataDir: string;
  /** Embedded engine only. */
  threadLock: SharedArrayBuffer | null;
}

const slice = workerData as Slice;
const storage = openStorage(slice.database);
const analytics = await openAnalytics({
  backend: slice.backend,
  storage,
  clock: systemClock,
  logger: pino({ level: 'silent' }),
  settings: slice.settings,
  crawlerRanges: loadCrawlerRanges(slice.dataDir, undefined, await storedRangeLists(storage)),
  identityCacheLimit: 2_000_000,
  ...(slice.threadLock ? { threadLock: slice.threadLock, bulkImport: true } : {}),
});
try {
  const input = createReadStream(slice.file, {
    start: slice.start,
    end: slice.end - 1,
    highWaterMark: 1 << 20,
  });
  input.setEncoding('utf8');
  const summary = await importLog({
    analytics,
    projectId: slice.projectId,
    input: input as AsyncIterable<string>,
    format: slice.format,
    fields: slice.fields,
    onProgress: (progress) => parentPort?.postMessage({ progress: { ...progress } }),
  });
  parentPort?.postMessage({ summary });
} finally {
  await analytics.close();
  await storage.close();
}

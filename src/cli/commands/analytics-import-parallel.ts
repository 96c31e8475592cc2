import { open } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { AnalyticsBackendConfig } from '../../config/analytics-backend.ts';
import { LineParser, type LogFormat } from '../../domain/analytics/log-formats.ts';
import {
  emptyCategories,
  type ImportProgress,
  type ImportSummary,
  importWarnings,
  sortedReasons,
} from '../../domain/analytics/log-import.ts';
import type { AnalyticsOptions } from '../../domain/analytics/options.ts';
import { startBulkImport } from '../../integrations/analytics/embedded/bulk-import.ts';
import type { DatabaseConfig } from '../../storage/database.ts';
import { readHead, sliceBoundary } from './analytics-import-slices.ts';

export interface ParallelImportOptions {
  file: string;
  projectId: string;
  format?: LogFormat | undefined;
  /** W3C columns when the log has no `#Fields:` line. */
  fields?: readonly string[] | null | undefined;
  workers: number;
  /** Where the views go: every worker opens it, as an API process would. */
  backend: AnalyticsBackendConfig;
  /** The main database: salts and settings (each worker opens its own connection). */
  database: DatabaseConfig;
  settings: AnalyticsOptions;
  /** Where an older version's refreshed crawler ranges are; each worker also reads the main database's (app/crawler-ranges.ts). */
  dataDir: string;
  onProgress?: (progress: ImportProgress) => void;
}

/**
 * Imports a log file in `workers` worker threads, each streaming its own slice through the same
 * pipeline as `importLog`. Slices end where the second changes, so identical lines of one second
 * stay together and every line gets the id a single-threaded import would give it.
 *
 * Any backend: each worker opens it through `openAnalytics`, like one more API process (parsing
 * and hashing are the work that needs the cores; the store's idempotency by view id keeps
 * slices independent). The rest of this note is about the embedded engine.
 *
 * Workers commit without waiting for each commit to reach the disk (`durability: 'normal'`):
 * the write lock is then never held across an fsync, which left both workers idle for a fifth
 * of a large import. A crash mid-import loses at most commits a re-import adds back (ids come
 * from the lines); before the summary is returned, the file is synced once, so an import that
 * reports success has reached the disk.
 */
export async function importFileInParallel(options: ParallelImportOptions): Promise<ImportSummary> {
  const handle = await open(options.file, 'r');
  let bounds: number[];
  let format: LogFormat;
  let fields: string[] | null;
  try {
    const { size } = await handle.stat();
    // The head says the format, and for W3C the columns (`#Fields:`): every slice needs them.
    ({ format, fields } = await readHead(options.file, options.format, options.fields));
    bounds = [0];
    for (let k = 1; k < options.workers; k++) {
      const parser = new LineParser(format, fields);
      const bound = await sliceBoundary(handle, Math.floor((size * k) / options.workers), size, parser);
      // No cut up to the end (one second, or one long line): none later either.
      if (bound >= size) break;
      if (bound > (bounds[bounds.length - 1] as number)) bounds.push(bound);
    }
    bounds.push(size);
  } finally {
    await handle.close();
  }

  const progress: ImportProgress[] = [];
  // The embedded engine: the workers take turns writing its file, synced once at the end.
  const bulk = options.backend.kind === 'embedded' ? startBulkImport(options.backend.file) : null;
  const summaries = await Promise.all(
    bounds.slice(1).map(
      (end, i) =>
        new Promise<ImportSummary>((resolve, reject) => {
          const worker = new Worker(new URL('./analytics-import-worker.ts', import.meta.url), {
            workerData: {
              file: options.file,
              start: bounds[i],
              end,
              projectId: options.projectId,
              format,
              fields,
              backend: options.backend,
              database: options.database,
              settings: { ...options.settings, durability: 'normal' },
              dataDir: options.dataDir,
              threadLock: bulk?.threadLock ?? null,
            },
          });
          let summary: ImportSummary | null = null;
          worker.on('message', (message: { progress?: ImportProgress; summary?: ImportSummary }) => {
            if (message.summary) summary = message.summary;
            if (message.progress) {
              progress[i] = message.progress;
              options.onProgress?.(sum(progress));
            }
          });
          worker.on('error', reject);
          worker.on('exit', (code) => {
            if (summary) resolve(summary);
            else
              reject(new Error(`Import worker ${i} stopped (exit code ${code}) before finishing its slice`));
          });
        }),
    ),
  );
  bulk?.finish();
  const reasons = new Map<string, number>();
  const categories = emptyCategories();
  let withoutUserAgent = 0;
  let withAccept = 0;
  for (const s of summaries) {
    for (const r of s.reasons) reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + r.lines);
    for (const c of Object.keys(categories) as Array<keyof typeof categories>)
      categories[c] += s.categories[c];
    withoutUserAgent += s.withoutUserAgent;
    withAccept += s.withAccept;
  }
  const summary = {
    ...sum(summaries),
    format,
    reasons: sortedReasons(reasons),
    categories,
    withoutUserAgent,
    withAccept,
  };
  return { ...summary, warnings: importWarnings(summary) };
}

function sum(parts: Array<ImportProgress | undefined>): ImportProgress {
  const total: ImportProgress = { lines: 0, bytes: 0, imported: 0, duplicates: 0, skipped: 0 };
  for (const p of parts) {
    if (!p) continue;
    total.lines += p.lines;
    total.bytes += p.bytes;
    total.imported += p.imported;
    total.duplicates += p.duplicates;
    total.skipped += p.skipped;
  }
  return total;
}

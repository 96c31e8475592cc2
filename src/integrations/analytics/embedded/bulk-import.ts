import { syncToDisk } from './sqlite-file.ts';
import { ThreadLock } from './thread-lock.ts';

/** What a log import split over worker threads needs of the embedded engine. */
export interface BulkImport {
  /** Give to every worker's store (EmbeddedStoreOptions.threadLock): they take turns writing. */
  readonly threadLock: SharedArrayBuffer;
  /**
   * Call once every worker has finished: flushes the analytics file to disk, so the views the
   * workers committed with `synchronous: 'normal'` survive a power cut too.
   */
  finish(): void;
}

/**
 * The engine's one entry point for a parallel import into `file` (the CLI's `analytics import
 * --workers`): a write lock shared by the import's threads, and one sync to disk at the end.
 */
export function startBulkImport(file: string): BulkImport {
  return { threadLock: ThreadLock.buffer(), finish: () => syncToDisk(file) };
}

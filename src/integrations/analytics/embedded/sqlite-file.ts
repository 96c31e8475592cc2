import { closeSync, existsSync, fsyncSync, openSync } from 'node:fs';
import path from 'node:path';

/** Runs `fn` again, 10 ms apart and for at most 15 s, while SQLite answers SQLITE_BUSY. */
export function retryWhileBusy<T>(fn: () => T): T {
  const deadline = Date.now() + 15_000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      return fn();
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
}

/**
 * Flushes the analytics file and its write-ahead log to disk. Writers with `synchronous:
 * 'normal'` commit without syncing the log (their commits survive a process crash, not a power
 * cut); after this, every commit made so far survives a power cut too. In WAL mode, a commit is
 * either still in the log or was checkpointed into the file, which SQLite syncs after syncing
 * the log, so syncing both files (and the folder, for a log created since) covers every commit.
 */
export function syncToDisk(file: string): void {
  for (const name of [`${file}-wal`, file]) if (existsSync(name)) fsyncPath(name);
  try {
    fsyncPath(path.dirname(file));
  } catch {
    // Some platforms (Windows) cannot open a folder to sync it; the files are synced.
  }
}

function fsyncPath(name: string): void {
  const fd = openSync(name, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

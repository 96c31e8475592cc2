import type SqliteDatabase from 'better-sqlite3';
import { retryWhileBusy } from '../sqlite-file.ts';
import { tables } from './0001_tables.ts';
import { visitorBlocks } from './0002_visitor_blocks.ts';
import { indexGenerations } from './0003_index_generations.ts';
import { chunkSpans } from './0004_chunk_spans.ts';
import { visitorBlockPeriods } from './0005_visitor_block_periods.ts';
import { verifiedViews } from './0006_verified_views.ts';

/**
 * The analytics file's migrations, in order: the one at index i brings a file to schema i + 1
 * (SQLite's `user_version`). Append new ones; never change or reorder the ones here. Each is
 * idempotent (`if not exists`), as files written before the ladder was split ran every step.
 */
export const MIGRATIONS: ReadonlyArray<(sqlite: SqliteDatabase.Database) => void> = [
  tables,
  visitorBlocks,
  indexGenerations,
  chunkSpans,
  visitorBlockPeriods,
  verifiedViews,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the file to SCHEMA_VERSION, in one write transaction; refuses a file from a newer
 * Docwright. Processes opening the file at once: the first upgrades it, the others then find
 * nothing left to do (the version is read again under the write lock).
 */
export function migrate(sqlite: SqliteDatabase.Database, file: string): void {
  const version = () => sqlite.pragma('user_version', { simple: true }) as number;
  const check = (current: number) => {
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `The analytics file ${file} was written by a newer Docwright (schema ${current}); upgrade Docwright`,
      );
    }
  };
  check(version());
  if (version() === SCHEMA_VERSION) return;
  retryWhileBusy(() =>
    sqlite
      .transaction(() => {
        const current = version();
        check(current);
        for (let next = current; next < SCHEMA_VERSION; next++)
          (MIGRATIONS[next] as (s: typeof sqlite) => void)(sqlite);
        sqlite.pragma(`user_version = ${SCHEMA_VERSION}`);
      })
      .immediate(),
  );
}

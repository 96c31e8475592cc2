import type SqliteDatabase from 'better-sqlite3';

/**
 * Schema 3: a generation per project, bumped when its stored views are rewritten in place
 * (reclassification), so an index built from the old views is rebuilt (see CheckpointStore).
 */
export function indexGenerations(sqlite: SqliteDatabase.Database): void {
  sqlite.exec(
    'create table if not exists index_generations (project integer primary key, generation integer not null)',
  );
}

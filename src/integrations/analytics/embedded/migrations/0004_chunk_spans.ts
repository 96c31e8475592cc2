import type SqliteDatabase from 'better-sqlite3';

/**
 * Schema 4: each chunk's time span, its earliest and latest ms of day (null for older chunks:
 * they are read whatever span is asked for), so a clipped edge day reads only the chunks that
 * overlap its kept part.
 */
export function chunkSpans(sqlite: SqliteDatabase.Database): void {
  const columns = sqlite.prepare('select name from pragma_table_info(?)').pluck().all('chunks');
  if (!columns.includes('first_ms')) {
    sqlite.exec(
      'alter table chunks add column first_ms integer; alter table chunks add column last_ms integer',
    );
  }
  // The span is filtered in an index of its own: columns after a blob are slow to reach.
  sqlite.exec(
    'create index if not exists chunks_project_day_span on chunks (project, day, first_ms, last_ms)',
  );
}

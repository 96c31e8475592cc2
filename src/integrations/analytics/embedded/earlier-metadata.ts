import SqliteDatabase from 'better-sqlite3';

/**
 * The salts and settings an embedded analytics file holds from before they moved to the main
 * database (migration 0007), read with a connection of its own: the engine itself no longer
 * uses them. Tolerates files of any schema version that have the tables, or lack them.
 */
export interface EmbeddedMetadata {
  salts: Array<{ period: string; salt: Buffer; createdAt: string }>;
  settings: Array<{ projectId: string; value: string }>;
}

export function readEmbeddedMetadata(file: string): EmbeddedMetadata {
  return withFile(file, (sqlite, tables) => ({
    salts: tables.has('salts')
      ? (
          sqlite.prepare('select period, salt, created_at from salts order by period').all() as Array<{
            period: string;
            salt: Buffer;
            created_at: string;
          }>
        ).map((row) => ({ period: row.period, salt: row.salt, createdAt: row.created_at }))
      : [],
    settings: tables.has('settings')
      ? (
          sqlite.prepare('select project_id, value from settings order by project_id').all() as Array<{
            project_id: string;
            value: string;
          }>
        ).map((row) => ({ projectId: row.project_id, value: row.value }))
      : [],
  }));
}

/**
 * Deletes these salts from the file (each only if it still holds that very value), once the
 * main database has them: salts are deleted after their retention there, and a copy left in
 * the file would outlive that promise.
 */
export function removeEmbeddedSalts(
  file: string,
  salts: ReadonlyArray<{ period: string; salt: Buffer }>,
): void {
  if (salts.length === 0) return;
  withFile(file, (sqlite, tables) => {
    if (!tables.has('salts')) return;
    const remove = sqlite.prepare('delete from salts where period = ? and salt = ?');
    sqlite.transaction(() => {
      for (const salt of salts) remove.run(salt.period, salt.salt);
    })();
  });
}

/**
 * How many views of these projects the file holds (0 when it has no views table yet): the
 * views of another installation that shared the data directory are not counted.
 */
export function embeddedViewCount(file: string, projectIds: readonly string[]): number {
  if (projectIds.length === 0) return 0;
  const sqlite = new SqliteDatabase(file, { fileMustExist: true, readonly: true, timeout: 15_000 });
  try {
    const chunks = sqlite
      .prepare("select 1 from sqlite_master where type = 'table' and name = 'chunks'")
      .get();
    if (!chunks) return 0;
    const count = sqlite.prepare(
      'select coalesce(sum(c.count), 0) from chunks c join projects p on p.no = c.project where p.value = ?',
    );
    return projectIds.reduce((sum, id) => sum + Number(count.pluck().get(id)), 0);
  } finally {
    sqlite.close();
  }
}

function withFile<T>(file: string, fn: (sqlite: SqliteDatabase.Database, tables: Set<string>) => T): T {
  const sqlite = new SqliteDatabase(file, { fileMustExist: true, timeout: 15_000 });
  try {
    const tables = new Set(
      sqlite
        .prepare("select name from sqlite_master where type = 'table' and name in ('salts', 'settings')")
        .pluck()
        .all() as string[],
    );
    return fn(sqlite, tables);
  } finally {
    sqlite.close();
  }
}

import type SqliteDatabase from 'better-sqlite3';

/**
 * Schema 6: a view's flags byte holds whether its agent was verified (bit 6; see record.ts), and
 * the index keeps purposes and verified agents (snapshot format 3). Stored views need no change:
 * bit 6 was always clear, so they read as not verified, as the contract says. The version bump
 * is what matters: a Docwright of schema 5 would read bit 6 as part of the purpose code, so it
 * must refuse the file. Snapshots of format 2 lack the new sets: they are dropped here (a project
 * is rebuilt from its views on its first query) rather than found unreadable one by one.
 */
export function verifiedViews(sqlite: SqliteDatabase.Database): void {
  sqlite.exec('delete from day_snapshots');
  sqlite.exec('delete from snapshot_marks');
}

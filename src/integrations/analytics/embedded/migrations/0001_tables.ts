import type SqliteDatabase from 'better-sqlite3';

/**
 * Schema 1: the dictionaries (value ↔ dense number), the views as packed chunks in commit
 * order, the per-day snapshots of the in-memory index, the salts and the settings. Schema 1
 * also kept one row per visitor key in `visitor_keys`; a new file starts with schema 2's
 * blocks instead (0002).
 */
export function tables(sqlite: SqliteDatabase.Database): void {
  sqlite.exec(`
    create table if not exists projects (no integer primary key, value text not null unique);
    create table if not exists paths (no integer primary key, value text not null unique);
    create table if not exists agents (no integer primary key, value text not null unique);
    create table if not exists user_agents (no integer primary key, value text not null unique);
    create table if not exists referrers (no integer primary key, value text not null unique);
    create table if not exists chunks (
      seq integer primary key,
      project integer not null,
      day integer not null,
      count integer not null,
      data blob not null
    );
    create index if not exists chunks_project_day on chunks (project, day);
    create table if not exists day_snapshots (
      project integer not null,
      day integer not null,
      data blob not null,
      primary key (project, day)
    );
    create table if not exists snapshot_marks (project integer primary key, covered_seq integer not null);
    create table if not exists salts (period text primary key, salt blob not null, created_at text not null);
    create table if not exists settings (project_id text primary key, value text not null);
  `);
}

import type SqliteDatabase from 'better-sqlite3';
import { BLOCK_KEYS, KEY_BYTES } from '../visitor-dictionary.ts';

/**
 * Schema 2: visitor keys in blocks of BLOCK_KEYS (see VisitorDictionary); schema 1's
 * per-visitor rows of `visitor_keys`, in number order, move into them.
 */
export function visitorBlocks(sqlite: SqliteDatabase.Database): void {
  sqlite.exec('create table if not exists visitor_blocks (block integer primary key, data blob not null)');
  const old = sqlite.prepare("select 1 from sqlite_master where name = 'visitor_keys'").get();
  if (!old) return;
  const insert = sqlite.prepare('insert into visitor_blocks (block, data) values (?, ?)');
  const range = sqlite
    .prepare('select no, value from visitor_keys where no > ? and no <= ? order by no')
    .raw();
  const max = sqlite.prepare('select coalesce(max(no), 0) from visitor_keys').pluck().get() as number;
  const block = Buffer.alloc(BLOCK_KEYS * KEY_BYTES);
  for (let b = 0; b * BLOCK_KEYS < max; b++) {
    block.fill(0);
    const rows = range.all(b * BLOCK_KEYS, (b + 1) * BLOCK_KEYS) as Array<[number, Buffer]>;
    for (const [no, value] of rows) value.copy(block, ((no - 1) % BLOCK_KEYS) * KEY_BYTES, 0, KEY_BYTES);
    insert.run(b, block.subarray(0, (Math.min(max, (b + 1) * BLOCK_KEYS) - b * BLOCK_KEYS) * KEY_BYTES));
  }
  sqlite.exec('drop table visitor_keys');
}

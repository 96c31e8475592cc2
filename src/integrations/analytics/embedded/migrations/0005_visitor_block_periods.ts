import type SqliteDatabase from 'better-sqlite3';
import { blockPeriods, KEY_BYTES } from '../visitor-dictionary.ts';

/**
 * Schema 5: the salt periods each block of visitor keys holds, so only the keys of recent
 * periods are loaded up front (see VisitorDictionary); described here for existing blocks.
 */
export function visitorBlockPeriods(sqlite: SqliteDatabase.Database): void {
  sqlite.exec(`
    create table if not exists visitor_block_periods (
      block integer primary key,
      first_period integer not null,
      last_period integer not null,
      fixed integer not null
    )
  `);
  const insert = sqlite.prepare(
    'insert into visitor_block_periods (block, first_period, last_period, fixed) values (?, ?, ?, ?)',
  );
  // A page at a time: the connection cannot insert while it iterates.
  const page = sqlite
    .prepare(
      `select block, data from visitor_blocks
       where block > ? and block not in (select block from visitor_block_periods)
       order by block limit 1024`,
    )
    .raw();
  let after = -1;
  for (;;) {
    const rows = page.all(after) as Array<[number, Buffer]>;
    if (rows.length === 0) return;
    for (const [block, data] of rows) {
      const { first, last, fixed } = blockPeriods(data, data.length / KEY_BYTES);
      insert.run(block, first, last, fixed);
      after = block;
    }
  }
}

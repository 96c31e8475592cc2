import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { compiledOnce } from '../../src/storage/queries/compiled-once.ts';
import type { Database } from '../../src/storage/schema.ts';

const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(':memory:') }) });

describe('compiledOnce', () => {
  it('runs the compiled query with each call’s values', async () => {
    await db.schema.createTable('projects').addColumn('id', 'text').addColumn('name', 'text').execute();
    await db
      .insertInto('projects')
      .values([{ id: 'a', name: 'A' } as never, { id: 'b', name: 'B' } as never])
      .execute();
    const byId = compiledOnce('byId', (d, id: string) =>
      d.selectFrom('projects').select('name').where('id', '=', id),
    );
    expect(await byId(db, 'a')).toEqual([{ name: 'A' }]);
    expect(await byId(db, 'b')).toEqual([{ name: 'B' }]);
    expect(await byId(db, 'c')).toEqual([]);
  });

  it('refuses a query whose parameters are not exactly its arguments in order', async () => {
    const reordered = compiledOnce('reordered', (d, name: string, id: string) =>
      d.selectFrom('projects').selectAll().where('id', '=', id).where('name', '=', name),
    );
    await expect(reordered(db, 'A', 'a')).rejects.toThrow(
      /does not use its parameters exactly once and in order/,
    );
    const withConstant = compiledOnce('withConstant', (d, id: string) =>
      d.selectFrom('projects').selectAll().where('id', '=', id).where('name', '!=', 'x'),
    );
    await expect(withConstant(db, 'a')).rejects.toThrow(/exactly once/);
  });
});

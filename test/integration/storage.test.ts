import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/database.ts';
import { migrate } from '../../src/storage/migrate.ts';
import {
  createTestDatabase,
  currentSchema,
  openTestStorage,
  type TestDatabase,
  testBackend,
} from '../helpers/storage.ts';

describe(`storage on ${testBackend}`, () => {
  let storage: Storage;
  let database: TestDatabase;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ storage, database, cleanup } = await openTestStorage());
  });
  afterEach(() => cleanup());

  it('runs on the backend this project names', () => {
    expect(storage.dialect).toBe(testBackend);
  });

  it.runIf(testBackend === 'postgres')('runs in a PostgreSQL schema of its own', async () => {
    expect(await currentSchema(storage)).toMatch(/^dw_test_/);
  });

  it('applies migrations once and is idempotent afterwards', async () => {
    expect((await migrate(storage, database.config)).applied).toEqual([]);
    const tables = await storage.db.introspection.getTables();
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining(['projects', 'api_keys', 'jobs', 'turns', 'messages', 'rate_limit_windows']),
    );
  });

  it('migrates a schema of its own even when another schema of the database has Kysely tables', async () => {
    // `storage` above already holds migration tables in its schema; a second installation in
    // another schema of the same database must still get its own.
    const sibling = createTestDatabase();
    const other = sibling.open();
    try {
      expect((await migrate(other, sibling.config)).applied).toContain('0001_initial');
      expect((await other.db.selectFrom('projects').selectAll().execute()).length).toBe(0);
    } finally {
      await other.close();
      await sibling.drop();
    }
  });

  it.runIf(testBackend === 'postgres')(
    "reads only its own schema's tables, so a schema dropped meanwhile elsewhere cannot fail a migration",
    async () => {
      // Kysely's own introspector visits every schema of the database (has_schema_privilege on
      // each), and failed whenever another installation or test dropped one at that moment.
      const sibling = createTestDatabase();
      const other = sibling.open();
      try {
        await migrate(other, sibling.config);
        await sql`create table ${sql.id(String(sibling.env.DOCWRIGHT_DATABASE_SCHEMA))}.only_there (x int)`.execute(
          other.db,
        );
        const tables = await storage.db.introspection.getTables({ withInternalKyselyTables: true });
        expect(new Set(tables.map((t) => t.schema))).toEqual(new Set([await currentSchema(storage)]));
        expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['projects', 'kysely_migration']));
        expect(tables.map((t) => t.name)).not.toContain('only_there');
        const projects = tables.find((t) => t.name === 'projects');
        expect(projects?.columns.find((c) => c.name === 'id')).toMatchObject({
          dataType: 'text',
          isNullable: false,
        });
      } finally {
        await other.close();
        await sibling.drop();
      }
    },
  );
});

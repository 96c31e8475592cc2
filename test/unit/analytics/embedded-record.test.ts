import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnalyticsDatabase } from '../../../src/integrations/analytics/embedded/analytics-database.ts';
import {
  MIGRATIONS,
  SCHEMA_VERSION,
} from '../../../src/integrations/analytics/embedded/migrations/migrate.ts';
import { flagsByte, RecordWriter, ViewCursor } from '../../../src/integrations/analytics/embedded/record.ts';

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const view = fc.record({
  ms: fc.integer({ min: 0, max: 86_399_999 }),
  path: u32,
  visitor: u32,
  agent: u32,
  userAgent: u32,
  referrer: u32,
  status: fc.integer({ min: 0, max: 0xffff }),
  category: fc.integer({ min: 0, max: 255 }),
  fetch: fc.integer({ min: 0, max: 7 }),
  purpose: fc.integer({ min: 0, max: 7 }),
  verified: fc.boolean(),
  classifier: u32,
  keyLo: u32,
  keyHi: u32,
});

describe('embedded view record', () => {
  it('reads back every field it was written with, in order, and rewrites only the classification', () => {
    fc.assert(
      fc.property(fc.array(view, { maxLength: 200 }), u32, (views, version) => {
        const writer = new RecordWriter(3, 20_000);
        for (const v of views) {
          writer.push(
            v.ms,
            v.path,
            v.visitor,
            v.agent,
            v.userAgent,
            v.referrer,
            v.status,
            v.category,
            flagsByte(v.fetch, v.purpose, v.verified),
            v.classifier,
            v.keyLo,
            v.keyHi,
          );
        }
        expect(writer.count).toBe(views.length);
        if (views.length > 0) {
          expect(writer.firstMs).toBe(Math.min(...views.map((v) => v.ms)));
          expect(writer.lastMs).toBe(Math.max(...views.map((v) => v.ms)));
        }
        const read = (): unknown[] => {
          const out: unknown[] = [];
          for (const c = new ViewCursor(writer); c.next(); ) {
            out.push({
              ms: c.msOfDay,
              path: c.path,
              visitor: c.visitor,
              agent: c.agent,
              userAgent: c.userAgent,
              referrer: c.referrer,
              status: c.status,
              category: c.category,
              fetch: c.fetchFlags,
              purpose: c.purposeCode,
              verified: c.verified,
              classifier: c.classifierVersion,
              keyLo: c.keyLo,
              keyHi: c.keyHi,
            });
          }
          return out;
        };
        expect(read()).toEqual(views);
        for (const c = new ViewCursor(writer); c.next(); )
          c.reclassify(7, 1, flagsByte(c.fetchFlags, 2, c.verified), version);
        expect(read()).toEqual(
          views.map((v) => ({ ...v, agent: 7, category: 1, purpose: 2, classifier: version })),
        );
      }),
    );
  });
});

describe('embedded analytics file migrations', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dw-migrations-'));
    file = path.join(dir, 'analytics.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const schemaOf = (sqlite: SqliteDatabase.Database) =>
    sqlite
      .prepare("select type, name, sql from sqlite_master where name not like 'sqlite_%' order by name")
      .all();

  it('brings a file of every earlier schema to the same tables and indexes as a new one', () => {
    new AnalyticsDatabase({ file }).close();
    const fresh = new SqliteDatabase(file);
    const expected = schemaOf(fresh);
    expect(fresh.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    fresh.close();
    for (let version = 1; version < SCHEMA_VERSION; version++) {
      const older = path.join(dir, `v${version}.sqlite`);
      const sqlite = new SqliteDatabase(older);
      for (const migration of MIGRATIONS.slice(0, version)) migration(sqlite);
      sqlite.pragma(`user_version = ${version}`);
      sqlite.close();
      new AnalyticsDatabase({ file: older }).close();
      const upgraded = new SqliteDatabase(older);
      expect(schemaOf(upgraded)).toEqual(expected);
      expect(upgraded.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      upgraded.close();
    }
  });

  it('refuses a file written by a newer Docwright, naming its schema', () => {
    const sqlite = new SqliteDatabase(file);
    sqlite.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    sqlite.close();
    expect(() => new AnalyticsDatabase({ file })).toThrow(
      `was written by a newer Docwright (schema ${SCHEMA_VERSION + 1}); upgrade Docwright`,
    );
  });
});

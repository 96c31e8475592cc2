import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnalyticsDatabase } from '../../../src/integrations/analytics/embedded/analytics-database.ts';
import { MIGRATIONS } from '../../../src/integrations/analytics/embedded/migrations/migrate.ts';
import { RECORD_WORDS, RecordWriter } from '../../../src/integrations/analytics/embedded/record.ts';

/** A chunk of views at these ms of day (project 1, day 20000), as the engine writes them. */
const viewsAt = (...ms: number[]) => {
  const writer = new RecordWriter(1, 20000);
  for (const at of ms) writer.push(at, 1, 1, 1, 1, 0, 200, 0, 0, 1, 0, 0);
  return writer;
};

const key = (n: number) => createHash('sha256').update(`visitor ${n}`).digest().subarray(0, 16);

describe('visitor dictionary (keys stored in blocks)', () => {
  let dir: string;
  let file: string;
  const open: AnalyticsDatabase[] = [];
  const connect = () => {
    const db = new AnalyticsDatabase({ file, synchronous: 'normal' });
    open.push(db);
    return db;
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dw-visitors-'));
    file = path.join(dir, 'analytics.sqlite');
  });
  afterEach(() => {
    for (const db of open.splice(0)) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every number through the lookup table growing, in one transaction and across several', () => {
    const db = connect();
    const numbers: number[] = [];
    // 200,000 keys: the table starts at 65,536 slots and grows several times, once mid-transaction.
    db.write(() => {
      for (let n = 0; n < 120_000; n++) numbers.push(db.visitors.idFor(key(n)));
    });
    for (let start = 120_000; start < 200_000; start += 20_000) {
      db.write(() => {
        for (let n = start; n < start + 20_000; n++) numbers.push(db.visitors.idFor(key(n)));
      });
    }
    expect(numbers).toEqual(Array.from({ length: 200_000 }, (_, i) => i + 1));
    db.write(() => {
      for (let n = 0; n < 200_000; n += 997) expect(db.visitors.idFor(key(n))).toBe(n + 1);
    });
    expect(db.visitors.loadedKeys()).toBe(200_000);
    const reopened = connect();
    reopened.write(() => {
      for (let n = 0; n < 200_000; n += 991) expect(reopened.visitors.idFor(key(n))).toBe(n + 1);
      expect(reopened.visitors.idFor(key(200_000))).toBe(200_001);
    });
  });

  it('numbers visitors densely across block boundaries and two connections, stable after reopening', () => {
    const a = connect();
    const b = connect();
    const numbers = new Map<number, number>();
    // Interleaved writers, each transaction crossing or ending near a 256-key block boundary.
    const batches = [3000, 2000, 4096, 1, 255, 5000, 4095];
    let next = 0;
    batches.forEach((size, i) => {
      const db = i % 2 === 0 ? a : b;
      db.write(() => {
        for (let n = next; n < next + size; n++) numbers.set(n, db.visitors.idFor(key(n)));
        // A repeat inside the transaction, and one from the other connection's batches.
        expect(db.visitors.idFor(key(next))).toBe(numbers.get(next));
        expect(db.visitors.idFor(key(0))).toBe(numbers.get(0));
      });
      next += size;
    });
    const assigned = [...numbers.values()].sort((x, y) => x - y);
    expect(assigned).toEqual(Array.from({ length: next }, (_, i) => i + 1));
    expect(a.visitorUniverse()).toBe(next + 1);
    expect(b.visitorUniverse()).toBe(next + 1);

    for (const db of open.splice(0)) db.close();
    const reopened = connect();
    reopened.write(() => {
      for (const n of [0, 2999, 3000, 4095, 4096, 9000, next - 1])
        expect(reopened.visitors.idFor(key(n))).toBe(numbers.get(n));
      expect(reopened.visitors.idFor(key(next))).toBe(next + 1);
    });
  });

  it('forgets numbers handed out in a transaction that rolled back', () => {
    const db = connect();
    db.write(() => db.visitors.idFor(key(1)));
    expect(() =>
      db.write(() => {
        db.visitors.idFor(key(2));
        throw new Error('boom');
      }),
    ).toThrow('boom');
    db.write(() => {
      expect(db.visitors.idFor(key(3))).toBe(2);
      expect(db.visitors.idFor(key(1))).toBe(1);
    });
  });

  it('moves the per-visitor rows of a schema-1 file into blocks, keeping every number', () => {
    const old = new SqliteDatabase(file);
    MIGRATIONS[0]?.(old);
    old.exec('create table visitor_keys (no integer primary key, value blob not null)');
    const insert = old.prepare('insert into visitor_keys (no, value) values (?, ?)');
    // One transaction: 5,000 commits, each synced, took most of a minute on a busy disk.
    old.transaction(() => {
      for (let n = 1; n <= 5000; n++) insert.run(n, key(n));
    })();
    old.pragma('user_version = 1');
    old.close();

    const db = connect();
    expect(db.visitorUniverse()).toBe(5001);
    db.write(() => {
      for (const n of [1, 4096, 4097, 5000]) expect(db.visitors.idFor(key(n))).toBe(n);
      expect(db.visitors.idFor(key(5001))).toBe(5001);
    });
    const tables = db.sqlite.prepare("select name from sqlite_master where name = 'visitor_keys'").all();
    expect(tables).toEqual([]);
  });

  it('gives a schema-2 file chunk time spans, reading its older chunks whatever the span', () => {
    const old = new SqliteDatabase(file);
    for (const migration of MIGRATIONS.slice(0, 2)) migration(old);
    const early = viewsAt(3_600_000); // 01:00
    old
      .prepare('insert into chunks (project, day, count, data) values (1, 20000, 1, ?)')
      .run(Buffer.from(early.words.buffer, 0, early.count * RECORD_WORDS * 4));
    old.pragma('user_version = 2');
    old.close();

    const db = connect();
    const inSpan = (from: number, to: number) =>
      [...db.chunks.dayInSpan(1, 20000, Number.MAX_SAFE_INTEGER, from, to)].map((c) => c.seq);
    expect(inSpan(0, 1000)).toEqual([1]); // no span stored: always read
    const late = viewsAt(20 * 3_600_000, 22 * 3_600_000);
    const seq = db.write(() => db.chunks.insert(1, 20000, late.count, late.words, late));
    expect(inSpan(0, 20 * 3_600_000)).toEqual([1]);
    expect(inSpan(20 * 3_600_000, 20 * 3_600_000 + 1)).toEqual([1, seq]);
    expect(inSpan(22 * 3_600_000, 24 * 3_600_000)).toEqual([1, seq]);
    expect(inSpan(22 * 3_600_000 + 1, 24 * 3_600_000)).toEqual([1]);
  });

  describe('under salt rotation', () => {
    // A key starts with its period's first day (big-endian), 0 for `never` and caller ids.
    const periodKey = (period: number, n: number) => {
      const k = Buffer.from(createHash('sha256').update(`${period}/${n}`).digest().subarray(0, 16));
      k.writeUInt32BE(period, 0);
      return k;
    };
    const fill = (db: AnalyticsDatabase) => {
      const numbers = new Map<string, number>();
      for (let day = 20_000; day < 20_030; day++) {
        db.write(() => {
          for (let n = 0; n < 300; n++) numbers.set(`${day}/${n}`, db.visitors.idFor(periodKey(day, n)));
        });
      }
      db.write(() => {
        for (let n = 0; n < 10; n++) numbers.set(`0/${n}`, db.visitors.idFor(periodKey(0, n)));
      });
      return numbers;
    };
    const check = (db: AnalyticsDatabase, numbers: Map<string, number>) => {
      db.write(() => {
        // The newest period is 20029: 20021 on is loaded up front (2,700 keys), with the
        // block 20020 ends in and the caller ids; the 20 older days are not.
        const upFront = db.visitors.loadedKeys();
        expect(upFront).toBeGreaterThanOrEqual(2710);
        expect(upFront).toBeLessThan(2710 + 2 * 256);
        expect(db.visitors.idFor(periodKey(20_001, 5))).toBe(numbers.get('20001/5'));
        expect(db.visitors.loadedKeys()).toBe(9010); // an older key came up: all of them now
        expect(db.visitors.idFor(periodKey(20_001, 999))).toBe(9011); // new in an old period
        for (const [name, no] of numbers) {
          const [period, n] = name.split('/').map(Number) as [number, number];
          expect(db.visitors.idFor(periodKey(period, n))).toBe(no);
        }
      });
      expect(db.visitorUniverse()).toBe(9012);
    };

    it('keeps recent periods in memory and loads the older ones when one of their keys comes up', () => {
      const numbers = fill(connect());
      const fresh = connect();
      check(fresh, numbers);
      // The first connection sees the number the second one handed out in an old period.
      const first = open[0] as AnalyticsDatabase;
      first.write(() => expect(first.visitors.idFor(periodKey(20_001, 999))).toBe(9011));
    });

    it('loads every key up front for a bulk import', () => {
      const numbers = fill(connect());
      const importer = new AnalyticsDatabase({ file, synchronous: 'normal', visitorKeys: 'all' });
      open.push(importer);
      importer.write(() => {
        expect(importer.visitors.loadedKeys()).toBe(9010);
        expect(importer.visitors.idFor(periodKey(20_001, 5))).toBe(numbers.get('20001/5'));
      });
    });

    it('describes the blocks of a schema-4 file on open', () => {
      const writer = connect();
      const numbers = fill(writer);
      writer.sqlite.exec('delete from visitor_block_periods; pragma user_version = 4');
      writer.close();
      open.splice(0);
      check(connect(), numbers);
    });
  });
});

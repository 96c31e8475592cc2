import { afterAll, describe, expect, inject, it } from 'vitest';
import { connect } from '../../../src/integrations/analytics/clickhouse/connection.ts';
import {
  RowBinaryReader,
  RowBinaryWriter,
} from '../../../src/integrations/analytics/clickhouse/row-binary.ts';

const connection = connect({ url: inject('clickhouseUrl'), database: 'system' });
afterAll(() => connection.close());

describe('RowBinary, through the real server', () => {
  it('round-trips strings of every length, UInt64 keys, Nullable and trimmed arrays', async () => {
    const strings = [
      '',
      'a',
      'x'.repeat(42),
      'é'.repeat(42), // 84 bytes: still a 1-byte length
      'ü'.repeat(64), // 128 bytes: a 2-byte length
      '€'.repeat(43),
      'y'.repeat(20_000),
      "quote ' backslash \\ tab \t newline \n nul \0",
      '𝄞 and a lone \ud800 surrogate',
    ];
    const key = Buffer.from('0102030405060708f0e0d0c0b0a09080', 'hex');
    const writer = new RowBinaryWriter();
    for (const [i, s] of strings.entries()) {
      writer.string(s);
      writer.uint64FromBytes(key, 0);
      writer.uint64FromLatin1(key.toString('latin1'), 8);
      writer.nullableString(i % 2 === 0 ? null : s);
      writer.int64(-(2 ** 40) - i);
      writer.arrayInt32([i, -2147483648, 7], i % 4);
    }
    const answer = new RowBinaryReader(
      await connection.queryBinary(
        "SELECT s, hi, lo, hex(hi), ifNull(n, 'NULL'), toInt32(i + 1099511627776), toUInt32(length(a)), toInt32(arraySum(a) % 1000) FROM rows",
        {
          name: 'rows',
          structure: 's String, hi UInt64, lo UInt64, n Nullable(String), i Int64, a Array(Int32)',
          rows: writer.bytes(),
        },
      ),
    );
    for (const [i, s] of strings.entries()) {
      const sent = s.toWellFormed();
      expect(answer.string()).toBe(sent);
      expect(answer.uint64Latin1()).toBe(key.subarray(0, 8).toString('latin1'));
      expect(answer.uint64Latin1()).toBe(key.subarray(8).toString('latin1'));
      expect(answer.string()).toBe('0102030405060708');
      expect(answer.string()).toBe(i % 2 === 0 ? 'NULL' : sent);
      expect(answer.int32()).toBe(0 - i); // i + 2⁴⁰
      expect(answer.uint32()).toBe(i % 4);
      const sum = [i, -2147483648, 7].slice(0, i % 4).reduce((a, b) => a + b, 0);
      expect(answer.int32()).toBe(sum % 1000);
    }
    expect(answer.done).toBe(true);
  });
});

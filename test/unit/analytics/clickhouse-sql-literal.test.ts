import { createClient } from '@clickhouse/client';
import fc from 'fast-check';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { literal } from '../../../src/integrations/analytics/clickhouse/sql-literal.ts';

// Every value reaches ClickHouse SQL through `literal`: whatever it holds, the server must read
// back exactly the same bytes, as one value, and nothing else of it may run.
const client = createClient({
  url: inject('clickhouseUrl'),
  clickhouse_settings: { max_query_size: '67108864' },
});
afterAll(() => client.close());

async function hexOf(sqlLiteral: string): Promise<Array<{ h: string }>> {
  const result = await client.query({ query: `SELECT hex(${sqlLiteral}) AS h`, format: 'JSONEachRow' });
  return result.json<{ h: string }>();
}

const nasty = fc.constantFrom(
  "'",
  "\\'",
  '\\',
  "'; DROP DATABASE default; --",
  "\\'; SELECT 1; --",
  '\u0000',
  '\x7f',
  '\r\n\t\b\f\v',
  '\\x00',
  '\\u0027',
  '`',
  '"',
  '{name:String}',
  '?',
  '\ud800',
  '\udfff',
  'é',
  '😀',
);
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc
    .array(fc.oneof(nasty, fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 12 })
    .map((p) => p.join('')),
);

describe('ClickHouse SQL literals', () => {
  it('round-trip any string as its UTF-8 bytes', async () => {
    await fc.assert(
      fc.asyncProperty(text, async (value) => {
        const rows = await hexOf(literal(value));
        expect(rows).toEqual([{ h: Buffer.from(value, 'utf8').toString('hex').toUpperCase() }]);
      }),
      { numRuns: 300 },
    );
  });

  it('round-trip any bytes, UTF-8 or not', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 64 }), async (bytes) => {
        const buffer = Buffer.from(bytes);
        const rows = await hexOf(literal(buffer));
        expect(rows).toEqual([{ h: buffer.toString('hex').toUpperCase() }]);
      }),
      { numRuns: 200 },
    );
  });

  it('round-trip very long strings', async () => {
    const long = `${"'\\\u0000é".repeat(50_000)}${'x'.repeat(200_000)}`;
    const result = await client.query({
      query: `SELECT length(${literal(long)}) AS n, hex(SHA256(${literal(long)})) AS h`,
      format: 'JSONEachRow',
    });
    const { createHash } = await import('node:crypto');
    expect(await result.json()).toEqual([
      {
        n: String(Buffer.byteLength(long)),
        h: createHash('sha256').update(long).digest('hex').toUpperCase(),
      },
    ]);
  });

  it('write integers, arrays and NULL as themselves', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 5 }),
        fc.array(text, { minLength: 1, maxLength: 5 }),
        async (numbers, strings) => {
          const result = await client.query({
            query: `SELECT arrayMap(x -> toString(x), ${literal(numbers)}) AS n, arrayMap(s -> hex(s), ${literal(strings)}) AS s, isNull(${literal(null)}) AS z`,
            format: 'JSONEachRow',
          });
          expect(await result.json()).toEqual([
            {
              n: numbers.map(String),
              s: strings.map((s) => Buffer.from(s, 'utf8').toString('hex').toUpperCase()),
              z: 1,
            },
          ]);
        },
      ),
      { numRuns: 100 },
    );
    expect(() => literal(1.5)).toThrow(/safe integer/);
    expect(literal(2n ** 64n - 1n)).toBe('18446744073709551615');
  });
});

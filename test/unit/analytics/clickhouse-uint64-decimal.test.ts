import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { uint64Decimal } from '../../../src/integrations/analytics/clickhouse/uint64-decimal.ts';

describe('uint64Decimal', () => {
  it('writes every UInt64 as BigInt does', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (value) => {
        const bytes = Buffer.alloc(10);
        bytes.writeBigUInt64BE(value, 2);
        expect(uint64Decimal(bytes, 2)).toBe(value.toString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('writes the edges exactly', () => {
    for (const value of [
      0n,
      1n,
      999_999n,
      1_000_000n,
      2n ** 32n - 1n,
      2n ** 32n,
      2n ** 53n + 1n,
      2n ** 64n - 1n,
    ]) {
      const bytes = Buffer.alloc(8);
      bytes.writeBigUInt64BE(value, 0);
      expect(uint64Decimal(bytes, 0)).toBe(value.toString());
    }
  });
});

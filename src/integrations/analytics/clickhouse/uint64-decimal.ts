/**
 * The decimal text of a big-endian UInt64 in a Buffer, as ClickHouse reads and writes UInt64,
 * without BigInt: ingestion writes two per view (the visitor key's halves), and BigInt's
 * conversion was a visible part of an append's time. Exact: the value is split as
 * high · 2³² + low, with 2³² = 4294 · 10⁶ + 967296, so every intermediate stays below 2⁵³.
 */
export function uint64Decimal(bytes: Buffer, offset: number): string {
  const high = bytes.readUInt32BE(offset);
  const low = bytes.readUInt32BE(offset + 4);
  const below = high * 967_296 + low; // < 4.2e15
  const millions = high * 4294 + Math.floor(below / 1_000_000); // < 1.9e13
  const units = below % 1_000_000;
  return millions === 0 ? String(units) : `${millions}${String(units).padStart(6, '0')}`;
}

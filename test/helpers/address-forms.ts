import fc from 'fast-check';
import ipaddr from 'ipaddr.js';

/**
 * Addresses and the many ways of writing them, for the outgoing-network policy's property
 * tests. Addresses are made as bytes from ipaddr.js's tables of special ranges (data, not
 * its parser), so a new range in a later version is tested as soon as it is installed.
 */

type V4Range = [ipaddr.IPv4, number];
type V6Range = [ipaddr.IPv6, number];

const rangesOf = <T>(table: Record<string, T | T[]>): [string, T][] =>
  Object.entries(table).flatMap(([name, ranges]) => {
    const list = Array.isArray((ranges as unknown[])[0]) ? (ranges as T[]) : [ranges as T];
    return list.map((range) => [name, range] as [string, T]);
  });

/** ipaddr.js's named ranges, each subnet with its name. */
export const IPV4_SPECIAL: [string, V4Range][] = rangesOf(
  (ipaddr.IPv4.prototype as unknown as { SpecialRanges: Record<string, V4Range | V4Range[]> }).SpecialRanges,
);
export const IPV6_SPECIAL: [string, V6Range][] = rangesOf(
  (ipaddr.IPv6.prototype as unknown as { SpecialRanges: Record<string, V6Range | V6Range[]> }).SpecialRanges,
);

/** A random address inside `base/bits`, as bytes. */
function inRange(base: number[], bits: number): fc.Arbitrary<number[]> {
  return fc
    .array(fc.integer({ min: 0, max: 255 }), { minLength: base.length, maxLength: base.length })
    .map((random) =>
      base.map((byte, i) => {
        const fixed = Math.max(0, Math.min(8, bits - i * 8));
        const mask = (0xff << (8 - fixed)) & 0xff;
        return (byte & mask) | ((random[i] as number) & ~mask & 0xff);
      }),
    );
}

const v4Bytes = (address: number[]) => new ipaddr.IPv4(address);
const v6Bytes = (address: number[]) => ipaddr.fromByteArray(address) as ipaddr.IPv6;

/** An IPv4 address in one of ipaddr.js's special ranges (every one of them is refused). */
export const specialIPv4 = fc
  .constantFrom(...IPV4_SPECIAL)
  .chain(([name, [base, bits]]) => inRange(base.toByteArray(), bits).map((b) => ({ name, bytes: b })));

/** An IPv4 address in none of them: public unicast. */
export const publicIPv4 = fc
  .array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 })
  .filter((b) => v4Bytes(b).range() === 'unicast');

// Judged by the IPv4 address they carry rather than by their own range.
const CARRIERS = new Set(['ipv4Mapped']);
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const carries = (b: number[]) => v6Bytes(b).range() === 'ipv4Mapped' || v6Bytes(b).match(NAT64);

/**
 * An IPv6 address refused by its own range: ipaddr.js's special ranges (but IPv4-mapped and
 * the well-known NAT64 prefix), IPv4-compatible ::/96, and addresses outside 2000::/3.
 */
export const specialIPv6 = fc.oneof(
  fc
    .constantFrom(...IPV6_SPECIAL.filter(([name]) => !CARRIERS.has(name)))
    .chain(([name, [base, bits]]) => inRange(base.toByteArray(), bits).map((b) => ({ name, bytes: b })))
    .filter(({ bytes }) => !carries(bytes)),
  inRange(new Array(16).fill(0), 96).map((b) => ({ name: 'ipv4Compatible', bytes: b })),
  inRange(new Array(16).fill(0), 0)
    .filter((b) => b[0] !== undefined && (b[0] & 0xe0) !== 0x20 && !carries(b))
    .map((b) => ({ name: 'outside 2000::/3', bytes: b })),
);

/** A public IPv6 address: in 2000::/3 and none of the special ranges. */
export const publicIPv6 = inRange([0x20, ...new Array(15).fill(0)], 3).filter(
  (b) => v6Bytes(b).range() === 'unicast',
);

/** The IPv6 forms that carry an IPv4 address: mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d). */
export const carrierOf = (v4: number[]): fc.Arbitrary<number[]> =>
  fc.constantFrom<number[]>(
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4],
    [0, 0x64, 0xff, 0x9b, ...new Array(8).fill(0), ...v4],
  );

/** Every address refused in itself, or an IPv6 form that carries a refused IPv4 address (as bytes). */
export const refusedAddress: fc.Arbitrary<number[]> = fc.oneof(
  specialIPv4.map(({ bytes }) => bytes),
  specialIPv6.map(({ bytes }) => bytes),
  specialIPv4.chain(({ bytes }) => carrierOf(bytes)),
);

/** A public address, or an IPv6 form that carries a public IPv4 address (as bytes). */
export const allowedAddress: fc.Arbitrary<number[]> = fc.oneof(
  publicIPv4,
  publicIPv6,
  publicIPv4.chain(carrierOf),
);

/** The canonical text of an address given as bytes. */
export const canonical = (bytes: number[]) =>
  bytes.length === 4 ? v4Bytes(bytes).toString() : v6Bytes(bytes).toString();

const randomCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

/** One number of a dotted IPv4 host in decimal, octal (0…) or hex (0x…), with leading zeros. */
function numberForm(value: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(String(value)),
    fc.nat(3).map((zeros) => `0${'0'.repeat(zeros)}${value.toString(8)}`),
    fc
      .tuple(fc.constantFrom('0x', '0X'), fc.nat(3), randomCase(value.toString(16)))
      .map(([prefix, zeros, digits]) => `${prefix}${'0'.repeat(zeros)}${digits}`),
  );
}

/**
 * The ways of writing an IPv4 address as a host that both WHATWG URL parsing and getaddrinfo
 * (inet_aton) accept: one to four numbers (the last one filling the remaining bytes), each in
 * decimal, octal or hex: 127.0.0.1, 2130706433, 0x7f.1, 017700000001, 0177.0.0x1…
 */
export function ipv4Forms(bytes: number[]): fc.Arbitrary<string> {
  const [a, b, c, d] = bytes as [number, number, number, number];
  const splits = [
    [a, b, c, d],
    [a, b, (c << 8) | d],
    [a, ((b << 16) | (c << 8) | d) >>> 0],
    [(((a << 24) >>> 0) + ((b << 16) | (c << 8) | d)) >>> 0],
  ];
  return fc
    .constantFrom(...splits)
    .chain((numbers) => fc.tuple(...numbers.map(numberForm)))
    .map((parts) => parts.join('.'));
}

/**
 * The ways of writing an IPv6 address: each group with or without leading zeros and in either
 * case, any run of zero groups compressed to `::` (or none), the last 32 bits as a dotted quad
 * or not: ::7f00:1, ::127.0.0.1, 0:0:0:0:0:0:7F00:0001, 0000::ffff:127.0.0.1…
 */
export function ipv6Forms(bytes: number[]): fc.Arbitrary<string> {
  const groups = Array.from(
    { length: 8 },
    (_, i) => ((bytes[2 * i] as number) << 8) | (bytes[2 * i + 1] as number),
  );
  return fc
    .record({
      dotted: fc.boolean(),
      padding: fc.array(fc.nat(4), { minLength: 8, maxLength: 8 }),
      compress: fc.tuple(fc.nat(7), fc.nat(8)),
    })
    .chain(({ dotted, padding, compress }) => {
      const count = dotted ? 6 : 8;
      const texts = groups.slice(0, count).map((g, i) => g.toString(16).padStart(padding[i] as number, '0'));
      const [start, length] = compress;
      // The longest run of zero groups from `start`, at most `length` long: `::` stands for it.
      let end = start;
      while (end < count && end - start < length && groups[end] === 0) end++;
      let text = texts.join(':');
      if (end > start) {
        text = `${texts.slice(0, start).join(':')}::${texts.slice(end).join(':')}`;
      }
      if (dotted) {
        const quad = bytes.slice(12).join('.');
        text = text.endsWith('::') ? `${text}${quad}` : `${text}:${quad}`;
      }
      return randomCase(text);
    });
}

/** Any form of an address given as bytes: IPv4 forms, or IPv6 forms with brackets for a URL. */
export function urlHostForms(bytes: number[]): fc.Arbitrary<string> {
  return bytes.length === 4 ? ipv4Forms(bytes) : ipv6Forms(bytes).map((form) => `[${form}]`);
}

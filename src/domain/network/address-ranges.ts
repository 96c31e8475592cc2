import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Which addresses Docwright may connect to for a URL a person gave it: global unicast only,
 * deny by default. ipaddr.js names the special ranges (IANA's special-purpose registries:
 * loopback, RFC 1918 private, link-local with the cloud metadata service 169.254.169.254,
 * unique local with AWS's fd00:ec2::254, carrier-grade NAT, multicast, broadcast,
 * unspecified, reserved and documentation, benchmarking, AS112, AMT, ORCHID, Teredo, 6to4,
 * …): anything it does not call `unicast` is refused under that name. Beyond its names,
 * IPv4-compatible addresses (::/96, deprecated) and IPv6 outside 2000::/3, the only block
 * IANA hands out as global unicast, are refused too.
 *
 * IPv6 forms that carry an IPv4 address are judged by it where the packet really goes
 * there: IPv4-mapped (::ffff:0:0/96, the kernel sends it over IPv4) and the well-known NAT64
 * prefix (64:ff9b::/96, which an IPv6-only network's DNS64 hands out for every IPv4-only
 * host). The other embedding forms (6to4, Teredo, IPv4-translated, local-use NAT64
 * 64:ff9b:1::/48, IPv4-compatible) are tunnels or translations no public service needs: they
 * are refused whatever they carry.
 */
export function forbiddenAddressReason(text: string): string | null {
  const address = parseAddress(text);
  if (address === null) return `${text} is not an IP address`;
  const carried = carriedIPv4(address);
  if (carried) {
    const reason = ownRangeReason(carried);
    if (reason === null) return null;
    return address.match(IPV4_MAPPED)
      ? `${text} is a ${reason} address`
      : `${text} is a ${reason} address (${carried.toString()} in NAT64 form)`;
  }
  const reason = ownRangeReason(address);
  return reason === null ? null : `${text} is a ${reason} address`;
}

/**
 * Reads an address the way the system does when a socket connects to it, or null when it is
 * not one. Node takes IPv4 in dotted decimal only (no octal, hex or short forms: those are
 * turned into dotted decimal by the URL parser or by getaddrinfo before they reach here).
 * IPv6 goes through the URL parser first: it reads `::127.0.0.1` as inet_pton does
 * (::7f00:1, IPv4-compatible), where ipaddr.js alone would read ::ffff:127.0.0.1.
 */
export function parseAddress(text: string): IpAddress | null {
  const kind = isIP(text);
  if (kind === 4) return ipaddr.IPv4.parse(text);
  if (kind !== 6) return null;
  // A zone (fe80::1%eth0) picks an interface, not an address.
  const host = URL.parse(`http://[${text.replace(/%.*$/, '')}]/`)?.hostname;
  return host ? ipaddr.IPv6.parse(host.slice(1, -1)) : null;
}

/** The IPv4 address an IPv6 address is delivered to: IPv4-mapped and well-known NAT64 forms. */
export function carriedIPv4(address: IpAddress): ipaddr.IPv4 | null {
  if (address.kind() !== 'ipv6') return null;
  const v6 = address as ipaddr.IPv6;
  if (!v6.match(IPV4_MAPPED) && !v6.match(NAT64_WELL_KNOWN)) return null;
  return new ipaddr.IPv4(v6.toByteArray().slice(12));
}

/** The words for the range `address` itself is in, or null for global unicast. */
function ownRangeReason(address: IpAddress): string | null {
  const range = address.range() as string;
  if (range !== 'unicast') return RANGE_WORDS[range] ?? `${range} (non-public)`;
  if (address.kind() === 'ipv4') return null;
  const v6 = address as ipaddr.IPv6;
  if (v6.match(IPV4_COMPATIBLE)) return RANGE_WORDS.ipv4Compatible as string;
  if (!v6.match(GLOBAL_UNICAST)) return RANGE_WORDS.unallocated as string;
  return null;
}

const IPV4_MAPPED = ipaddr.IPv6.parseCIDR('::ffff:0:0/96');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/** ipaddr.js's range names (both families), and the two ranges it does not name, in words. */
export const RANGE_WORDS: Readonly<Record<string, string>> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local (metadata service range)',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  reserved: 'reserved or documentation',
  uniqueLocal: 'unique-local (private)',
  as112: 'AS112 (DNS sink)',
  as112v6: 'AS112 (DNS sink)',
  amt: 'AMT relay',
  benchmarking: 'benchmarking',
  ipv4Mapped: 'IPv4-mapped',
  deprecatedSiteLocal: 'site-local (deprecated)',
  discard: 'discard-only',
  rfc6145: 'IPv4-translated (RFC 6145)',
  rfc6052: 'local-use NAT64 (RFC 8215)',
  '6to4': '6to4 tunnel (embeds an IPv4 address)',
  teredo: 'Teredo tunnel (embeds an IPv4 address)',
  deprecatedOrchid: 'ORCHID (deprecated)',
  orchid2: 'ORCHIDv2',
  droneRemoteIdProtocolEntityTags: 'drone remote ID (DET)',
  segmentRouting: 'segment routing (SRv6)',
  ipv4Compatible: 'IPv4-compatible (deprecated, ::/96)',
  unallocated: 'non-global (outside 2000::/3)',
};

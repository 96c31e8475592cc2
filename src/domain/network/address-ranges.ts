import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a webhook may be sent to: public unicast only. Everything else (loopback,
 * RFC 1918 private, link-local with the cloud metadata service 169.254.169.254, unique local
 * with AWS's fd00:ec2::254, carrier-grade NAT, multicast, broadcast, unspecified, reserved
 * and documentation ranges, and IPv6 forms that embed an IPv4 address such as NAT64 or
 * 6to4) is refused, deny by default: ipaddr.js names each range, and anything it does not
 * call `unicast` is not the public internet.
 */
export function forbiddenAddressReason(address: string): string | null {
  if (isIP(address) === 0) return `${address} is not an IP address`;
  // An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4 address it carries.
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === 'unicast') return null;
  return `${address} is a ${RANGE_WORDS[range] ?? `${range} (non-public)`} address`;
}

const RANGE_WORDS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local (metadata service range)',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  reserved: 'reserved',
  uniqueLocal: 'unique-local (private)',
};

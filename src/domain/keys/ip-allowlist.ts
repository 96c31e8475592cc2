import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { invalid } from '../errors.ts';

/** More entries than this is a network plan, not a key's allowlist. */
export const MAX_ALLOWED_IPS = 50;

const EXAMPLE = 'like 203.0.113.7, 203.0.113.0/24 or 2001:db8::/32';

/**
 * Checks and normalises a key's allowlist: IPv4 and IPv6 addresses and CIDR ranges, written
 * the one canonical way (RFC 5952 for IPv6, host bits of a range cleared, IPv4-mapped IPv6 as
 * IPv4), duplicates dropped. A bad entry is an `invalid` error that names it.
 */
export function normaliseAllowlist(entries: readonly string[]): string[] {
  if (entries.length > MAX_ALLOWED_IPS)
    throw invalid(`allowedIps: at most ${MAX_ALLOWED_IPS} entries, not ${entries.length}`);
  return [...new Set(entries.map(normaliseEntry))];
}

function normaliseEntry(entry: string): string {
  const text = entry.trim();
  const refuse = () => invalid(`allowedIps: "${entry}" is not an IP address or CIDR range (${EXAMPLE})`);
  const [address = '', prefixText, ...rest] = text.split('/');
  // node's isIP is strict (no octal, hex or shortened IPv4 forms, which ipaddr.js would accept);
  // a zone id (fe80::1%eth0) means nothing for a remote client.
  const family = isIP(address);
  if (family === 0 || address.includes('%') || rest.length > 0) throw refuse();
  const bits = family === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) throw refuse();
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) throw refuse();
  if (family === 4) {
    if (prefix === 32) return ipaddr.IPv4.parse(address).toString();
    return `${ipaddr.IPv4.networkAddressFromCIDR(`${address}/${prefix}`).toString()}/${prefix}`;
  }
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${address}/${prefix}`);
  if (network.isIPv4MappedAddress() && prefix >= 96) {
    const v4 = network.toIPv4Address().toString();
    return prefix === 128 ? v4 : `${v4}/${prefix - 96}`;
  }
  return prefix === 128 ? network.toRFC5952String() : `${network.toRFC5952String()}/${prefix}`;
}

/** The matcher for normalised entries, built once per key. */
export function compileAllowlist(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

/**
 * Whether a client address is on the list. node's BlockList matches an IPv4 entry against
 * the IPv4-mapped IPv6 form a dual-stack socket reports (`::ffff:203.0.113.7`) as well.
 */
export function allowsAddress(list: BlockList, clientIp: string): boolean {
  const address = clientIp.split('%')[0] ?? ''; // a link-local peer's zone id
  const family = isIP(address);
  if (family === 0) return false;
  return list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

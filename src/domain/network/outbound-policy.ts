import { isIP } from 'node:net';
import type ipaddr from 'ipaddr.js';
import { carriedIPv4, forbiddenAddressReason, type IpAddress, parseAddress } from './address-ranges.ts';

/** The setting that opens non-public addresses; named in every refusal. */
export const ALLOW_SETTING = 'DOCWRIGHT_ALLOW_PRIVATE_NETWORKS';

type Range = [IpAddress, number];

/**
 * Which addresses Docwright may connect to for a URL a person gave it (webhooks, code-host
 * API roots, source pull requests, git remotes): public unicast addresses always; others
 * only as DOCWRIGHT_ALLOW_PRIVATE_NETWORKS says, which is `true` (everything) or a list of
 * host names (`gitlab.internal`, `*.corp.example`), addresses and CIDR ranges
 * (`10.0.0.0/8`). A host name entry trusts whatever that name resolves to; a range trusts
 * those addresses whatever name led there. The check is made on each address actually
 * connected to (integrations/network), never on the name alone.
 */
export class OutboundPolicy {
  /** Every address is allowed: no check is needed anywhere. */
  readonly allowsAll: boolean;
  private readonly hosts: ReadonlySet<string>;
  private readonly suffixes: readonly string[];
  private readonly ranges: readonly Range[];

  private constructor(allowsAll: boolean, hosts: string[], suffixes: string[], ranges: Range[]) {
    this.allowsAll = allowsAll;
    this.hosts = new Set(hosts);
    this.suffixes = suffixes;
    this.ranges = ranges;
  }

  static publicOnly(): OutboundPolicy {
    return new OutboundPolicy(false, [], [], []);
  }

  static allowAll(): OutboundPolicy {
    return new OutboundPolicy(true, [], [], []);
  }

  /**
   * Reads the setting's value: `true`/`1`, `false`/`0`, or a comma-separated list. Returns
   * the problems with its entries instead when there are any.
   */
  static parse(value: string): OutboundPolicy | { problems: string[] } {
    const raw = value.trim();
    if (raw === '' || raw === 'false' || raw === '0') return OutboundPolicy.publicOnly();
    if (raw === 'true' || raw === '1') return OutboundPolicy.allowAll();
    const hosts: string[] = [];
    const suffixes: string[] = [];
    const ranges: Range[] = [];
    const problems: string[] = [];
    for (const entry of raw.split(',').map((e) => e.trim().toLowerCase())) {
      if (entry === '') continue;
      if (entry.includes('/')) {
        const range = parseRange(entry);
        if (range) ranges.push(range);
        else problems.push(`"${entry}" is not a CIDR range such as 10.0.0.0/8 or fd00::/8`);
      } else if (isIP(entry) !== 0) {
        const address = parseAddress(entry) as IpAddress;
        ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      } else if (entry.startsWith('*.') && HOST_NAME.test(entry.slice(2))) {
        suffixes.push(entry.slice(1));
      } else if (HOST_NAME.test(entry)) {
        hosts.push(entry);
      } else {
        problems.push(`"${entry}" is not a host name, *.domain, IP address or CIDR range`);
      }
    }
    if (problems.length > 0) return { problems };
    return new OutboundPolicy(false, hosts, suffixes, ranges);
  }

  /**
   * Why connecting to `address` for the URL host `host` is refused, or null when it is
   * allowed. `host` is the name in the URL (or the literal address itself).
   */
  refusal(host: string, address: string): string | null {
    if (this.allowsAll) return null;
    const reason = forbiddenAddressReason(address);
    if (reason === null || this.allowsHost(host) || this.allowsAddress(address)) return null;
    const name = bare(host);
    return isIP(name) !== 0 ? reason : `${name} resolves to ${reason}`;
  }

  /** A literal IP address in a URL, judged before any connection; null for names. */
  literalRefusal(host: string): string | null {
    const name = bare(host);
    return isIP(name) === 0 ? null : this.refusal(name, name);
  }

  private allowsHost(host: string): boolean {
    const name = bare(host).toLowerCase().replace(/\.$/, '');
    return this.hosts.has(name) || this.suffixes.some((suffix) => name.endsWith(suffix));
  }

  /**
   * An address in a listed range, in either of its forms: an IPv6 form of an IPv4 address
   * (mapped, NAT64) is in the IPv4 ranges listed, and an IPv4 address in the mapped ones.
   */
  private allowsAddress(address: string): boolean {
    const parsed = this.ranges.length === 0 ? null : parseAddress(address);
    if (parsed === null) return false;
    const v4 = parsed.kind() === 'ipv4' ? (parsed as ipaddr.IPv4) : carriedIPv4(parsed);
    const forms = [parsed, v4, v4?.toIPv4MappedAddress()].filter((form) => form != null);
    return this.ranges.some(([base, bits]) =>
      forms.some((form) => base.kind() === form.kind() && form.match(base, bits)),
    );
  }
}

/** The full sentence for a refused connection: what, and how an operator opens it. */
export function refusalMessage(reason: string): string {
  return `Refused: ${reason}; Docwright connects to public addresses only unless ${ALLOW_SETTING} allows it`;
}

// RFC 1123 labels; at least one letter somewhere so a mistyped address is not taken for a name.
const HOST_NAME =
  /^(?=.*[a-z_])[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** `address/bits`, the address read as the system reads it (ipaddr.js alone takes `10/8` for 0.0.0.10/8). */
function parseRange(entry: string): Range | null {
  const [, text, bits] = /^([^/]+)\/(\d{1,3})$/.exec(entry) ?? [];
  const address = text === undefined ? null : parseAddress(text);
  if (address === null || Number(bits) > (address.kind() === 'ipv4' ? 32 : 128)) return null;
  return [address, Number(bits)];
}

const bare = (host: string) => host.replace(/^\[(.*)\]$/, '$1');

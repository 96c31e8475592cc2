import { BlockList, isIP } from 'node:net';

/**
 * One published list of the IP ranges an operator's crawlers use (e.g. OpenAI's gptbot.json):
 * which agents of the agent list it covers (null: every agent of the operator), where it is
 * published, and its prefixes as CIDRs.
 */
export interface CrawlerRangeSet {
  operator: string;
  agents: string[] | null;
  source: string;
  prefixes: string[];
}

interface CompiledSet {
  agents: ReadonlySet<string> | null;
  addresses: BlockList;
}

/**
 * Verifies a claimed agent by the IP it came from. A user agent is only a claim; a request from
 * one of the ranges its operator publishes is the operator's own.
 */
export class CrawlerRanges {
  static readonly none = new CrawlerRanges([]);
  private readonly byOperator = new Map<string, CompiledSet[]>();
  /** The lists as given: a preparation thread compiles its own copy from them. */
  readonly sets: readonly CrawlerRangeSet[];

  constructor(sets: readonly CrawlerRangeSet[]) {
    this.sets = sets;
    for (const set of sets) {
      const addresses = new BlockList();
      for (const prefix of set.prefixes) {
        const { network, bits, family } = parseCidr(prefix, set.source);
        addresses.addSubnet(network, bits, family);
      }
      const compiled = { agents: set.agents === null ? null : new Set(set.agents), addresses };
      const list = this.byOperator.get(set.operator) ?? [];
      list.push(compiled);
      this.byOperator.set(set.operator, list);
    }
  }

  /** True when a set of `operator` covering `agent` holds `ip`. */
  verifies(agent: string, operator: string | undefined, ip: string | null): boolean {
    if (operator === undefined || ip === null) return false;
    const sets = this.byOperator.get(operator);
    if (sets === undefined) return false;
    // A dual-stack socket reports an IPv4 client as ::ffff:a.b.c.d.
    const address = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1] ?? ip;
    const family = isIP(address);
    if (family === 0) return false;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    return sets.some(
      (set) => (set.agents === null || set.agents.has(agent)) && set.addresses.check(address, type),
    );
  }

  /** The operators that publish ranges, sorted. */
  operators(): string[] {
    return [...this.byOperator.keys()].sort();
  }
}

function parseCidr(
  prefix: string,
  source: string,
): { network: string; bits: number; family: 'ipv4' | 'ipv6' } {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(prefix.trim());
  const family = match ? isIP(match[1] ?? '') : 0;
  const bits = match ? Number(match[2]) : Number.NaN;
  if (!match || family === 0 || bits > (family === 4 ? 32 : 128)) {
    throw new Error(`${source}: "${prefix}" is not an IPv4 or IPv6 prefix like 192.0.2.0/24`);
  }
  return { network: match[1] ?? '', bits, family: family === 4 ? 'ipv4' : 'ipv6' };
}

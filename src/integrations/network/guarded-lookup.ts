import { promises as dns, lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { type OutboundPolicy, refusalMessage } from '../../domain/network/outbound-policy.ts';

/** A connection the outgoing-network policy refused; its message is safe to show and to log. */
export class ForbiddenAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForbiddenAddressError';
  }
}

/**
 * A `lookup` for sockets (http.Agent, net.connect) that resolves the host and keeps only
 * the addresses the policy allows, failing when none is left. The socket connects to what
 * this returns, so the address checked is the address connected to: a name that changes
 * its answer between a check and the connection (DNS rebinding) cannot slip through.
 */
export function policyLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const allowed = allowedOf(policy, hostname, addresses);
      if (allowed instanceof ForbiddenAddressError) {
        callback(allowed, '', 0);
        return;
      }
      if (options.all) {
        (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      } else {
        const [first] = allowed as [LookupAddress];
        callback(null, first.address, first.family);
      }
    });
  };
}

/**
 * The allowed addresses of `host` (a name or a literal IP), for a client that is then told
 * to connect to one of them (git's http.curloptResolve). Throws ForbiddenAddressError when
 * there is none, and DNS errors as they are.
 */
export async function allowedAddresses(policy: OutboundPolicy, host: string): Promise<LookupAddress[]> {
  const name = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(name) !== 0) {
    const refused = policy.literalRefusal(name);
    if (refused) throw new ForbiddenAddressError(refusalMessage(refused));
    return [{ address: name, family: isIP(name) }];
  }
  const addresses = await dns.lookup(name, { all: true });
  const allowed = allowedOf(policy, name, addresses);
  if (allowed instanceof ForbiddenAddressError) throw allowed;
  return allowed;
}

/**
 * Why a URL's host would be refused, for a check where a person enters it (a 400 up front,
 * before anything is stored); null when it is allowed or cannot be resolved now (the
 * connection is checked again anyway).
 */
export async function hostRefusal(policy: OutboundPolicy, host: string): Promise<string | null> {
  if (policy.allowsAll) return null;
  try {
    await allowedAddresses(policy, host);
    return null;
  } catch (error) {
    return error instanceof ForbiddenAddressError ? error.message : null;
  }
}

function allowedOf(
  policy: OutboundPolicy,
  hostname: string,
  addresses: LookupAddress[],
): LookupAddress[] | ForbiddenAddressError {
  const allowed = addresses.filter((a) => policy.refusal(hostname, a.address) === null);
  if (allowed.length > 0) return allowed;
  const first = addresses[0];
  const reason = first ? policy.refusal(hostname, first.address) : null;
  return new ForbiddenAddressError(refusalMessage(reason ?? `${hostname} has no address`));
}

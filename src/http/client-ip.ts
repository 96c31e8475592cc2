import type { FastifyRequest } from 'fastify';
import proxyAddr from 'proxy-addr';

/** The address a request comes from; null when the socket has already gone. */
export type ClientIp = (request: FastifyRequest) => string | null;

/**
 * The client's address: the socket's, or the X-Forwarded-For entry the trusted proxies vouch
 * for (IPs, CIDRs, or proxy-addr's names `loopback`, `linklocal`, `uniquelocal`). A header from
 * anyone else is ignored, or any caller could claim any address.
 */
export function clientIpResolver(trustedProxies: readonly string[]): ClientIp {
  const trust = proxyAddr.compile([...trustedProxies]);
  return (request) => proxyAddr(request.raw, trust) ?? null;
}

import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { forbiddenAddressReason } from '../../domain/webhooks/address-policy.ts';
import type { WebhookRequest, WebhookTransport } from '../../domain/webhooks/transport.ts';

/** Refused by the address policy: recorded in the delivery log as the attempt's error. */
export class ForbiddenAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForbiddenAddressError';
  }
}

/**
 * POSTs deliveries with node:http(s). Server-side request forgery is stopped where it can
 * be: on the address actually connected to. The agents' `lookup` resolves the host and
 * drops every address the policy refuses (so a name that resolves to 127.0.0.1, or that
 * changes its answer between a check and the connection, never reaches a private service);
 * a literal IP in the URL, which Node connects to without a lookup, is checked first.
 * Redirects are not followed: a 3xx is answered to the dispatcher, which counts it as a
 * failure, so no redirect can lead a delivery elsewhere. Sockets are kept alive per agent,
 * and every socket of these agents was opened through the filtering lookup.
 */
export class HttpWebhookTransport implements WebhookTransport {
  private readonly allowPrivateNetworks: boolean;
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(options: { allowPrivateNetworks: boolean }) {
    this.allowPrivateNetworks = options.allowPrivateNetworks;
    const lookup = this.allowPrivateNetworks ? undefined : publicOnlyLookup;
    const agentOptions = { keepAlive: true, maxSockets: 16, ...(lookup ? { lookup } : {}) };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(agentOptions);
  }

  post(request: WebhookRequest): Promise<{ status: number; location: string | null }> {
    const url = new URL(request.url);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!this.allowPrivateNetworks && isIP(host) !== 0) {
      const reason = forbiddenAddressReason(host);
      if (reason) return Promise.reject(new ForbiddenAddressError(refusal(reason)));
    }
    const secure = url.protocol === 'https:';
    const send = secure ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = send(url, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      });
      const timer = setTimeout(
        () => req.destroy(new Error(`No answer within ${request.timeoutMs / 1000} s`)),
        request.timeoutMs,
      );
      req.on('response', (res) => {
        // The answer's body is not needed; read and drop it so the socket can be reused.
        res.resume();
        res.on('end', () => clearTimeout(timer));
        res.on('error', () => clearTimeout(timer));
        const location = res.headers.location;
        resolve({ status: res.statusCode ?? 0, location: typeof location === 'string' ? location : null });
      });
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(error instanceof ForbiddenAddressError ? error : new Error(connectionError(error)));
      });
      req.end(request.body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

export const refusal = (reason: string) =>
  `Refused: ${reason}; webhooks go to public addresses only (DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE_NETWORKS=true allows others)`;

/** dns.lookup, keeping only the addresses the policy allows; an error when none is left. */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  const all: LookupAllOptions = { ...options, all: true };
  dnsLookup(hostname, all, (error, addresses: LookupAddress[]) => {
    if (error) {
      callback(error, '', 0);
      return;
    }
    const allowed = addresses.filter((a) => forbiddenAddressReason(a.address) === null);
    if (allowed.length === 0) {
      const first = addresses[0]?.address ?? 'no address';
      const reason = forbiddenAddressReason(first) ?? `${hostname} has no address`;
      callback(new ForbiddenAddressError(refusal(`${hostname} resolves to ${reason}`)), '', 0);
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

function connectionError(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOTFOUND') return 'The host name does not resolve';
  if (code === 'ECONNREFUSED') return 'Connection refused';
  if (code === 'ECONNRESET') return 'Connection reset';
  return error.message;
}

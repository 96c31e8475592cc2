import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { forbiddenAddressReason } from '../../domain/webhooks/address-policy.ts';
import { ForbiddenAddressError, publicOnlyLookup, refusal } from '../webhooks/http-transport.ts';

// Statuses whose Response may not have a body.
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` that reaches public addresses only, by the webhooks' address policy: the host is
 * resolved by a lookup that drops loopback, private, link-local (metadata) and other
 * non-public addresses, so the address connected to is the address checked; a literal IP is
 * checked first; redirects are not followed. Code-change automations read source pull
 * requests through it, since the API root of a GitHub Enterprise or GitLab host is set by a
 * person and what it answers goes into the agent's prompt.
 * DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE_NETWORKS=true uses the plain fetch instead.
 */
export function publicOnlyFetch(
  options: { lookup?: LookupFunction; allowLiteralIp?: boolean } = {},
): typeof fetch {
  // Tests only: a lookup (and literal IPs) that reach this machine, to check the plumbing.
  const lookup = options.lookup ?? publicOnlyLookup;
  const agents = {
    'http:': new http.Agent({ keepAlive: true, lookup }),
    'https:': new https.Agent({ keepAlive: true, lookup }),
  };
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`Only http and https URLs can be fetched, not ${url.protocol}`);
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const literal = isIP(host) !== 0 && !options.allowLiteralIp ? forbiddenAddressReason(host) : null;
    if (literal) throw new ForbiddenAddressError(refusal(literal));
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const send = url.protocol === 'https:' ? https.request : http.request;
    return new Promise<Response>((resolve, reject) => {
      const req = send(
        url,
        {
          method: request.method,
          headers: Object.fromEntries(request.headers),
          agent: agents[url.protocol as 'http:' | 'https:'],
          signal: request.signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              for (const v of [value ?? []].flat()) headers.append(name, v);
            }
            const status = res.statusCode ?? 502;
            resolve(
              new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), {
                status,
                statusText: res.statusMessage ?? '',
                headers,
              }),
            );
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
}

import http from 'node:http';
import https from 'node:https';
import { type OutboundPolicy, refusalMessage } from '../../domain/network/outbound-policy.ts';
import { ForbiddenAddressError, policyLookup } from './guarded-lookup.ts';

// Statuses whose Response may not have a body.
const NULL_BODY = new Set([101, 204, 205, 304]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
// Sent to the origin they were meant for only, never along a redirect to another one.
const CREDENTIAL_HEADERS = ['authorization', 'private-token', 'cookie'];

/**
 * A `fetch` bound by the outgoing-network policy, for code-host API calls (the API root of
 * a GitHub Enterprise or GitLab host is set by a person): every socket is opened through a
 * lookup that drops the addresses the policy refuses, so the address connected to is the
 * address checked; a literal IP is checked before connecting. Redirects are followed by
 * hand, at most five, each hop through the same check, and credentials are dropped when a
 * redirect leaves the origin. With every address allowed it is the plain fetch.
 */
export function guardedFetch(policy: OutboundPolicy): typeof fetch {
  if (policy.allowsAll) return fetch;
  const lookup = policyLookup(policy);
  const agents = {
    'http:': new http.Agent({ keepAlive: true, lookup }),
    'https:': new https.Agent({ keepAlive: true, lookup }),
  };
  return async (input, init) => {
    let request = new Request(input, init);
    let body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    for (let hop = 0; ; hop++) {
      const response = await send(request, body, agents, policy);
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null || request.redirect !== 'follow') {
        return response;
      }
      if (hop === MAX_REDIRECTS) throw new TypeError(`More than ${MAX_REDIRECTS} redirects`);
      const next = new URL(location, request.url);
      const headers = new Headers(request.headers);
      if (next.origin !== new URL(request.url).origin) {
        for (const name of CREDENTIAL_HEADERS) headers.delete(name);
      }
      // As fetch does: a 303 (or a 301/302 after a POST) becomes a GET without a body.
      const toGet = response.status === 303 || (request.method === 'POST' && response.status < 303);
      if (toGet) {
        body = undefined;
        headers.delete('content-type');
        headers.delete('content-length');
      }
      request = new Request(next, {
        method: toGet ? 'GET' : request.method,
        headers,
        signal: request.signal,
      });
    }
  };
}

function send(
  request: Request,
  body: Buffer | undefined,
  agents: Record<'http:' | 'https:', http.Agent>,
  policy: OutboundPolicy,
): Promise<Response> {
  const url = new URL(request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(new TypeError(`Only http and https URLs can be fetched, not ${url.protocol}`));
  }
  // Node connects to a literal IP without a lookup: it is judged here.
  const literal = policy.literalRefusal(url.hostname);
  if (literal) return Promise.reject(new ForbiddenAddressError(refusalMessage(literal)));
  const sendRequest = url.protocol === 'https:' ? https.request : http.request;
  return new Promise<Response>((resolve, reject) => {
    const req = sendRequest(
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
}

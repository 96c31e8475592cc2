import http from 'node:http';
import https from 'node:https';
import { type OutboundPolicy, refusalMessage } from '../../domain/network/outbound-policy.ts';
import type { WebhookRequest, WebhookTransport } from '../../domain/webhooks/transport.ts';
import { ForbiddenAddressError, policyLookup } from '../network/guarded-lookup.ts';

export { ForbiddenAddressError };

/**
 * POSTs deliveries with node:http(s). Server-side request forgery is stopped where it can
 * be: on the address actually connected to. The agents' `lookup` resolves the host and
 * drops every address the outgoing-network policy refuses (so a name that resolves to 127.0.0.1, or that
 * changes its answer between a check and the connection, never reaches a private service);
 * a literal IP in the URL, which Node connects to without a lookup, is checked first.
 * Redirects are not followed: a 3xx is answered to the dispatcher, which counts it as a
 * failure, so no redirect can lead a delivery elsewhere. Sockets are kept alive per agent,
 * and every socket of these agents was opened through the filtering lookup.
 */
export class HttpWebhookTransport implements WebhookTransport {
  private readonly policy: OutboundPolicy;
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(options: { policy: OutboundPolicy }) {
    this.policy = options.policy;
    const lookup = this.policy.allowsAll ? undefined : policyLookup(this.policy);
    const agentOptions = { keepAlive: true, maxSockets: 16, ...(lookup ? { lookup } : {}) };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(agentOptions);
  }

  post(request: WebhookRequest): Promise<{ status: number; location: string | null }> {
    const url = new URL(request.url);
    const literal = this.policy.literalRefusal(url.hostname);
    if (literal) return Promise.reject(new ForbiddenAddressError(refusalMessage(literal)));
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

function connectionError(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOTFOUND') return 'The host name does not resolve';
  if (code === 'ECONNREFUSED') return 'Connection refused';
  if (code === 'ECONNRESET') return 'Connection reset';
  return error.message;
}

import { isIP } from 'node:net';
import { invalid } from '../errors.ts';
import { forbiddenAddressReason } from './address-policy.ts';

const MAX_URL_LENGTH = 2048;

/**
 * Checks a webhook URL when an endpoint is created: http or https, no user name or password
 * (a secret in a URL ends up in logs), and, unless private networks are allowed, not a
 * literal non-public IP. Host names are checked again where it matters, on the address each
 * delivery connects to. Returns the URL as written, trimmed.
 */
export function checkEndpointUrl(raw: string, options: { allowPrivateNetworks: boolean }): string {
  const value = raw.trim();
  if (value.length > MAX_URL_LENGTH) throw invalid(`url must be at most ${MAX_URL_LENGTH} characters`);
  if (!URL.canParse(value)) throw invalid('url must be an absolute http:// or https:// URL');
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(`url must use http:// or https:// (got ${url.protocol}//)`);
  }
  if (url.username !== '' || url.password !== '') {
    throw invalid('url must not contain a user name or password; authenticate with the signature instead');
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!options.allowPrivateNetworks && isIP(host) !== 0) {
    const reason = forbiddenAddressReason(host);
    if (reason) {
      throw invalid(
        `url must not point at a non-public address: ${reason} (set DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE_NETWORKS=true to allow it)`,
      );
    }
  }
  return value;
}

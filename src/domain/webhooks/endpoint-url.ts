import { invalid } from '../errors.ts';
import { ALLOW_SETTING, type OutboundPolicy } from '../network/outbound-policy.ts';

const MAX_URL_LENGTH = 2048;

/**
 * Checks a webhook URL when an endpoint is created: http or https, no user name or password
 * (a secret in a URL ends up in logs), and not a literal IP the outgoing-network policy
 * refuses. Host names are checked again where it matters, on the address each
 * delivery connects to. Returns the URL as written, trimmed.
 */
export function checkEndpointUrl(raw: string, policy: OutboundPolicy): string {
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
  const reason = policy.literalRefusal(url.hostname);
  if (reason) {
    throw invalid(`url must not point at a non-public address: ${reason} (${ALLOW_SETTING} can allow it)`);
  }
  return value;
}

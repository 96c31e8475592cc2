import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

// How a code host proves a webhook is its own. Both checks compare in constant time, so a
// caller learns nothing from how long a wrong guess took.

/**
 * GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`, keyed with the
 * webhook's secret. The HMAC is over the body's bytes exactly as received: a body parsed and
 * serialised again would not match.
 */
export function verifyGitHubSignature(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (typeof header !== 'string') return false;
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!match?.[1]) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(match[1], 'hex'));
}

/** The header GitHub would send for `rawBody` (what the fake host and the benchmark send). */
export function gitHubSignatureHeader(secret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/**
 * GitLab: `X-Gitlab-Token` carries the webhook's secret token itself. Both sides are hashed
 * first, so the comparison takes the same time whatever the lengths.
 */
export function verifyGitLabToken(secret: string, header: string | undefined): boolean {
  if (typeof header !== 'string' || header === '') return false;
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(secret), digest(header));
}

import { createHmac } from 'node:crypto';

/**
 * `Docwright-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with
 * the endpoint's secret (the whole `whsec_…` string, as UTF-8). The timestamp is signed so a
 * receiver can refuse replays of old deliveries. After a rotation, while the previous secret
 * is still valid, there is one `v1` per secret, the current one first: a receiver accepts the
 * delivery when any of them matches a secret it holds.
 */
export function signatureHeader(
  secrets: string | readonly string[],
  body: string,
  unixSeconds: number,
): string {
  const t = Math.floor(unixSeconds);
  const v1s = (typeof secrets === 'string' ? [secrets] : secrets).map(
    (secret) => `v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`,
  );
  return [`t=${t}`, ...v1s].join(',');
}

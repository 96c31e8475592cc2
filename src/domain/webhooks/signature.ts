import { createHmac } from 'node:crypto';

/**
 * `Docwright-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with
 * the endpoint's secret (the whole `whsec_…` string, as UTF-8). The timestamp is signed so a
 * receiver can refuse replays of old deliveries.
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const t = Math.floor(unixSeconds);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

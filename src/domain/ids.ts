import { randomBytes } from 'node:crypto';

const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford's alphabet, lower case: URL-safe, no look-alikes

/** 128 random bits, base32: opaque, unguessable, URL-safe. */
export function newId(
  prefix:
    | 'prj'
    | 'job'
    | 'key'
    | 'turn'
    | 'msg'
    | 'ses'
    | 'usr'
    | 'sil'
    | 'whk'
    | 'whd'
    | 'evt'
    | 'aut'
    | 'run',
): string {
  return `${prefix}_${randomBase32(26)}`;
}

export function randomBase32(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  // 256 is a multiple of 32, so masking keeps the distribution uniform.
  for (const byte of bytes) out += BASE32[byte & 31];
  return out;
}

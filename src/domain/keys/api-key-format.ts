import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Admin keys look like `dw_` + 32 random base62 characters (~190 bits) + a 6-character
 * base62 CRC32 of those characters. The checksum lets us reject a mistyped or made-up key
 * without touching the database, and lets secret scanners recognise real keys.
 */
export const KEY_PREFIX = 'dw_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

export function generateApiKey(): string {
  let body = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return `${KEY_PREFIX}${body}${checksum(body)}`;
}

/** True when the key has the right shape and checksum; says nothing about whether it exists. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + RANDOM_LENGTH);
  return key.slice(-CHECKSUM_LENGTH) === checksum(body);
}

/** Keys carry ~190 random bits, so a fast hash is as safe as a slow one and keeps auth cheap. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function keyHint(key: string): string {
  return `${KEY_PREFIX}…${key.slice(-4)}`;
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

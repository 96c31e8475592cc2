import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Passwords hashed with scrypt (node:crypto): `N=2^15, r=8, p=1`, a 16-byte random salt and a
 * 32-byte key, stored as `scrypt$N$r$p$salt$hash` (salt and hash in base64url). The parameters
 * travel with each hash, so raising them later still verifies the old ones.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const FORMAT = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/** scrypt needs a little over 128·N·r bytes (32 MiB here), more than Node allows unless told. */
const maxmem = (N: number, r: number) => 256 * N * r;

function derive(password: string, salt: Buffer, N: number, r: number, p: number, length: number) {
  return new Promise<Buffer>((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, { N, r, p, maxmem: maxmem(N, r) }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, PARAMS.N, PARAMS.r, PARAMS.p, KEY_BYTES);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

/** True when `password` matches `stored`; compared in constant time. A malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = FORMAT.exec(stored);
  if (!match) return false;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const salt = Buffer.from(match[4] as string, 'base64url');
  const expected = Buffer.from(match[5] as string, 'base64url');
  // Parameters far outside what we write would only be a way to make the server do work.
  if (N > 2 ** 20 || r > 32 || p > 16 || expected.length < 16 || expected.length > 64) return false;
  const actual = await derive(password, salt, N, r, p, expected.length);
  return timingSafeEqual(actual, expected);
}

let dummy: Promise<string> | null = null;

/**
 * Verifies against a hash of a random password: for a sign-in with an unknown email, so it
 * costs as long as one with a known email and a wrong password, and timing does not tell
 * which emails have accounts.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummy ??= hashPassword(randomBytes(16).toString('base64url'));
  await verifyPassword(password, await dummy);
  return false;
}

import { createCipheriv, createDecipheriv, createHash, randomBytes, scryptSync } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
// A fixed, public salt: the passphrase is the secret, and one derivation at start-up keeps
// decryption cheap. Different installations still get different keys from different passphrases.
const SCRYPT_SALT = 'docwright/secret-box/v1';
const SCRYPT_OPTIONS = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const MIN_PASSPHRASE_LENGTH = 16;

/** Raised when a secret cannot be sealed or opened; the message never contains the secret. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * AES-256-GCM for credentials stored in the database. The key comes from configuration:
 * either exactly 32 bytes written as `base64:<44 characters>`, or a passphrase of at least
 * 16 characters that scrypt turns into a key. Each sealed value carries its own random IV
 * and is bound to a context string (e.g. the project id), so it cannot be copied elsewhere.
 */
export class SecretBox {
  private readonly key: Buffer;
  /** Short, non-secret fingerprint of the key, so operators can tell keys apart. */
  readonly keyId: string;
  /** Where the key came from, for errors: `DOCWRIGHT_SECRET_KEY`, or the key file's path in words. */
  readonly source: string;

  constructor(configured: string, source = 'DOCWRIGHT_SECRET_KEY') {
    this.key = deriveKey(configured);
    this.keyId = createHash('sha256').update(this.key).update('key-id').digest('hex').slice(0, 8);
    this.source = source;
  }

  /** The key id a sealed value was stored under (null if it is not a sealed value). */
  static keyIdOfSealed(sealed: string): string | null {
    return SecretBox.isSealed(sealed) ? (sealed.split('.')[1] ?? null) : null;
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const sealed = Buffer.concat([iv, body, cipher.getAuthTag()]);
    return `${VERSION}.${this.keyId}.${sealed.toString('base64url')}`;
  }

  open(sealed: string, context: string): string {
    const [version, keyId, data, ...rest] = sealed.split('.');
    if (version !== VERSION || keyId === undefined || data === undefined || rest.length > 0) {
      throw new SecretBoxError('Stored secret is not in a format this version of Docwright can read');
    }
    if (keyId !== this.keyId) throw new SecretBoxError(anotherKey('Stored secret was', [keyId], this));
    const bytes = Buffer.from(data, 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('Stored secret is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretBoxError(
        'Stored secret failed its integrity check (altered, or stored for another project)',
      );
    }
  }

  /** Whether a stored string looks like something `seal` produced. */
  static isSealed(value: string): boolean {
    return /^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+$/.test(value);
  }

  /** A fresh random key in the `base64:` form, for `docwright` to suggest. */
  static generateKey(): string {
    return `base64:${randomBytes(32).toString('base64')}`;
  }
}

/**
 * The key changed under stored secrets (a lost or replaced key file, another value of
 * DOCWRIGHT_SECRET_KEY, processes that do not share one key): said as that, never as garbage.
 * `what`: "Stored secret was", or "3 stored secrets (…) were".
 */
export function anotherKey(
  what: string,
  storedKeyIds: readonly string[],
  box: Pick<SecretBox, 'keyId' | 'source'>,
): string {
  const them = /\bwere$/.test(what) ? 'them' : 'it';
  return (
    `${what} encrypted with another key (key id ${storedKeyIds.join(', ')}) than the one in use (key id ${box.keyId}, from ${box.source}). ` +
    `Give Docwright the key ${them === 'it' ? 'it was' : 'they were'} stored with (set DOCWRIGHT_SECRET_KEY to it, or put back the key file from the backup of the data directory), or store ${them} again`
  );
}

function deriveKey(configured: string): Buffer {
  const value = configured.trim();
  if (value.startsWith('base64:')) {
    const bytes = Buffer.from(value.slice('base64:'.length), 'base64');
    if (bytes.length !== 32) {
      throw new SecretBoxError('DOCWRIGHT_SECRET_KEY in base64: form must decode to exactly 32 bytes');
    }
    return bytes;
  }
  if (value.length < MIN_PASSPHRASE_LENGTH) {
    throw new SecretBoxError(
      `DOCWRIGHT_SECRET_KEY must be a passphrase of at least ${MIN_PASSPHRASE_LENGTH} characters or base64:<32 bytes>`,
    );
  }
  return scryptSync(value, SCRYPT_SALT, 32, SCRYPT_OPTIONS);
}

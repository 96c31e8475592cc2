import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { anotherKey, SecretBox, SecretBoxError } from '../domain/secrets/secret-box.ts';
import type { Storage } from '../storage/database.ts';
import { type SealedSecretPlace, textsWithSealedSecrets } from '../storage/queries/sealed-secrets.ts';

/** The key file's name in the data directory. */
export const SECRET_KEY_FILE = 'secret.key';

/** Where the key that seals stored secrets came from; never the key itself. */
export interface SecretKeyInfo {
  from: 'DOCWRIGHT_SECRET_KEY' | 'file';
  /** The key file (also when the variable wins over it). */
  file: string;
  /** The file was created by this process, just now. */
  created: boolean;
  keyId: string;
  /** Stored secrets sealed with another key, which cannot be opened (checked at start). */
  unreadable: { count: number; keyIds: string[]; places: SealedSecretPlace[] };
}

/**
 * The secret box of this process: DOCWRIGHT_SECRET_KEY when set, else the key in
 * `<data dir>/secret.key`, created (random, mode 0600) the first time. So webhooks, automation
 * hooks and code-host tokens work on a fresh install, and every command run against the same
 * data directory uses the same key. Then a look at the stored secrets: any sealed with another
 * key (the file was lost, the variable changed, processes on several machines each made their
 * own) is reported now rather than at the first delivery that fails.
 */
export async function openSecretBox(
  config: Config,
  storage: Storage,
  logger: Logger,
): Promise<{ box: SecretBox; info: SecretKeyInfo }> {
  const file = path.join(config.dataDir, SECRET_KEY_FILE);
  let box: SecretBox;
  let created = false;
  if (config.secretKey !== null) {
    box = new SecretBox(config.secretKey, 'DOCWRIGHT_SECRET_KEY');
  } else {
    created = await createKeyFile(file);
    box = await boxFromFile(file);
    const mode = (await stat(file)).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      logger.warn(
        { file, mode: mode.toString(8) },
        `the secret key file can be read by other users of this machine: chmod 600 ${file}`,
      );
    }
  }
  const unreadable = await sealedWithOtherKeys(storage, box.keyId);
  if (unreadable.count > 0) {
    const what = `${unreadable.count} stored secret${unreadable.count === 1 ? ' (…) was' : 's (…) were'}`;
    logger.error(
      { secrets: unreadable.count, storedKeyIds: unreadable.keyIds, keyId: box.keyId },
      anotherKey(what.replace('…', unreadable.places.join(', ')), unreadable.keyIds, box),
    );
  }
  return {
    box,
    info: {
      from: config.secretKey !== null ? 'DOCWRIGHT_SECRET_KEY' : 'file',
      file,
      created,
      keyId: box.keyId,
      unreadable,
    },
  };
}

/**
 * Creates the key file unless there is one, atomically: the key is written and flushed to a
 * temporary file of mode 0600, then linked to its name, which fails if another process got
 * there first (then its key is the one). Never overwrites a key. True if this call created it.
 */
async function createKeyFile(file: string): Promise<boolean> {
  if (await exists(file)) return false;
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(`${SecretBox.generateKey()}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    await syncDirectory(path.dirname(file));
    return true;
  } finally {
    await rm(temporary, { force: true });
  }
}

async function boxFromFile(file: string): Promise<SecretBox> {
  const key = (await readFile(file, 'utf8')).trim();
  try {
    return new SecretBox(key, `the key file ${file}`);
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    throw new Error(
      `${file} does not hold a secret key (base64:<32 bytes>): it was damaged or emptied. Put back the file from your backup of the data directory, or set DOCWRIGHT_SECRET_KEY to the key. Deleting it makes a new key, and the webhook secrets and code-host tokens stored with the old one can no longer be opened.`,
    );
  }
}

async function sealedWithOtherKeys(storage: Storage, keyId: string): Promise<SecretKeyInfo['unreadable']> {
  const keyIds = new Set<string>();
  const places = new Set<SealedSecretPlace>();
  let count = 0;
  for (const { place, text } of await textsWithSealedSecrets(storage.db)) {
    for (const [sealed] of text.matchAll(/v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+/g)) {
      const stored = SecretBox.keyIdOfSealed(sealed);
      if (stored === null || stored === keyId) continue;
      count++;
      keyIds.add(stored);
      places.add(place);
    }
  }
  return { count, keyIds: [...keyIds], places: [...places] };
}

/** Makes a new name in the directory durable, so a crash cannot lose the key file. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
}

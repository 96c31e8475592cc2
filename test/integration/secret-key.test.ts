import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openSecretBox } from '../../src/app/secret-key.ts';
import { loadConfig } from '../../src/config/config.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { OutboundPolicy } from '../../src/domain/network/outbound-policy.ts';
import { ProjectService } from '../../src/domain/projects/project-service.ts';
import { secretContext, WebhookService } from '../../src/domain/webhooks/webhook-service.ts';
import type { Storage } from '../../src/storage/database.ts';
import { openTestStorage, type TestDatabase, testBackend } from '../helpers/storage.ts';

const silent = pino({ level: 'silent' });

describe(`the key that encrypts stored secrets (${testBackend})`, () => {
  let storage: Storage;
  let database: TestDatabase;
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  const open = async () => {
    const opened = await openTestStorage();
    cleanups.push(opened.cleanup);
    ({ storage, database } = opened);
  };
  const keyFile = () => path.join(database.dir, 'secret.key');

  it('is made once in the data directory, mode 0600, when several processes start at once, and never replaced', async () => {
    await open();
    const config = loadConfig({ DOCWRIGHT_DATA_DIR: database.dir });
    const opened = await Promise.all(Array.from({ length: 8 }, () => openSecretBox(config, storage, silent)));
    expect(new Set(opened.map(({ box }) => box.keyId)).size).toBe(1);
    expect(opened.filter(({ info }) => info.created)).toHaveLength(1);
    // No temporary file left behind: the key file alone.
    expect(readdirSync(database.dir).filter((name) => name.startsWith('secret'))).toEqual(['secret.key']);
    expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyFile(), 'utf8');

    const again = await openSecretBox(config, storage, silent);
    expect(again.info).toMatchObject({ from: 'file', file: keyFile(), created: false });
    expect(again.box.keyId).toBe(opened[0]?.box.keyId);
    expect(readFileSync(keyFile(), 'utf8')).toBe(key);
  });

  it('takes DOCWRIGHT_SECRET_KEY when it is set, and then makes no file', async () => {
    await open();
    const config = loadConfig({
      DOCWRIGHT_DATA_DIR: database.dir,
      DOCWRIGHT_SECRET_KEY: 'a long enough passphrase',
    });
    const { info } = await openSecretBox(config, storage, silent);
    expect(info).toMatchObject({ from: 'DOCWRIGHT_SECRET_KEY', created: false });
    expect(readdirSync(database.dir).filter((name) => name.startsWith('secret'))).toEqual([]);
  });

  it('says which file is damaged, and what to do, instead of making another key', async () => {
    await open();
    writeFileSync(keyFile(), '', { mode: 0o600 });
    const config = loadConfig({ DOCWRIGHT_DATA_DIR: database.dir });
    await expect(openSecretBox(config, storage, silent)).rejects.toThrow(
      `${keyFile()} does not hold a secret key (base64:<32 bytes>): it was damaged or emptied. Put back the file from your backup of the data directory, or set DOCWRIGHT_SECRET_KEY to the key.`,
    );
    expect(readFileSync(keyFile(), 'utf8')).toBe('');
  });

  it('a key file lost under a stored webhook secret: an error at start, and at use, naming the key in use', async () => {
    await open();
    const config = loadConfig({ DOCWRIGHT_DATA_DIR: database.dir });
    const first = await openSecretBox(config, storage, silent);
    const project = await new ProjectService(storage, systemClock).create({
      name: 'Docs',
      repository: 'https://example.com/docs.git',
    });
    const webhooks = (box: typeof first.box) =>
      new WebhookService({ storage, clock: systemClock, box, network: OutboundPolicy.publicOnly() });
    const created = await webhooks(first.box).create(project.id, { url: 'https://example.com/hooks' });

    rmSync(keyFile());
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const second = await openSecretBox(config, storage, logger);
    expect(second.info).toMatchObject({
      created: true,
      unreadable: { count: 1, keyIds: [first.box.keyId], places: ['webhook signing secret'] },
    });
    const logged = JSON.parse(lines[0] ?? '{}') as { level: number; msg: string };
    expect(logged.level).toBe(50);
    expect(logged.msg).toBe(
      `1 stored secret (webhook signing secret) was encrypted with another key (key id ${first.box.keyId}) than the one in use (key id ${second.box.keyId}, from the key file ${keyFile()}). Give Docwright the key it was stored with (set DOCWRIGHT_SECRET_KEY to it, or put back the key file from the backup of the data directory), or store it again`,
    );
    // What a delivery then fails with (the dispatcher opens the secret so), not garbage.
    const stored = await storage.db
      .selectFrom('webhook_endpoints')
      .select('secret')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(() => second.box.open(stored.secret, secretContext(created.id))).toThrow(
      `Stored secret was encrypted with another key (key id ${first.box.keyId}) than the one in use (key id ${second.box.keyId}, from the key file ${keyFile()})`,
    );
  });
});

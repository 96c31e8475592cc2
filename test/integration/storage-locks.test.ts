import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/storage/database.ts';
import { type ChildHandle, startChild } from '../helpers/processes.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/storage.ts';

const HOLDER = fileURLToPath(new URL('../fixtures/hold-lock.ts', import.meta.url));

describe('named locks of the main database', () => {
  let database: TestDatabase;
  const storages: Storage[] = [];
  const children: ChildHandle[] = [];

  afterEach(async () => {
    for (const c of children.splice(0)) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    for (const s of storages.splice(0)) await s.close();
    await database?.drop();
  });

  function open(): Storage {
    const storage = database.open();
    storages.push(storage);
    return storage;
  }

  function holder(env: Record<string, string>): Promise<ChildHandle> {
    return startChild(
      [HOLDER],
      { DOCWRIGHT_DATABASE_CONFIG: JSON.stringify(database.config), LOCK_NAME: 'project a', ...env },
      /^held$/m,
    ).then((child) => {
      children.push(child);
      return child;
    });
  }

  it('makes a holder in another process wait until the first lets go', async () => {
    database = createTestDatabase();
    const child = await holder({ HOLD_MS: '600' });
    const started = Date.now();
    const ranAt = await open().locks.holding(['project a'], async () => Date.now());
    await child.exited;
    const released = Number(/^released (\d+)$/m.exec(child.stdout())?.[1]);
    expect(ranAt).toBeGreaterThanOrEqual(released);
    expect(ranAt - started).toBeGreaterThan(300);
  }, 60_000);

  it('is free again when its holder is killed', async () => {
    database = createTestDatabase();
    const child = await holder({});
    const waiting = open().locks.holding(['project a'], async () => 'ran');
    const state = await Promise.race([
      waiting,
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 300)),
    ]);
    expect(state).toBe('still waiting');
    child.child.kill('SIGKILL');
    await child.exited;
    expect(await waiting).toBe('ran');
  }, 60_000);

  it('runs holders of one process one at a time, and goes on after a holder fails', async () => {
    database = createTestDatabase();
    const locks = open().locks;
    const events: string[] = [];
    const hold = (name: string, fail: boolean) =>
      locks.holding([name, 'shared'], async () => {
        events.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        events.push(`end ${name}`);
        if (fail) throw new Error(`${name} failed`);
        return name;
      });
    const results = await Promise.allSettled([hold('a', false), hold('b', true), hold('c', false)]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'a',
      'b failed',
      'c',
    ]);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });
});

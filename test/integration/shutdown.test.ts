import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { SHUTDOWN_MARGIN_SECONDS } from '../../src/cli/shutdown.ts';
import { DOCWRIGHT_BIN } from '../helpers/processes.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../helpers/storage.ts';

const START_AND_LEAVE = fileURLToPath(new URL('../fixtures/start-and-leave.ts', import.meta.url));
const GRACE_SECONDS = 1;

/** Running, not yet reaped (a zombie whose parent is gone counts as exited). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe(`shutdown after the log pipe closed (${testBackend})`, () => {
  let database: TestDatabase;
  const started: number[] = [];
  afterEach(async () => {
    for (const pid of started.splice(0)) if (alive(pid)) process.kill(-pid, 'SIGKILL');
    await database?.drop();
  });

  for (const [command, ready] of [
    ['serve', '^Storage: '],
    ['worker', 'is taking turns'],
  ] as const) {
    it(`docwright ${command} exits on SIGTERM to its process group within the grace period`, async () => {
      database = createTestDatabase();
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [START_AND_LEAVE, ready, DOCWRIGHT_BIN, command],
        {
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            ...database.env,
            DOCWRIGHT_PORT: '0',
            DOCWRIGHT_LOG_LEVEL: 'info',
            DOCWRIGHT_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
          },
        },
      );
      const pid = Number(stdout.trim());
      started.push(pid);
      expect(alive(pid)).toBe(true);
      // The parent is gone: the server's stdout and stderr now lead nowhere.
      process.kill(-pid, 'SIGTERM');
      const deadline = Date.now() + (GRACE_SECONDS + SHUTDOWN_MARGIN_SECONDS) * 1000;
      while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(alive(pid)).toBe(false);
    });
  }
});

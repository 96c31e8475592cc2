import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { SHUTDOWN_MARGIN_SECONDS } from '../../src/cli/shutdown.ts';
import { DOCWRIGHT_BIN } from '../helpers/processes.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../helpers/storage.ts';

const START_AND_LEAVE = fileURLToPath(new URL('../fixtures/start-and-leave.ts', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
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

/** Pids of the live (not zombie) processes in process group `pgid`. */
function processGroup(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        // After the command name: state, ppid, pgrp, …
        const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(group) === pgid && state !== 'Z' ? [Number(name)] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
}

describe(`npm start under a supervisor (${testBackend})`, () => {
  let database: TestDatabase;
  let npm: ChildProcess | null = null;
  afterEach(async () => {
    if (npm?.pid && processGroup(npm.pid).length > 0) process.kill(-npm.pid, 'SIGKILL');
    npm = null;
    await database?.drop();
  });

  it('stops the server when SIGTERM reaches the npm process alone (npm → shell → node)', async () => {
    database = createTestDatabase();
    // As a supervisor runs it: `npm start` in the project, its own process group, signals to npm only.
    npm = spawn('npm', ['start'], {
      cwd: PROJECT_ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...database.env,
        DOCWRIGHT_PORT: '0',
        DOCWRIGHT_LOG_LEVEL: 'warn',
        DOCWRIGHT_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
      },
    });
    const pid = npm.pid as number;
    let out = '';
    npm.stdout?.on('data', (data: Buffer) => {
      out += data.toString();
    });
    const exited = once(npm, 'exit');
    await expect.poll(() => out, { timeout: 60_000, interval: 100 }).toMatch(/^Storage: /m);
    const baseUrl = /running at (http:\/\/\S+)/.exec(out)?.[1] ?? '';
    expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
    expect(processGroup(pid).length).toBeGreaterThanOrEqual(2); // npm and the server at least

    process.kill(pid, 'SIGTERM');
    await exited;
    // Every process npm started is gone within the grace period (and its margin), the port closed.
    const deadline = Date.now() + (GRACE_SECONDS + SHUTDOWN_MARGIN_SECONDS) * 1000;
    while (processGroup(pid).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(processGroup(pid)).toEqual([]);
    await expect(fetch(`${baseUrl}/health`)).rejects.toThrow();
  }, 90_000);
});

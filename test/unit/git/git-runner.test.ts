import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitError, GitRunner, redact } from '../../../src/integrations/git/git-runner.ts';
import { createRepository, tempDir } from '../../helpers/git-repos.ts';

let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: root, cleanup } = tempDir());
});
afterEach(() => cleanup());

describe('GitRunner', () => {
  it('works in cwd even when the environment points git at another repository', async () => {
    const mine = path.join(root, 'mine');
    const other = path.join(root, 'other');
    const mySha = createRepository(mine, { 'a.md': 'a\n' });
    createRepository(other, { 'b.md': 'b\n' });
    const runner = new GitRunner({
      logger: pino({ level: 'silent' }),
      env: {
        PATH: process.env.PATH,
        HOME: root,
        GIT_DIR: path.join(other, '.git'),
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'core.bare',
        GIT_CONFIG_VALUE_0: 'true',
      },
    });
    const { stdout } = await runner.run(['rev-parse', 'HEAD'], { cwd: mine });
    expect(stdout.trim()).toBe(mySha);
  });

  it('fails with the subcommand and git’s words, and accepts listed exit codes', async () => {
    const runner = new GitRunner({ logger: pino({ level: 'silent' }) });
    const error = await runner
      .run(['rev-parse', '--verify', 'no-such-ref'], { cwd: root })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toMatch(/^git rev-parse failed: fatal: not a git repository/);
    const repo = path.join(root, 'r');
    createRepository(repo, { 'a.md': 'a\n' });
    const quiet = await runner.run(['rev-parse', '--verify', '--quiet', 'nope'], { cwd: repo, okCodes: [1] });
    expect(quiet.code).toBe(1);
  });

  it('stops a command that outlives its timeout', async () => {
    const runner = new GitRunner({ logger: pino({ level: 'silent' }) });
    // `git hash-object --stdin` waits for input that never comes.
    await expect(runner.run(['hash-object', '--stdin'], { cwd: root, timeoutMs: 200 })).rejects.toThrow(
      'git hash-object timed out and was stopped',
    );
  });

  it('redacts secrets and passwords in URLs', () => {
    expect(redact('fatal: https://user:hunter2@host/x.git token abc123', ['abc123'])).toBe(
      'fatal: https://[redacted]@host/x.git token [redacted]',
    );
  });
});

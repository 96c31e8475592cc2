import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { randomBase32 } from '../../../src/domain/ids.ts';
import { DOCWRIGHT_BIN, runCli, startChild } from '../../helpers/processes.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../../helpers/storage.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const CLAUDE = 'Claude-User (claude-code/2.1.158; +https://support.anthropic.com/)';

// The PostgreSQL run: the configured backend is PostgreSQL (the main database), the target a
// ClickHouse database of the test's own.
describe.runIf(testBackend === 'postgres')('docwright analytics migrate (PostgreSQL → ClickHouse)', () => {
  let database: TestDatabase;
  afterEach(async () => {
    await database.drop();
  });

  it('killed mid-copy and run again, copies every view once: same counts, same exports', async () => {
    database = createTestDatabase();
    const env = { ...database.env, DOCWRIGHT_LOG_LEVEL: 'silent' };
    const cli = async (args: string[]) => {
      const result = await runCli([...args, '--json'], env);
      expect(result.stderr).not.toContain('"error"');
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };
    const project = (
      await cli(['projects', 'create', '--name', 'docs', '--repo', 'https://example.com/d.git'])
    ).id as string;
    const file = path.join(database.dir, 'access.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) {
      lines.push(
        JSON.stringify({
          timestamp: new Date(Date.UTC(2025, 2, 1) + Math.floor(i / 2) * 60_000).toISOString(),
          client_ip: `10.0.${(i >> 8) & 7}.${i & 255}`,
          path: `/page-${i % 40}`,
          user_agent: i % 3 === 0 ? CLAUDE : FIREFOX,
          status: 200,
        }),
      );
    }
    writeFileSync(file, `${lines.join('\n')}\n`);
    expect(await cli(['analytics', 'import', '--project', project, file])).toMatchObject({ imported: 3000 });

    const to = `${inject('clickhouseUrl')}/dw_test_${randomBase32(12).toLowerCase()}`;
    const args = ['analytics', 'migrate', '--project', project, '--to', to, '--batch-size', '100', '--json'];
    const first = await startChild([DOCWRIGHT_BIN, ...args], env);
    const deadline = Date.now() + 30_000;
    while (
      !/copied [1-9]\d* of 3000/.test(first.stderr()) &&
      first.child.exitCode === null &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 5));
    }
    first.child.kill('SIGKILL');
    // Killed mid-copy, not finished: no exit code.
    expect(await first.exited).toBeNull();
    expect(first.stderr()).not.toContain('copied 3000 of 3000');

    const second = await runCli(args, env);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({
      project,
      copied: 3000,
      sourceViews: 3000,
      targetViews: 3000,
      exportsEqual: true,
    });
  });
});

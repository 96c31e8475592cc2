import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createClient } from '@clickhouse/client';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { randomBase32 } from '../../../src/domain/ids.ts';
import { runCliInProcess } from '../../helpers/cli.ts';
import { DOCWRIGHT_BIN, startChild } from '../../helpers/processes.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../../helpers/storage.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const CLAUDE = 'Claude-User (claude-code/2.1.158; +https://support.anthropic.com/)';

// The PostgreSQL run: the configured backend is PostgreSQL (the main database), the target a
// ClickHouse database of the test's own.
describe.runIf(testBackend === 'postgres')('docwright analytics migrate (PostgreSQL → ClickHouse)', () => {
  let database: TestDatabase;
  /** The target database of each test, dropped after it. */
  let clickhouseDatabase = '';
  const target = () => {
    clickhouseDatabase = `dw_test_${randomBase32(12).toLowerCase()}`;
    return `${inject('clickhouseUrl')}/${clickhouseDatabase}`;
  };
  afterEach(async () => {
    await database.drop();
    const admin = createClient({ url: inject('clickhouseUrl') });
    await admin.command({ query: `DROP DATABASE IF EXISTS ${clickhouseDatabase}` });
    await admin.close();
  });

  const logLines = (count: number, page: string) =>
    Array.from({ length: count }, (_, i) =>
      JSON.stringify({
        timestamp: new Date(Date.UTC(2025, 2, 1) + i * 60_000).toISOString(),
        client_ip: `10.1.${(i >> 8) & 7}.${i & 255}`,
        path: `/${page}-${i % 9}`,
        user_agent: i % 4 === 0 ? CLAUDE : FIREFOX,
        status: 200,
      }),
    ).join('\n');

  // In this process (test/helpers/cli.ts): the commands' output and effects; the next test is
  // about a process killed mid-copy, so that one command runs the binary.
  it('copies every project with --all-projects, each checked, and refuses neither or both', async () => {
    database = createTestDatabase();
    const env = { ...database.env, DOCWRIGHT_LOG_LEVEL: 'silent' };
    const cli = async (args: string[]) => {
      const result = await runCliInProcess([...args, '--json'], env);
      expect(result.stderr).not.toContain('"error"');
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };
    const create = async (name: string) =>
      (await cli(['projects', 'create', '--name', name, '--repo', 'https://example.com/d.git'])).id as string;
    const [a, b, empty] = [await create('a'), await create('b'), await create('empty')];
    for (const [project, count] of [
      [a, 300],
      [b, 200],
    ] as const) {
      const file = path.join(database.dir, `${project}.jsonl`);
      writeFileSync(file, `${logLines(count, project)}\n`);
      expect(await cli(['analytics', 'import', '--project', project, file])).toMatchObject({
        imported: count,
      });
    }
    const to = target();
    const neither = await runCliInProcess(['analytics', 'migrate', '--to', to, '--json'], env);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toContain('Give either --project <id> or --all-projects');
    const both = await runCliInProcess(
      ['analytics', 'migrate', '--project', a, '--all-projects', '--to', to],
      env,
    );
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('Give either --project <id> or --all-projects');

    const all = await runCliInProcess(['analytics', 'migrate', '--all-projects', '--to', to, '--json'], env);
    expect(all.code).toBe(0);
    const { projects } = JSON.parse(all.stdout) as { projects: Array<Record<string, unknown>> };
    const byProject = new Map(projects.map((p) => [p.project, p]));
    expect(byProject.get(a)).toEqual({
      project: a,
      copied: 300,
      sourceViews: 300,
      targetViews: 300,
      exportsEqual: true,
    });
    expect(byProject.get(b)).toEqual({
      project: b,
      copied: 200,
      sourceViews: 200,
      targetViews: 200,
      exportsEqual: true,
    });
    expect(byProject.get(empty)).toEqual({
      project: empty,
      copied: 0,
      sourceViews: 0,
      targetViews: 0,
      exportsEqual: true,
    });
    const text = await runCliInProcess(['analytics', 'migrate', '--all-projects', '--to', to], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('3 of 3 projects copied and checked.');
  });

  // Only the killed copy is a child process; the rest runs in this process, as above (a loaded CI
  // machine took 30 s for four Node starts). The timeout is a ceiling for such a machine.
  it('killed mid-copy and run again, copies every view once: same counts, same exports', {
    timeout: 90_000,
  }, async () => {
    database = createTestDatabase();
    const env = { ...database.env, DOCWRIGHT_LOG_LEVEL: 'silent' };
    const cli = async (args: string[]) => {
      const result = await runCliInProcess([...args, '--json'], env);
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

    const to = target();
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

    const second = await runCliInProcess(args, env);
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

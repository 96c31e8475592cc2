import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess as cli } from '../../helpers/cli.ts';
import { createRepository, tempDir } from '../../helpers/git-repos.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../../helpers/storage.ts';

describe(`docwright projects context on ${testBackend}`, () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let dir: { dir: string; cleanup: () => void };
  beforeEach(() => {
    database = createTestDatabase();
    // The roots bind HTTP requests only: the command line may name any path on this machine.
    env = { ...database.env, DOCWRIGHT_LOG_LEVEL: 'warn', DOCWRIGHT_LOCAL_REPOSITORY_ROOTS: '/srv/none' };
    dir = tempDir();
  });
  afterEach(async () => {
    dir.cleanup();
    await database.drop();
  });

  const json = async <T = Record<string, unknown>>(args: string[]) => {
    const result = await cli([...args, '--json'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as T;
  };

  it('connects, lists and removes repositories, as JSON and as text', async () => {
    const api = path.join(dir.dir, 'api');
    createRepository(api, { 'src/limits.ts': 'export const RETRIES = 3;\n' }, 'trunk');
    const { id } = await json<{ id: string }>([
      'projects',
      'create',
      '--name',
      'Docs',
      '--repo',
      'https://git.invalid/acme/docs.git',
    ]);

    const added = await json([
      'projects',
      'context',
      'add',
      id,
      '--name',
      'api',
      '--repo',
      api,
      '--ref',
      'trunk',
    ]);
    expect(added).toEqual({
      name: 'api',
      repository: api,
      ref: 'trunk',
      createdAt: expect.any(String),
      warnings: [],
    });
    // No network here: a remote that cannot be asked now is connected, with a warning on stderr.
    const remote = await cli(
      ['projects', 'context', 'add', id, '--name', 'sdk', '--repo', 'https://git.invalid/acme/sdk.git'],
      env,
    );
    expect(remote.code).toBe(0);
    expect(remote.stdout).toBe(`Connected sdk (https://git.invalid/acme/sdk.git @ main) to project ${id}\n`);
    expect(remote.stderr).toMatch(/^Warning: Could not check https:\/\/git\.invalid\/acme\/sdk\.git now/);

    const listed = await json<{ name: string }[]>(['projects', 'context', 'list', id]);
    expect(listed.map((r) => r.name)).toEqual(['api', 'sdk']);
    const text = await cli(['projects', 'context', 'list', id], env);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+REPOSITORY\s+BRANCH\s+CONNECTED$/);
    expect(lines[1]).toMatch(new RegExp(`^api\\s+${api}\\s+trunk\\s+\\d{4}-`));
    expect(lines).toHaveLength(3);

    expect(await json(['projects', 'context', 'remove', id, '--name', 'sdk'])).toEqual({
      removed: 'sdk',
      projectId: id,
    });
    const removed = await cli(['projects', 'context', 'remove', id, '--name', 'api'], env);
    expect(removed).toEqual({ code: 0, stdout: `Disconnected api from project ${id}\n`, stderr: '' });
    expect((await cli(['projects', 'context', 'list', id], env)).stdout).toBe('(none)\n');
  });

  it("reports the service's refusals on stderr with exit code 1", async () => {
    const api = path.join(dir.dir, 'api');
    createRepository(api, { 'a.ts': '\n' });
    const { id } = await json<{ id: string }>(['projects', 'create', '--name', 'Docs', '--repo', api]);
    const refused = async (args: string[], message: RegExp | string) => {
      const result = await cli(['projects', 'context', ...args], env);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
    };
    await refused(
      ['add', id, '--name', 'Api Code', '--repo', api],
      /^Error: name: "Api Code" is not a connected/,
    );
    await refused(['add', id, '--name', 'api', '--repo', api, '--ref', 'trunk'], /has no branch "trunk"/);
    await refused(['add', id, '--name', 'api', '--repo', dir.dir], /is not a git repository/);
    await refused(
      ['add', 'prj_missing', '--name', 'api', '--repo', api],
      'Error: Project prj_missing not found\n',
    );
    await json(['projects', 'context', 'add', id, '--name', 'api', '--repo', api]);
    await refused(['add', id, '--name', 'api', '--repo', api], /"api" is already connected to this project/);
    await refused(
      ['remove', id, '--name', 'sdk'],
      `Error: Project ${id} has no connected repository named "sdk"\n`,
    );

    const asJson = await cli(['projects', 'context', 'remove', id, '--name', 'sdk', '--json'], env);
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stderr)).toEqual({
      error: `Project ${id} has no connected repository named "sdk"`,
    });
    const missing = await cli(['projects', 'context', 'add', id, '--repo', api], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/required option '--name <name>' not specified/);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/processes.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../helpers/storage.ts';

describe(`docwright CLI on ${testBackend}`, () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  beforeEach(() => {
    database = createTestDatabase();
    env = { ...database.env, DOCWRIGHT_LOG_LEVEL: 'warn' };
  });
  afterEach(() => database.drop());

  const json = async (args: string[]) => {
    const result = await runCli([...args, '--json'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as Record<string, unknown> & Record<string, unknown>[];
  };

  it('migrates, creates and lists projects and keys, and revokes keys', async () => {
    const migrated = await json(['migrate']);
    expect(migrated.applied).toContain('0001_initial');
    expect((await json(['migrate'])).applied).toEqual([]);

    const project = await json([
      'projects',
      'create',
      '--name',
      'Docs',
      '--repo',
      'https://github.com/acme/docs.git',
      '--ref',
      'trunk',
    ]);
    expect(project).toMatchObject({
      name: 'Docs',
      repository: 'https://github.com/acme/docs.git',
      baseBranch: 'trunk',
    });
    expect(project.id).toMatch(/^prj_/);
    expect(await json(['projects', 'list'])).toEqual([project]);

    const created = await json(['keys', 'create', '--project', String(project.id), '--name', 'ci']);
    expect(created.key).toMatch(/^dw_[0-9A-Za-z]{38}$/);
    expect(created).toMatchObject({ name: 'ci', projectId: project.id, revokedAt: null });

    const listed = await json(['keys', 'list', '--project', String(project.id)]);
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(String(created.key));
    expect(listed[0]).toMatchObject({ id: created.id, hint: `dw_…${String(created.key).slice(-4)}` });

    const revoked = await json(['keys', 'revoke', String(created.id)]);
    expect(revoked.revokedAt).toEqual(expect.any(String));

    // Human output is a table.
    const table = await runCli(['projects', 'list'], env);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+REPOSITORY/);
    expect(table.stdout).toContain('Docs');
  });

  it('reports errors on stderr with a non-zero exit code', async () => {
    const unknownProject = await runCli(['keys', 'create', '--project', 'prj_nope', '--json'], env);
    expect(unknownProject.code).toBe(1);
    expect(unknownProject.stdout).toBe('');
    expect(unknownProject.stderr).toBe('Error: Project prj_nope not found\n');

    const unknownKey = await runCli(['keys', 'revoke', 'key_nope'], env);
    expect(unknownKey.code).toBe(1);
    expect(unknownKey.stderr).toMatch(/API key key_nope not found/);

    const missingOption = await runCli(['projects', 'create', '--name', 'x'], env);
    expect(missingOption.code).not.toBe(0);
    expect(missingOption.stderr).toMatch(/--repo/);

    const badBranch = await runCli(
      ['projects', 'create', '--name', 'x', '--repo', '/tmp/x', '--ref', 'a..b'],
      env,
    );
    expect(badBranch.code).toBe(1);
    expect(badBranch.stderr).toMatch(/not a valid branch name/);

    const badConfig = await runCli(['projects', 'list'], { ...env, DOCWRIGHT_PORT: 'x' });
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toMatch(/Invalid configuration:\n {2}- DOCWRIGHT_PORT must be a whole number/);
  });

  it('lets several processes migrate a fresh database at once', async () => {
    const results = await Promise.all([1, 2, 3].map(() => runCli(['migrate', '--json'], env)));
    expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
    const applied = results.flatMap((r) => (JSON.parse(r.stdout) as { applied: string[] }).applied);
    expect(applied.filter((name) => name === '0001_initial')).toHaveLength(1);
  });
});

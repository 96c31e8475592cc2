import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../../helpers/storage.ts';

describe(`docwright automations CLI on ${testBackend}`, () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  beforeEach(() => {
    database = createTestDatabase();
    env = {
      ...database.env,
      DOCWRIGHT_LOG_LEVEL: 'warn',
      DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=',
      DOCWRIGHT_PUBLIC_URL: 'https://docwright.example.com',
    };
  });
  afterEach(() => database.drop());

  type Json = Record<string, unknown> & { id: string };
  const json = async <T = Json>(args: string[]) => {
    const result = await runCliInProcess([...args, '--json'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as T;
  };

  it('creates, lists, changes, triggers and deletes automations, and lists their runs', async () => {
    // No network here: the remote cannot be checked, which is a warning, not a refusal.
    const { id: projectId } = await json([
      'projects',
      'create',
      '--name',
      'Docs',
      '--repo',
      'https://git.invalid/acme/docs.git',
    ]);
    const p = ['--project', projectId];

    const weekly = await json([
      'automations',
      'create',
      ...p,
      '--name',
      'Weekly links',
      '--instructions',
      'Find broken links',
      '--trigger',
      'schedule',
      '--cron',
      '0 9 * * 1',
      '--timezone',
      'Europe/Paris',
      '--ready',
    ]);
    expect(weekly).toMatchObject({
      trigger: { kind: 'schedule', cron: '0 9 * * 1', timezone: 'Europe/Paris' },
      draft: false,
      enabled: true,
    });
    const hook = await json([
      'automations',
      'create',
      ...p,
      '--name',
      'API',
      '--instructions',
      'Document the API change',
      '--trigger',
      'code_change',
      '--provider',
      'gitlab',
      '--repo',
      'acme/platform/api',
      '--path',
      'src/**',
      '--path',
      'openapi.yaml',
    ]);
    expect(hook).toMatchObject({
      trigger: {
        kind: 'code_change',
        provider: 'gitlab',
        repository: 'acme/platform/api',
        paths: ['src/**', 'openapi.yaml'],
        hookUrl: `https://docwright.example.com/v1/hooks/gitlab/${projectId}`,
      },
      webhookSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const listed = await json<Json[]>(['automations', 'list', ...p]);
    expect(listed.map((a) => a.name)).toEqual(['Weekly links', 'API']);
    expect(listed.some((a) => 'webhookSecret' in a)).toBe(false);

    const changed = await json([
      'automations',
      'update',
      weekly.id,
      ...p,
      '--cron',
      '30 8 * * *',
      '--disable',
      '--max-runs-per-day',
      '1',
    ]);
    expect(changed).toMatchObject({
      trigger: { kind: 'schedule', cron: '30 8 * * *', timezone: 'Europe/Paris' },
      enabled: false,
      maxRunsPerDay: 1,
    });

    const refused = await runCliInProcess(['automations', 'trigger', weekly.id, ...p, '--json'], env);
    expect(refused.code).not.toBe(0);
    expect(JSON.parse(refused.stderr.trim().split('\n').at(-1) as string).error).toMatch(/disabled/);

    await json(['automations', 'update', weekly.id, ...p, '--enable']);
    const run = await json<{ automationId: string; runId: string; jobId: string }>([
      'automations',
      'trigger',
      weekly.id,
      ...p,
      '--context',
      'Release 3 is out',
    ]);
    expect(run).toEqual({
      automationId: weekly.id,
      runId: expect.stringMatching(/^run_/),
      jobId: expect.stringMatching(/^job_/),
    });
    // The second run in 24 hours is over the limit of 1.
    const over = await runCliInProcess(['automations', 'trigger', weekly.id, ...p, '--json'], env);
    expect(over.code).not.toBe(0);
    const table = await runCliInProcess(['automations', 'runs', weekly.id, ...p], env);
    // The human table: the refused run, then the queued one.
    expect(
      table.stdout
        .split('\n')
        .slice(1, 3)
        .map((line) => /over the daily limit|queued/.exec(line)?.[0]),
    ).toEqual(['over the daily limit', 'queued']);

    const rotated = await json<Json>(['automations', 'rotate-secret', hook.id, ...p]);
    expect(rotated).toMatchObject({
      id: hook.id,
      webhookSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      previousSecretExpiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(rotated.webhookSecret).not.toBe(hook.webhookSecret);
    const human = await runCliInProcess(['automations', 'rotate-secret', hook.id, ...p], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      /New webhook secret \(shown once, enter it in the webhook's Secret token now\): [A-Za-z0-9_-]{43}\n/,
    );
    const manual = await runCliInProcess(['automations', 'rotate-secret', weekly.id, ...p, '--json'], env);
    expect(manual.code).not.toBe(0);
    expect(JSON.parse(manual.stderr.trim().split('\n').at(-1) as string).error).toMatch(/no webhook secret/);

    expect(await json(['automations', 'delete', hook.id, ...p])).toEqual({ deleted: hook.id });
    expect((await json<Json[]>(['automations', 'list', ...p])).map((a) => a.name)).toEqual(['Weekly links']);
    // Each command is a process of its own (about 10 here): give a loaded machine time.
  }, 240_000);
});

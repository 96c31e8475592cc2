import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/domain/clock.ts';
import { resolveCodeHostSettings } from '../../../src/domain/projects/code-host-settings.ts';
import { ProjectService } from '../../../src/domain/projects/project-service.ts';
import { ProjectSettingsService } from '../../../src/domain/projects/project-settings.ts';
import { SecretBox } from '../../../src/domain/secrets/secret-box.ts';
import type { Storage } from '../../../src/storage/database.ts';
import { runCliInProcess } from '../../helpers/cli.ts';
import { createTestDatabase, openTestStorage } from '../../helpers/storage.ts';

const box = new SecretBox(`base64:${randomBytes(32).toString('base64')}`);
const TOKEN = 'ghp_stored_secret_token_123456';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setup(repository = 'https://github.com/acme/docs.git') {
  const { storage, cleanup } = await openTestStorage();
  cleanups.push(cleanup);
  const project = await new ProjectService(storage, systemClock).create({ name: 'Docs', repository });
  return { storage, project, settings: new ProjectSettingsService(storage, box) };
}

async function rawSettings(storage: Storage, id: string): Promise<string> {
  const row = await storage.db
    .selectFrom('projects')
    .select('settings')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.settings;
}

describe('ProjectSettingsService', () => {
  it('stores a token sealed, never returns it, and the code host opens it', async () => {
    const { storage, project, settings } = await setup();
    const shown = await settings.update(project.id, {
      credentials: { token: TOKEN },
      draft: false,
      model: 'openai:gpt-5',
    });
    expect(shown).toEqual({
      projectId: project.id,
      model: 'openai:gpt-5',
      draft: false,
      monthlyBudgetUsd: null,
      codeHost: { kind: 'github', apiUrl: null, repository: null, credentials: 'stored' },
      webResearch: false,
    });
    expect(JSON.stringify(shown)).not.toContain(TOKEN);
    const raw = await rawSettings(storage, project.id);
    expect(raw).not.toContain(TOKEN);
    const stored = JSON.parse(raw) as Record<string, unknown>;
    expect(resolveCodeHostSettings(project, stored, box)).toEqual({
      kind: 'github',
      apiUrl: 'https://api.github.com',
      auth: { type: 'token', token: TOKEN },
    });
    expect(await settings.show(project.id)).toEqual(shown);
  });

  it('keeps credentials across unrelated changes, drops them when the host changes, clears on request', async () => {
    const { storage, project, settings } = await setup('https://git.example.com/acme/docs.git');
    await settings.update(project.id, {
      host: 'github',
      apiUrl: 'https://git.example.com/api/v3/',
      credentials: { token: TOKEN },
    });
    const after = await settings.update(project.id, { hostRepository: 'acme/docs', model: null });
    expect(after.codeHost).toEqual({
      kind: 'github',
      apiUrl: 'https://git.example.com/api/v3',
      repository: 'acme/docs',
      credentials: 'stored',
    });
    const switched = await settings.update(project.id, { host: 'gitlab' });
    expect(switched.codeHost).toEqual({
      kind: 'gitlab',
      apiUrl: null,
      repository: null,
      credentials: 'none',
    });
    await settings.update(project.id, { credentials: { token: 'glpat-x' } });
    const cleared = await settings.update(project.id, { credentials: null });
    expect(cleared.codeHost?.credentials).toBe('none');
    expect(await rawSettings(storage, project.id)).not.toContain('credentials');
    expect((await settings.update(project.id, { host: null })).codeHost).toBeNull();
  });

  it('refuses what cannot work, with a clear reason', async () => {
    const { project, settings, storage } = await setup('https://git.example.com/acme/docs.git');
    await expect(settings.update(project.id, { credentials: { token: TOKEN } })).rejects.toThrow(
      /--host github\|gitlab\|local/,
    );
    await expect(settings.update(project.id, { model: 'gpt' })).rejects.toThrow(/provider:model-id/);
    await expect(settings.update(project.id, { host: 'github', apiUrl: 'ftp://x' })).rejects.toThrow(/http/);
    await expect(settings.update(project.id, { host: 'local', credentials: { token: 'x' } })).rejects.toThrow(
      /local repository/,
    );
    await expect(
      settings.update(project.id, {
        host: 'gitlab',
        credentials: { appId: '1', privateKey: 'k', installationId: 2 },
      }),
    ).rejects.toThrow(/GitLab takes an access token/);
    const noKey = new ProjectSettingsService(storage, null);
    await expect(noKey.update(project.id, { host: 'github', credentials: { token: TOKEN } })).rejects.toThrow(
      /DOCWRIGHT_SECRET_KEY is not configured/,
    );
    await expect(settings.update('prj_missing', { draft: true })).rejects.toThrow(/not found/);
  });

  it('lets a project turn web research on and off, off unless set, leaving the other settings alone', async () => {
    const { storage, project, settings } = await setup();
    expect((await settings.show(project.id)).webResearch).toBe(false);
    await settings.update(project.id, { draft: false });
    expect(await settings.update(project.id, { webResearch: true })).toMatchObject({
      webResearch: true,
      draft: false,
    });
    expect(JSON.parse(await rawSettings(storage, project.id))).toEqual({ draft: false, webResearch: true });
    expect((await settings.update(project.id, { model: 'openai:gpt-5' })).webResearch).toBe(true);
    expect((await settings.update(project.id, { webResearch: false })).webResearch).toBe(false);
    expect(JSON.parse(await rawSettings(storage, project.id))).toEqual({
      draft: false,
      model: 'openai:gpt-5',
    });
  });
});

describe('docwright projects update', () => {
  // In this process, as the binary runs it (test/helpers/cli.ts): nothing here is about the process.
  const cli = (env: Record<string, string>, args: string[], stdin?: string) =>
    runCliInProcess(args, { DOCWRIGHT_LOG_LEVEL: 'silent', ...env }, stdin);

  it("sets the model, draft setting and host, and stores a token with the data directory's key or DOCWRIGHT_SECRET_KEY", async () => {
    const database = createTestDatabase();
    cleanups.push(() => database.drop());
    const created = await cli(database.env, [
      'projects',
      'create',
      '--name',
      'Docs',
      '--repo',
      'https://github.com/acme/docs.git',
      '--json',
    ]);
    expect(created.code).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };

    const updated = await cli(database.env, [
      'projects',
      'update',
      id,
      '--model',
      'anthropic:claude-sonnet-4-5',
      '--ready',
      '--host',
      'github',
      '--json',
    ]);
    expect(updated.stderr).toBe('');
    expect(JSON.parse(updated.stdout)).toEqual({
      projectId: id,
      model: 'anthropic:claude-sonnet-4-5',
      draft: false,
      monthlyBudgetUsd: null,
      codeHost: { kind: 'github', apiUrl: null, repository: null, credentials: 'none' },
      webResearch: false,
      repository: 'https://github.com/acme/docs.git',
      baseBranch: 'main',
      // This month's spend (UTC) against no budget: nothing has run yet.
      spend: {
        month: expect.stringMatching(/^\d{4}-\d{2}$/),
        resetsOn: expect.stringMatching(/^\d{4}-\d{2}-01$/),
        budgetUsd: null,
        spentUsd: 0,
        unpricedTurns: 0,
        budgetSpent: false,
      },
      warnings: [],
    });

    // Without DOCWRIGHT_SECRET_KEY: sealed with the data directory's key file, which a server
    // started on that directory uses too.
    const withFile = await cli(database.env, ['projects', 'update', id, '--token-stdin'], `${TOKEN}\n`);
    expect(withFile.stderr).toBe('');
    expect(withFile.stdout).toContain('credentials:  stored (encrypted)');
    expect(withFile.stdout).not.toContain(TOKEN);
    const fileKey = readFileSync(path.join(database.dir, 'secret.key'), 'utf8');
    const sealedWithFile = database.open();
    try {
      const opened = resolveCodeHostSettings(
        { id, repository: 'https://github.com/acme/docs.git' },
        JSON.parse(await rawSettings(sealedWithFile, id)) as Record<string, unknown>,
        new SecretBox(fileKey),
      );
      expect(opened).toMatchObject({ kind: 'github', auth: { type: 'token', token: TOKEN } });
    } finally {
      await sealedWithFile.close();
    }

    const keyed = { ...database.env, DOCWRIGHT_SECRET_KEY: 'a passphrase long enough for scrypt' };
    const stored = await cli(keyed, ['projects', 'update', id, '--token-stdin'], `${TOKEN}\n`);
    expect(stored.stderr).toBe('');
    expect(stored.stdout).toContain('credentials:  stored (encrypted)');
    expect(stored.stdout).not.toContain(TOKEN);
    const storage = database.open();
    try {
      const raw = await rawSettings(storage, id);
      expect(raw).not.toContain(TOKEN);
      const opened = resolveCodeHostSettings(
        { id, repository: 'https://github.com/acme/docs.git' },
        JSON.parse(raw) as Record<string, unknown>,
        new SecretBox('a passphrase long enough for scrypt'),
      );
      expect(opened).toMatchObject({ kind: 'github', auth: { type: 'token', token: TOKEN } });
    } finally {
      await storage.close();
    }
    const shown = await cli(keyed, ['projects', 'update', id, '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ codeHost: { credentials: 'stored' } });
    expect(shown.stdout).not.toContain(TOKEN);

    // Web research: off until turned on, and back off.
    const researching = await cli(database.env, ['projects', 'update', id, '--web-research']);
    expect(researching.stderr).toBe('');
    expect(researching.stdout).toContain('  web research: on (the agent may read web pages)\n');
    const quiet = await cli(database.env, ['projects', 'update', id, '--no-web-research', '--json']);
    expect(JSON.parse(quiet.stdout)).toMatchObject({ webResearch: false });
    expect((await cli(database.env, ['projects', 'update', id])).stdout).toContain('  web research: off\n');

    const bad = await cli(database.env, ['projects', 'update', id, '--host', 'bitbucket']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--host must be one of github, gitlab, local');
  });
});

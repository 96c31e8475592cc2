import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomBase32 } from '../../src/domain/ids.ts';
import { SessionService } from '../../src/domain/sessions/session-service.ts';
import { UserService } from '../../src/domain/users/user-service.ts';
import type { Storage } from '../../src/storage/database.ts';
import { migrate } from '../../src/storage/migrate.ts';
import { runCliInProcess as cli } from '../helpers/cli.ts';
import { createBareRepository, createRepository, tempDir } from '../helpers/git-repos.ts';
import { runCli } from '../helpers/processes.ts';
import { createTestDatabase, type TestDatabase, testBackend, testPostgresUrl } from '../helpers/storage.ts';
import { closedPort } from '../helpers/tcp-relay.ts';

/**
 * The commands run in this process (`cli`: the same `main`, its streams and environment
 * captured), which spares a Node start-up per command. What is about the process itself runs
 * `bin/docwright.js` for real (`runCli`): the binary starting under the project's Node, exit
 * codes 0, 1 and 2 end to end, a password piped into standard input, several processes
 * migrating at once.
 */
describe(`docwright CLI on ${testBackend}`, () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  beforeEach(() => {
    database = createTestDatabase();
    env = { ...database.env, DOCWRIGHT_LOG_LEVEL: 'warn' };
  });
  afterEach(() => database.drop());

  const json = async (args: string[]) => {
    const result = await cli([...args, '--json'], env);
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
      'https://git.invalid/acme/docs.git',
      '--ref',
      'trunk',
    ]);
    expect(project).toMatchObject({
      name: 'Docs',
      repository: 'https://git.invalid/acme/docs.git',
      baseBranch: 'trunk',
    });
    expect(project.id).toMatch(/^prj_/);
    const { warnings, ...listed0 } = project;
    // No network here: the remote could not be checked, which is a warning, not a refusal.
    expect(warnings).toEqual([
      expect.stringMatching(/^Could not check https:\/\/git\.invalid\/acme\/docs\.git now/),
    ]);
    expect(await json(['projects', 'list'])).toEqual([listed0]);

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
    const table = await cli(['projects', 'list'], env);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+REPOSITORY/);
    expect(table.stdout).toContain('Docs');
  });

  it('reports errors on stderr with a non-zero exit code', async () => {
    // Through the binary, two processes at once: the exit codes end to end (1: an error; 2: the configuration).
    const [unknownProject, badConfig] = await Promise.all([
      runCli(['keys', 'create', '--project', 'prj_nope'], env),
      runCli(['projects', 'list'], { ...env, DOCWRIGHT_PORT: 'x' }),
    ]);
    expect(unknownProject.code).toBe(1);
    expect(unknownProject.stdout).toBe('');
    expect(unknownProject.stderr).toBe('Error: Project prj_nope not found\n');

    const unknownKey = await cli(['keys', 'revoke', 'key_nope'], env);
    expect(unknownKey.code).toBe(1);
    expect(unknownKey.stderr).toMatch(/API key key_nope not found/);

    const missingOption = await cli(['projects', 'create', '--name', 'x'], env);
    expect(missingOption.code).not.toBe(0);
    expect(missingOption.stderr).toMatch(/--repo/);

    const badBranch = await cli(
      ['projects', 'create', '--name', 'x', '--repo', '/tmp/x', '--ref', 'a..b'],
      env,
    );
    expect(badBranch.code).toBe(1);
    expect(badBranch.stderr).toMatch(/not a valid branch name/);

    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toMatch(/Invalid configuration:\n {2}- DOCWRIGHT_PORT must be a whole number/);
  });

  it('prints its version with --version and -v, exit code 0', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    // Through the binary: what a person types first to see that it is installed.
    expect(await runCli(['--version'], env)).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect(await cli(['-v'], env)).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('says which database or analytics engine it cannot reach, where, and which setting, without credentials', async () => {
    const port = await closedPort();
    const mainDown = await cli(['projects', 'list'], {
      DOCWRIGHT_DATA_DIR: database.dir,
      DATABASE_URL: `postgres://bob:s3cret@127.0.0.1:${port}/docs`,
    });
    expect(mainDown.code).toBe(1);
    expect(mainDown.stderr).toBe(
      `Error: Cannot reach the main database (PostgreSQL at 127.0.0.1:${port}/docs): connect ECONNREFUSED 127.0.0.1:${port}. Is PostgreSQL running and reachable from here? (DATABASE_URL)\n`,
    );

    const analyticsDown = await cli(['projects', 'list'], {
      ...env,
      DOCWRIGHT_ANALYTICS_URL: `clickhouse://reader:s3cret@127.0.0.1:${port}/docs`,
    });
    expect(analyticsDown.code).toBe(1);
    expect(analyticsDown.stderr.trimEnd().split('\n').at(-1)).toBe(
      `Error: Cannot reach the analytics engine, ClickHouse (http://127.0.0.1:${port}, database docs, user reader): connect ECONNREFUSED 127.0.0.1:${port}. Is it running and reachable from here? (DOCWRIGHT_ANALYTICS_URL)`,
    );
    expect(analyticsDown.stderr).not.toContain('s3cret');
  });

  it('names the setting, the server and the fix when the PostgreSQL database does not exist', async () => {
    const name = `dw_missing_${randomBase32(10).toLowerCase()}`;
    const url = new URL(testPostgresUrl);
    const at = `${url.hostname}:${url.port || '5432'}`;
    const main = await cli(['projects', 'list'], {
      DOCWRIGHT_DATA_DIR: database.dir,
      DATABASE_URL: `postgres://postgres:s3cret@${at}/${name}`,
    });
    expect(main.code).toBe(1);
    expect(main.stderr).toBe(
      `Error: The PostgreSQL database "${name}" does not exist on ${at} (DATABASE_URL). Create it first, then start again: createdb -h ${url.hostname} -p ${url.port || '5432'} ${name} (or CREATE DATABASE ${name}; in psql).\n`,
    );
    const analytics = await cli(['projects', 'list'], {
      ...env,
      DOCWRIGHT_ANALYTICS_URL: `postgres://postgres:s3cret@${at}/${name}`,
    });
    expect(analytics.code).toBe(1);
    expect(analytics.stderr.trimEnd().split('\n').at(-1)).toBe(
      `Error: The PostgreSQL database "${name}" does not exist on ${at} (DOCWRIGHT_ANALYTICS_URL). Create it first, then start again: createdb -h ${url.hostname} -p ${url.port || '5432'} ${name} (or CREATE DATABASE ${name}; in psql).`,
    );
    expect(main.stderr + analytics.stderr).not.toContain('s3cret');
  });

  it('with --json, reports every kind of error as JSON on stderr', async () => {
    const domain = await cli(['keys', 'create', '--project', 'prj_nope', '--json'], env);
    expect(domain.code).toBe(1);
    expect(domain.stdout).toBe('');
    expect(JSON.parse(domain.stderr)).toEqual({ error: 'Project prj_nope not found' });
    const usage = await cli(['projects', 'create', '--name', 'x', '--json'], env);
    expect(usage.code).not.toBe(0);
    expect(JSON.parse(usage.stderr)).toEqual({
      error: "required option '--repo <url-or-path>' not specified",
    });
    const config = await cli(['projects', 'list', '--json'], { ...env, DOCWRIGHT_PORT: 'x' });
    expect(config.code).toBe(2);
    expect(JSON.parse(config.stderr)).toEqual({
      error: 'Invalid configuration',
      problems: [expect.stringMatching(/^DOCWRIGHT_PORT must be a whole number/)],
    });
  });

  it('says which data directory it started afresh when there was none', async () => {
    // The embedded default (SQLite in the data dir) whatever backend this project runs on.
    const env = { DOCWRIGHT_LOG_LEVEL: 'warn' };
    const fresh = `${database.dir}/elsewhere`;
    const text = await cli(['projects', 'list'], { ...env, DOCWRIGHT_DATA_DIR: fresh });
    expect(text.code).toBe(0);
    expect(text.stderr).toBe(
      `Note: no Docwright data was in ${fresh}, so this command starts a new, empty one there. Run it from the directory Docwright was started in, or set DOCWRIGHT_DATA_DIR (or DATABASE_URL) to the server's.\n`,
    );
    const again = await cli(['projects', 'list'], { ...env, DOCWRIGHT_DATA_DIR: fresh });
    expect(again.stderr).toBe('');
    const json = await cli(['projects', 'list', '--json'], { ...env, DOCWRIGHT_DATA_DIR: `${fresh}2` });
    expect(JSON.parse(json.stderr)).toEqual({ notice: expect.stringContaining(`${fresh}2`) });
  });

  it('creates keys with a scope, an expiry and an IP allowlist, and lists them', async () => {
    const project = await json([
      'projects',
      'create',
      '--name',
      'Docs',
      '--repo',
      'https://git.invalid/d.git',
    ]);
    const create = (...args: string[]) => json(['keys', 'create', '--project', String(project.id), ...args]);
    const days = (key: Record<string, unknown>) =>
      (Date.parse(String(key.expiresAt)) - Date.parse(String(key.createdAt))) / 86_400_000;

    const limited = await create(
      ...['--name', 'office', '--scope', 'read', '--expires-in-days', '30'],
      ...['--allow-ip', '203.0.113.9/24', '--allow-ip', '2001:DB8::1'],
    );
    expect(limited).toMatchObject({ scope: 'read', allowedIps: ['203.0.113.0/24', '2001:db8::1'] });
    expect(days(limited)).toBe(30);
    expect(await create('--name', 'forever', '--expires-in-days', 'never')).toMatchObject({
      expiresAt: null,
    });

    const badIp = await cli(
      ['keys', 'create', '--project', String(project.id), '--allow-ip', '10.0.0.0/33'],
      env,
    );
    expect(badIp.code).toBe(1);
    expect(badIp.stderr).toBe(
      'Error: allowedIps: "10.0.0.0/33" is not an IP address or CIDR range (like 203.0.113.7, 203.0.113.0/24 or 2001:db8::/32)\n',
    );
    const badDays = await cli(
      ['keys', 'create', '--project', String(project.id), '--expires-in-days', '45'],
      env,
    );
    expect(badDays.code).not.toBe(0);
    expect(badDays.stderr).toMatch(
      /--expires-in-days <days>' argument '45' is invalid. Allowed choices are 7, 30, 60, 90, never/,
    );

    // Human output, with the defaults: an admin key for 90 days.
    const text = await cli(
      ['keys', 'create', '--project', String(project.id), '--allow-ip', '10.0.0.1', '--allow-ip', '::1'],
      env,
    );
    const expires = /^Created admin API key .*\nExpires: (\S+)\nAllowed from: 10\.0\.0\.1, ::1\nKey /m.exec(
      text.stdout,
    )?.[1];
    expect((Date.parse(expires ?? '') - Date.now()) / 86_400_000).toBeCloseTo(90, 1);
    const table = (await cli(['keys', 'list', '--project', String(project.id)], env)).stdout.split('\n');
    expect(table[0]).toMatch(
      /^ID\s+NAME\s+SCOPE\s+KEY\s+CREATED\s+LAST USED\s+EXPIRES\s+ALLOWED IPS\s+REVOKED$/,
    );
    const row = (name: string) => table.find((line) => line.includes(` ${name} `)) ?? '';
    expect(row('office')).toContain(` ${limited.expiresAt}  203.0.113.0/24,2001:db8::1  -`);
    expect(row('forever')).toMatch(/ never +anywhere +-$/);
  });

  it('describes keys create as making admin, read-only and ingestion keys', async () => {
    const help = await cli(['keys', 'create', '--help'], env);
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).toContain(
      'create an API key (shown once): admin, read (reads only), or ingest for a docs server',
    );
    expect(text).toContain('choices: "admin", "read", "ingest"');
    expect(text).toContain(
      '--expires-in-days <days> days until the key stops working, or never (choices: "7", "30", "60", "90", "never", default: "90")',
    );
    expect(text).toContain(
      '--allow-ip <ip-or-cidr> an IP address or CIDR range the key may be used from; repeat for more (default: anywhere)',
    );
    expect(help.stdout).not.toContain('admin API key');
  });

  it('lets several processes migrate a fresh database at once', async () => {
    const results = await Promise.all([1, 2, 3].map(() => runCli(['migrate', '--json'], env)));
    expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
    const applied = results.flatMap((r) => (JSON.parse(r.stdout) as { applied: string[] }).applied);
    expect(applied.filter((name) => name === '0001_initial')).toHaveLength(1);
  });

  it('checks the repository and base branch when a project is created or moved', async () => {
    const dir = tempDir();
    try {
      const repo = path.join(dir.dir, 'docs');
      createRepository(repo, { 'index.md': '# Home\n' });
      mkdirSync(path.join(repo, 'guides'));
      const plain = path.join(dir.dir, 'plain');
      mkdirSync(plain);
      const refused = async (args: string[], message: RegExp) => {
        const result = await cli(['projects', 'create', '--name', 'Docs', ...args], env);
        expect(result.code, result.stderr).toBe(1);
        expect(result.stderr).toMatch(message);
      };
      await refused(['--repo', path.join(dir.dir, 'no-such-path')], /does not exist/);
      await refused(['--repo', plain], /is not a git repository/);
      await refused(['--repo', path.join(repo, 'guides')], /is inside the git repository .*, not one itself/);
      await refused(['--repo', repo, '--ref', 'trunk'], /has no branch "trunk"; its branches include main/);
      expect(await json(['projects', 'list'])).toEqual([]);

      const created = await json(['projects', 'create', '--name', 'Docs', '--repo', repo]);
      expect(created).toMatchObject({ repository: repo, baseBranch: 'main', warnings: [] });
      // A remote that cannot be asked now (no network here, or credentials needed) is a warning.
      const remote = await cli(
        ['projects', 'create', '--name', 'Remote', '--repo', 'https://docs.invalid/acme/docs.git'],
        env,
      );
      expect(remote.code).toBe(0);
      expect(remote.stderr).toMatch(/^Warning: Could not check https:\/\/docs\.invalid\/acme\/docs\.git now/);

      const moved = await cli(['projects', 'update', String(created.id), '--ref', 'nope'], env);
      expect(moved.code).toBe(1);
      expect(moved.stderr).toMatch(/has no branch "nope"/);
      const renamed = await cli(['projects', 'update', String(created.id), '--repo', plain], env);
      expect(renamed.code).toBe(1);
      const shown = await json(['projects', 'update', String(created.id)]);
      expect(shown).toMatchObject({ repository: repo, baseBranch: 'main', monthlyBudgetUsd: null });

      // A monthly budget: set (rounded to cents), shown with this month's spend, and removed.
      const month = new Date().toISOString().slice(0, 7);
      const budgeted = await json(['projects', 'update', String(created.id), '--monthly-budget', '49.999']);
      expect(budgeted).toMatchObject({
        monthlyBudgetUsd: 50,
        spend: { month, budgetUsd: 50, spentUsd: 0, unpricedTurns: 0, budgetSpent: false },
      });
      const text = await runCli(['projects', 'update', String(created.id)], env);
      expect(text.stdout).toContain(`budget:       $50.00 a month; spent $0.00 in ${month} (UTC, estimated)`);
      const badBudget = await runCli(
        ['projects', 'update', String(created.id), '--monthly-budget', 'lots'],
        env,
      );
      expect(badBudget.code).toBe(1);
      expect(badBudget.stderr).toMatch(/--monthly-budget must be a number of US dollars/);
      const negative = await runCli(
        ['projects', 'update', String(created.id), '--monthly-budget', '-5'],
        env,
      );
      expect(negative.code).toBe(1);
      expect(negative.stderr).toMatch(/monthlyBudgetUsd must be a number of US dollars from 0/);
      const cleared = await json(['projects', 'update', String(created.id), '--clear-monthly-budget']);
      expect(cleared).toMatchObject({ monthlyBudgetUsd: null, spend: { budgetUsd: null } });

      // A bare repository on this machine is one too (git 2.39 has no top level to show there).
      const bare = path.join(dir.dir, 'docs.git');
      createBareRepository(bare, { 'index.md': '# Home\n' });
      expect(await json(['projects', 'create', '--name', 'Bare', '--repo', bare])).toMatchObject({
        repository: bare,
        warnings: [],
      });
    } finally {
      dir.cleanup();
    }
  });

  it('deletes a project with its jobs, keys, working copies and analytics, after confirmation', async () => {
    const dir = tempDir();
    try {
      const repo = path.join(dir.dir, 'docs');
      createRepository(repo, { 'index.md': '# Home\n' });
      const doomed = await json(['projects', 'create', '--name', 'Doomed', '--repo', repo]);
      const kept = await json(['projects', 'create', '--name', 'Kept', '--repo', repo]);
      await json(['keys', 'create', '--project', String(doomed.id)]);
      const keptKey = await json(['keys', 'create', '--project', String(kept.id)]);
      // Working copies as the agent leaves them: the mirror and a parked copy.
      const mirror = path.join(database.dir, 'mirrors', `${doomed.id}.git`);
      const pool = path.join(database.dir, 'workspaces', '.pool', String(doomed.id));
      mkdirSync(mirror, { recursive: true });
      mkdirSync(pool, { recursive: true });
      const log = path.join(dir.dir, 'access.log');
      const line = (ip: string) =>
        `${ip} - - [20/Nov/2026:10:00:00 +0000] "GET /quickstart HTTP/1.1" 200 512 "-" "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0"\n`;
      const { writeFileSync } = await import('node:fs');
      writeFileSync(log, line('203.0.113.7') + line('203.0.113.8'));
      for (const project of [doomed, kept]) {
        const imported = await cli(
          ['analytics', 'import', '--project', String(project.id), log, '--json'],
          env,
        );
        expect(imported.code, imported.stderr).toBe(0);
      }

      // Not on a terminal and no --yes: nothing happens.
      const unconfirmed = await cli(['projects', 'delete', String(doomed.id)], env);
      expect(unconfirmed.code).toBe(1);
      expect(unconfirmed.stderr).toMatch(/without confirmation: add --yes/);
      expect(existsSync(mirror)).toBe(true);

      const deleted = await json(['projects', 'delete', String(doomed.id), '--yes']);
      expect(deleted).toEqual({ deleted: doomed.id, jobs: 0, keys: 1 });
      expect((await json(['projects', 'list'])).map((p) => p.id)).toEqual([kept.id]);
      expect(existsSync(mirror)).toBe(false);
      expect(existsSync(pool)).toBe(false);
      const again = await cli(['projects', 'delete', String(doomed.id), '--yes'], env);
      expect(again.stderr).toBe(`Error: Project ${doomed.id} not found\n`);
      // The other project keeps its key and its analytics.
      expect(await json(['keys', 'list', '--project', String(kept.id)])).toHaveLength(1);
      expect(keptKey.key).toMatch(/^dw_/);
      const reimport = await cli(['analytics', 'import', '--project', String(kept.id), log, '--json'], env);
      // Its views are still there: importing the same lines again finds them all.
      expect(JSON.parse(reimport.stdout)).toMatchObject({ imported: 0, duplicates: 2 });
    } finally {
      dir.cleanup();
    }
  });

  /** Runs `fn` with the test database's storage open (set-up and checks beside the CLI). */
  async function withStorage<T>(fn: (storage: Storage) => Promise<T>): Promise<T> {
    const storage = database.open();
    try {
      await migrate(storage, database.config);
      return await fn(storage);
    } finally {
      await storage.close();
    }
  }

  it('creates and lists dashboard accounts; passwords come from standard input only', async () => {
    // Through the binary: the password comes down a real pipe into the process's standard input.
    const created = await runCli(
      ['users', 'create', '--email', 'Ada@Example.com', '--role', 'owner', '--password-stdin', '--json'],
      env,
      'correct horse battery staple\n',
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const ada = JSON.parse(created.stdout) as Record<string, unknown>;
    expect(ada).toMatchObject({
      email: 'ada@example.com',
      role: 'owner',
      hasPassword: true,
      signInLink: null,
    });
    expect(ada.id).toMatch(/^usr_/);
    expect(created.stdout).not.toContain('correct horse');

    // Without a password: a one-time link that sets one.
    const invited = await json(['users', 'create', '--email', 'bob@example.com']);
    expect(invited).toMatchObject({ role: 'viewer', hasPassword: false });
    expect((invited.signInLink as { url: string }).url).toMatch(
      /^http:\/\/127\.0\.0\.1:8080\/sign-in\/link#token=dwl_[\w-]{43}$/,
    );
    const text = await cli(['users', 'create', '--email', 'carol@example.com', '--role', 'admin'], env);
    expect(text.stdout).toMatch(
      /^Created admin account usr_\w+ \(carol@example\.com\)\.\nIt has no password yet/,
    );

    const listed = await json(['users', 'list']);
    expect(listed.map((u) => [u.email, u.role, u.hasPassword])).toEqual([
      ['ada@example.com', 'owner', true],
      ['bob@example.com', 'viewer', false],
      ['carol@example.com', 'admin', false],
    ]);
    expect(JSON.stringify(listed)).not.toContain('scrypt');
    const table = await cli(['users', 'list'], env);
    expect(table.stdout).toMatch(/^ID\s+EMAIL\s+ROLE\s+CREATED\s+LAST SIGN-IN\s+PASSWORD\n/);
    expect(table.stdout).toMatch(/bob@example\.com\s+viewer\s+\S+\s+-\s+not yet/);

    const badRole = await cli(['users', 'create', '--email', 'x@example.com', '--role', 'god'], env);
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toMatch(/Allowed choices are owner, admin, viewer/);
    const badEmail = await cli(['users', 'create', '--email', 'not an email'], env);
    expect(badEmail.stderr).toBe('Error: email must be an email address like name@example.com\n');
    const taken = await cli(['users', 'create', '--email', 'CAROL@example.com'], env);
    expect(taken.stderr).toBe('Error: An account with email carol@example.com already exists\n');
  });

  it('makes sign-in links for existing accounts and resets passwords, ending sessions', async () => {
    const ada = await withStorage((storage) =>
      new UserService(storage, () => new Date()).create({
        email: 'ada@example.com',
        password: 'correct horse battery staple',
        role: 'owner',
      }),
    );
    const link = await json(['users', 'sign-in-link', '--email', 'ADA@example.com']);
    expect(link).toMatchObject({ userId: ada.id, email: 'ada@example.com' });
    expect(link.url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/sign-in\/link#token=dwl_[\w-]{43}$/);
    const unknown = await cli(['users', 'sign-in-link', '--email', 'nobody@example.com'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('Error: No account with email nobody@example.com\n');
    expect(await json(['users', 'list'])).toHaveLength(1); // it created nothing

    // A new password: checked, then set; the sessions of the account end.
    const short = await cli(
      ['users', 'reset-password', 'ada@example.com', '--password-stdin'],
      env,
      'short\n',
    );
    expect(short.code).toBe(1);
    expect(short.stderr).toBe('Error: password must be at least 12 characters\n');
    const empty = await cli(['users', 'reset-password', 'ada@example.com', '--password-stdin'], env, '');
    expect(empty.stderr).toMatch(/--password-stdin read nothing/);
    const token = await withStorage(async (storage) => {
      const opened = await new SessionService(storage, () => new Date()).open(ada.id);
      return opened.token;
    });
    const reset = await cli(
      ['users', 'reset-password', ada.id, '--password-stdin', '--json'],
      env,
      'a brand new passphrase\n',
    );
    expect(reset.code, reset.stderr).toBe(0);
    await withStorage(async (storage) => {
      await expect(new SessionService(storage, () => new Date()).authenticate(token)).rejects.toThrow(
        /sign in again/,
      );
      const users = new UserService(storage, () => new Date());
      expect((await users.verifyCredentials('ada@example.com', 'a brand new passphrase'))?.id).toBe(ada.id);
    });
  });

  it('deletes accounts after confirmation, but never the last owner', async () => {
    const [ada, bob] = await withStorage(async (storage) => {
      const users = new UserService(storage, () => new Date());
      return [
        await users.create({ email: 'ada@example.com', role: 'owner' }),
        await users.create({ email: 'bob@example.com', role: 'viewer' }),
      ];
    });
    const lastOwner = await cli(['users', 'delete', 'ada@example.com', '--yes'], env);
    expect(lastOwner.code).toBe(1);
    expect(lastOwner.stderr).toMatch(/last owner account/);
    const unconfirmed = await cli(['users', 'delete', 'bob@example.com'], env);
    expect(unconfirmed.stderr).toMatch(/without confirmation: add --yes/);
    expect(await json(['users', 'delete', 'BOB@example.com', '--yes'])).toEqual({
      deleted: bob?.id,
      email: 'bob@example.com',
    });
    expect((await json(['users', 'list'])).map((u) => u.id)).toEqual([ada?.id]);
  });
});

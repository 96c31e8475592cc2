import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChildHandle, DOCWRIGHT_BIN, runCli, startChild } from '../helpers/processes.ts';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../helpers/scripted-openai-server.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../helpers/storage.ts';

describe(`quick start (docwright serve) on ${testBackend}`, () => {
  let database: TestDatabase;
  let server: ChildHandle | null = null;
  let model: ScriptedOpenAIServer | null = null;
  afterEach(async () => {
    await model?.close();
    model = null;
    if (server?.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await database.drop();
  });

  /** Starts `docwright serve` on `database` (or on `base`, the environment of another one). */
  const serve = async (env: Record<string, string> = {}, base: Record<string, string> = database.env) => {
    server = await startChild(
      [DOCWRIGHT_BIN, 'serve'],
      {
        ...base,
        DOCWRIGHT_PORT: '0',
        DOCWRIGHT_LOG_LEVEL: 'warn',
        DOCWRIGHT_POLL_INTERVAL_MS: '50',
        ...env,
      },
      /^Storage: /m,
    );
    const out = server.stdout();
    return {
      out,
      baseUrl: /running at (http:\/\/\S+)/.exec(out)?.[1] ?? '',
      projectId: /Default project: (prj_\w+)/.exec(out)?.[1] ?? '',
      key: /Admin API key \(shown once, store it now\): (dw_\w+)/.exec(out)?.[1] ?? null,
      signInLink: /sign in with this one-time link \(valid 24 h\): (\S+)/.exec(out)?.[1] ?? null,
    };
  };

  it('prints the URL, the default project and (the first time only) an admin key that works', async () => {
    database = createTestDatabase();
    const first = await serve();
    expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.projectId).toMatch(/^prj_/);
    expect(first.key).toMatch(/^dw_/);
    // The first key has the default lifetime, and says when it ends.
    const expires = /Admin API key \(shown once, store it now\): dw_\w+ {2}\(expires (\S+)\)\n/.exec(
      first.out,
    )?.[1];
    expect((Date.parse(expires ?? '') - Date.now()) / 86_400_000).toBeCloseTo(90, 1);
    expect(first.out).toContain(
      'Model: none configured: jobs fail until you set DOCWRIGHT_MODEL and its provider key (see the README)\n',
    );
    // Analytics go where the main database is: the embedded engine beside SQLite, PostgreSQL beside PostgreSQL.
    expect(first.out).toContain(
      testBackend === 'sqlite'
        ? `Storage: SQLite in ${database.dir}; analytics: embedded (${database.dir}/analytics.sqlite)`
        : `Storage: PostgreSQL (127.0.0.1:5432/postgres, schema ${database.env.DOCWRIGHT_DATABASE_SCHEMA}), files in ${database.dir}; analytics: PostgreSQL (127.0.0.1:5432/postgres, schema ${database.env.DOCWRIGHT_DATABASE_SCHEMA})`,
    );

    // The default project is a real git repository copied from the example site.
    const jobResponse = await fetch(`${first.baseUrl}/v2/agent/${first.projectId}/job`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Add a page about rate limits' }),
    });
    expect(jobResponse.status).toBe(201);
    const job = (await jobResponse.json()) as { id: string; source: { repository: string } };
    const log = execFileSync('git', ['-C', job.source.repository, 'log', '--oneline'], { encoding: 'utf8' });
    expect(log).toMatch(/Example documentation site/);

    // No model is configured here, so the job fails promptly and says how to fix that.
    let polled: { status: string; failureReason: string | null } = { status: 'active', failureReason: null };
    await expect
      .poll(
        async () => {
          const response = await fetch(`${first.baseUrl}/v2/agent/${first.projectId}/job/${job.id}`, {
            headers: { authorization: `Bearer ${first.key}` },
          });
          polled = (await response.json()) as typeof polled;
          return polled.status;
        },
        { timeout: 10_000 },
      )
      .toBe('failed');
    expect(polled.failureReason).toMatch(/DOCWRIGHT_MODEL/);

    server?.child.kill('SIGTERM');
    expect(await server?.exited).toBe(0);

    const second = await serve();
    expect(second.projectId).toBe(first.projectId);
    expect(second.key).toBeNull();
    expect(second.out).not.toContain(first.key ?? 'never');
  });

  it('prints a one-time sign-in link to the dashboard that sets up the owner account, once', async () => {
    database = createTestDatabase();
    const first = await serve();
    expect(first.out).toMatch(
      /^Dashboard: http:\/\/127\.0\.0\.1:\d+\/ {2}— sign in with this one-time link \(valid 24 h\): http:\/\/127\.0\.0\.1:\d+\/sign-in\/link#token=dwl_[\w-]{43}$/m,
    );
    expect(first.out).toContain('npx docwright users sign-in-link --email owner@localhost');
    const link = new URL(first.signInLink ?? '');
    expect(link.origin).toBe(first.baseUrl);
    const token = link.hash.replace('#token=', '');
    const redeem = (body: Record<string, string>) =>
      fetch(`${first.baseUrl}/dashboard/api/sign-in-links/redeem`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // The new account needs its email and a password.
    const short = await redeem({ token, email: 'me@example.com', password: 'too short' });
    expect(short.status).toBe(400);
    expect(await short.json()).toMatchObject({ error: expect.stringMatching(/at least 12 characters/) });

    const redeemed = await redeem({ token, email: 'Me@Example.com', password: 'a long enough passphrase' });
    expect(redeemed.status).toBe(200);
    expect(await redeemed.json()).toMatchObject({ user: { email: 'me@example.com', role: 'owner' } });
    const cookie = (redeemed.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const session = await fetch(`${first.baseUrl}/dashboard/api/session`, { headers: { cookie } });
    expect(session.status).toBe(200);
    const projects = await fetch(`${first.baseUrl}/dashboard/api/projects`, { headers: { cookie } });
    expect(((await projects.json()) as { projects: { id: string }[] }).projects.map((p) => p.id)).toEqual([
      first.projectId,
    ]);
    // Once only.
    const again = await redeem({ token, email: 'me@example.com', password: 'another long passphrase' });
    expect(again.status).toBe(401);
    expect(again.headers.get('set-cookie')).toBeNull();
    // The email and password it set sign in.
    const signIn = await fetch(`${first.baseUrl}/dashboard/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'me@example.com', password: 'a long enough passphrase' }),
    });
    expect(signIn.status).toBe(200);

    // Someone can sign in now: the next start prints no link.
    server?.child.kill('SIGTERM');
    expect(await server?.exited).toBe(0);
    const second = await serve();
    expect(second.signInLink).toBeNull();
    expect(second.out).toMatch(/^Dashboard: http:\/\/127\.0\.0\.1:\d+\/ {2}\(lost your password\?/m);
  });

  it('runs the first job once a model is configured: restart with one, send a follow-up', async () => {
    database = createTestDatabase();
    const first = await serve();
    const headers = { authorization: `Bearer ${first.key}`, 'content-type': 'application/json' };
    const jobUrl = (id: string) => `${first.baseUrl}/v2/agent/${first.projectId}/job/${id}`;
    const created = await fetch(`${first.baseUrl}/v2/agent/${first.projectId}/job`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'Add a page about rate limits' }),
    });
    const job = (await created.json()) as { id: string; model: string | null };
    expect(job.model).toBeNull();
    const poll = async (baseUrl: string, status: string) => {
      let polled: { status: string; model: string | null; prLink: string | null } | null = null;
      await expect
        .poll(
          async () => {
            const response = await fetch(jobUrl(job.id).replace(first.baseUrl, baseUrl), { headers });
            polled = (await response.json()) as NonNullable<typeof polled>;
            return polled.status;
          },
          { timeout: 20_000 },
        )
        .toBe(status);
      return polled as unknown as { status: string; model: string | null; prLink: string | null };
    };
    expect((await poll(first.baseUrl, 'failed')).model).toBeNull();
    server?.child.kill('SIGTERM');
    await server?.exited;

    // The model's side of the follow-up: write a page, then finish.
    model = await startScriptedOpenAIServer([
      {
        toolCalls: [
          {
            name: 'write_file',
            arguments: { path: 'rate-limits.md', content: '# Rate limits\n\n100 a minute.\n' },
          },
        ],
      },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Added rate-limits.md.' } }] },
    ]);
    const second = await serve({
      DOCWRIGHT_MODEL: 'openai-compatible:test-model',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
    });
    const followUp = await fetch(`${jobUrl(job.id).replace(first.baseUrl, second.baseUrl)}/message`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'Try again now that a model is configured' }),
    });
    expect(followUp.status).toBe(200);
    const done = await poll(second.baseUrl, 'completed');
    expect(done.model).toBe('openai-compatible:test-model');
    // (Its host is DOCWRIGHT_PUBLIC_URL's, which a server on port 0 cannot know beforehand.)
    expect(done.prLink).toMatch(new RegExp(`/review/${job.id}$`));
    const conversation = (await (
      await fetch(`${jobUrl(job.id).replace(first.baseUrl, second.baseUrl)}/messages`, { headers })
    ).json()) as { turns: { turn: number; status: string; model: string | null }[] };
    expect(conversation.turns.map(({ turn, status, model }) => ({ turn, status, model }))).toEqual([
      { turn: 1, status: 'failed', model: null },
      { turn: 2, status: 'succeeded', model: 'openai-compatible:test-model' },
    ]);
  });

  it('names the model in use, and warns when its provider key is missing', async () => {
    database = createTestDatabase();
    const started = await serve({
      DOCWRIGHT_MODEL: 'anthropic:claude-sonnet-4-5',
      DOCWRIGHT_LOG_LEVEL: 'info',
    });
    expect(started.out).toContain(
      'Model: anthropic:claude-sonnet-4-5  (cannot be used yet: Model "anthropic:claude-sonnet-4-5" needs an API key: set ANTHROPIC_API_KEY.)',
    );
    // The log line may reach stderr a moment after the banner reaches stdout.
    const warning = () =>
      server
        ?.stderr()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .find((entry) => entry.level === 40)?.msg;
    await expect
      .poll(warning, { timeout: 10_000 })
      .toMatch(/^the configured model cannot be used: .*set ANTHROPIC_API_KEY/);
  });

  // Someone moving a SQLite install to PostgreSQL, in the same directory with the same data directory.
  it.runIf(testBackend === 'postgres')(
    'a PostgreSQL install in the data directory of a SQLite one: its own example repository, and a banner that says where its views go',
    async () => {
      database = createTestDatabase();
      const onSqlite = await serve({}, { DOCWRIGHT_DATA_DIR: database.dir });
      const repository = (banner: string) =>
        /Default project: prj_\w+ {2}\(Example docs, (.+)\)$/m.exec(banner)?.[1];
      const sqliteRepository = repository(onSqlite.out) as string;
      // The SQLite install's life: views in the embedded file, a change merged into its example site.
      const ingested = await fetch(`${onSqlite.baseUrl}/v1/analytics/${onSqlite.projectId}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${onSqlite.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          events: [
            {
              timestamp: new Date().toISOString(),
              path: '/',
              userAgent: 'Mozilla/5.0 Firefox/133.0',
              ip: '203.0.113.7',
            },
          ],
        }),
      });
      expect(await ingested.json()).toMatchObject({ accepted: 1 });
      execFileSync('git', ['-C', sqliteRepository, 'commit', '--allow-empty', '-qm', 'Merged: rate limits'], {
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@t',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@t',
        },
      });
      server?.child.kill('SIGTERM');
      expect(await server?.exited).toBe(0);

      const onPostgres = await serve();
      expect(onPostgres.projectId).not.toBe(onSqlite.projectId);
      const postgresRepository = repository(onPostgres.out) as string;
      expect(postgresRepository).not.toBe(sqliteRepository);
      const log = execFileSync('git', ['-C', postgresRepository, 'log', '--format=%s'], { encoding: 'utf8' });
      expect(log).toBe('Example documentation site\n');
      // The SQLite install's views stay in its file; this install's go to PostgreSQL, and it says so, once.
      const schema = database.env.DOCWRIGHT_DATABASE_SCHEMA;
      expect(onPostgres.out).toContain(
        `Storage: PostgreSQL (127.0.0.1:5432/postgres, schema ${schema}), files in ${database.dir}; analytics: PostgreSQL (127.0.0.1:5432/postgres, schema ${schema})`,
      );
      expect(server?.stderr()).not.toContain('embedded');
    },
  );

  it('makes a secret key in the data directory on first start, so webhooks work, and says when another key is in use', async () => {
    database = createTestDatabase();
    const first = await serve();
    const file = path.join(database.dir, 'secret.key');
    expect(first.out).toContain(
      `Secret key: created ${file} (mode 0600); it encrypts stored webhook secrets and code-host tokens: back it up with the data (DOCWRIGHT_SECRET_KEY, when set, is used instead)\n`,
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = readFileSync(file, 'utf8');
    expect(key).toMatch(/^base64:[A-Za-z0-9+/]{43}=\n$/);
    const webhook = await fetch(`${first.baseUrl}/v2/agent/${first.projectId}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/hooks' }),
    });
    expect(webhook.status).toBe(201);
    server?.child.kill('SIGTERM');
    expect(await server?.exited).toBe(0);

    // The same key at the next start, which says where it is.
    const second = await serve();
    expect(second.out).toContain(
      `Secret key: ${file}  (it encrypts stored webhook secrets and code-host tokens: back it up with the data)\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe(key);
    expect(second.out).not.toContain('another key');
    server?.child.kill('SIGTERM');
    expect(await server?.exited).toBe(0);

    // DOCWRIGHT_SECRET_KEY wins over the file; the webhook's secret was stored with the file's key.
    const third = await serve({ DOCWRIGHT_SECRET_KEY: 'another passphrase, not the one of the file' });
    expect(third.out).toMatch(
      /^Secret key: DOCWRIGHT_SECRET_KEY \(key id [0-9a-f]{8}\)\n {2}1 stored secret was encrypted with another key \(key id [0-9a-f]{8}\) than the one in use \(key id [0-9a-f]{8}, from DOCWRIGHT_SECRET_KEY\)\. Give Docwright the key it was stored with \(set DOCWRIGHT_SECRET_KEY to it, or put back the key file from the backup of the data directory\), or store it again$/m,
    );
    expect(readFileSync(file, 'utf8')).toBe(key);
  });

  it('keeps the first admin key for the start that serves when the first start found its port taken', async () => {
    database = createTestDatabase();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const failed = await runCli(['serve'], { ...database.env, DOCWRIGHT_PORT: String(port) });
      expect(failed.code).toBe(1);
      expect(failed.stdout).toBe('');
    } finally {
      taken.close();
    }
    // The README's advice: start again on another port. That start is the first to serve.
    const started = await serve();
    expect(started.key).toMatch(/^dw_/);
    const jobs = await fetch(`${started.baseUrl}/v2/agent/${started.projectId}/jobs`, {
      headers: { authorization: `Bearer ${started.key}` },
    });
    expect(jobs.status).toBe(200);
  });

  it('says which setting to change when its port is taken, and exits', async () => {
    database = createTestDatabase();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const result = await runCli(['serve'], { ...database.env, DOCWRIGHT_PORT: String(port) });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `Error: Port ${port} on 127.0.0.1 is already in use (another Docwright, or another server). Set DOCWRIGHT_PORT to a free port, e.g. DOCWRIGHT_PORT=${port + 1} npm start.`,
      );
      expect(result.stderr).not.toContain('EADDRINUSE');
    } finally {
      taken.close();
    }
  });
});

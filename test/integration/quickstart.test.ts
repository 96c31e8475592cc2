import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChildHandle, DOCWRIGHT_BIN, startChild } from '../helpers/processes.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../helpers/storage.ts';

describe(`quick start (docwright serve) on ${testBackend}`, () => {
  let database: TestDatabase;
  let server: ChildHandle | null = null;
  afterEach(async () => {
    if (server?.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await database.drop();
  });

  const serve = async () => {
    server = await startChild(
      [DOCWRIGHT_BIN, 'serve'],
      { ...database.env, DOCWRIGHT_PORT: '0', DOCWRIGHT_LOG_LEVEL: 'warn', DOCWRIGHT_POLL_INTERVAL_MS: '50' },
      /^Storage: /m,
    );
    const out = server.stdout();
    return {
      out,
      baseUrl: /running at (http:\/\/\S+)/.exec(out)?.[1] ?? '',
      projectId: /Default project: (prj_\w+)/.exec(out)?.[1] ?? '',
      key: /Admin API key \(shown once, store it now\): (dw_\w+)/.exec(out)?.[1] ?? null,
    };
  };

  it('prints the URL, the default project and (the first time only) an admin key that works', async () => {
    database = createTestDatabase();
    const first = await serve();
    expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.projectId).toMatch(/^prj_/);
    expect(first.key).toMatch(/^dw_/);

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
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';

const SECRET_KEY = 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=';

type Body = Record<string, unknown> & { id: string };
const json = async <T = Body>(response: Response | Promise<Response>): Promise<T> =>
  (await (await response).json()) as T;

describe(`automations API (${testBackend})`, () => {
  let t: TestApp;
  const path = () => `/v2/agent/${t.project.id}/automations`;
  const create = (body: unknown) => t.request('POST', path(), { body });

  beforeAll(async () => {
    t = await startTestApp({
      env: { DOCWRIGHT_SECRET_KEY: SECRET_KEY, DOCWRIGHT_PUBLIC_URL: 'https://docwright.example.com' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates a code-change automation with its webhook secret and hook URL shown once, stored sealed', async () => {
    const response = await create({
      name: 'API reference',
      trigger: { kind: 'code_change', provider: 'github', repository: 'acme/api', paths: ['src/api/**'] },
      instructions: 'Update the API reference for what the pull request changed.',
      draft: false,
    });
    expect(response.status).toBe(201);
    const created = await json(response);
    expect(created).toEqual({
      id: expect.stringMatching(/^aut_/),
      projectId: t.project.id,
      name: 'API reference',
      trigger: {
        kind: 'code_change',
        provider: 'github',
        repository: 'acme/api',
        paths: ['src/api/**'],
        baseBranch: null,
        hookUrl: `https://docwright.example.com/v1/hooks/github/${t.project.id}`,
      },
      instructions: 'Update the API reference for what the pull request changed.',
      draft: false,
      maxRunsPerDay: 500,
      enabled: true,
      previousSecretExpiresAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      webhookSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const { webhookSecret, ...shown } = created;
    expect(await json(t.request('GET', `${path()}/${created.id}`))).toEqual(shown);
    expect(await json(t.request('GET', path()))).toEqual({ automations: [shown] });
    const row = await t.services.storage.db
      .selectFrom('automations')
      .select('webhook_secret')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.webhook_secret).toMatch(/^v1\./);
    expect(row.webhook_secret).not.toContain(webhookSecret as string);
    // The hooks receiver gets the secret back to verify signatures.
    const forHooks = await t.services.automations.codeChangeAutomations(t.project.id, 'github');
    expect(forHooks.map((a) => [a.automation.id, a.secret])).toEqual([[created.id, webhookSecret]]);
    expect(await t.services.automations.codeChangeAutomations(t.project.id, 'gitlab')).toEqual([]);

    expect((await t.request('DELETE', `${path()}/${created.id}`)).status).toBe(204);
    expect((await t.request('GET', `${path()}/${created.id}`)).status).toBe(404);
    expect((await t.request('DELETE', `${path()}/${created.id}`)).status).toBe(404);
  });

  it('changes what PATCH gives; a schedule keeps its kind', async () => {
    const created = await json(
      create({
        name: 'Weekly links',
        trigger: { kind: 'schedule', cron: '0 9 * * 1', timezone: 'Europe/Paris' },
        instructions: 'Find broken links, outdated versions and pages no navigation reaches.',
      }),
    );
    expect(created.trigger).toEqual({ kind: 'schedule', cron: '0 9 * * 1', timezone: 'Europe/Paris' });
    expect(created).not.toHaveProperty('webhookSecret');
    const patched = await t.request('PATCH', `${path()}/${created.id}`, {
      body: { enabled: false, maxRunsPerDay: 3, trigger: { kind: 'schedule', cron: '30 8 * * *' } },
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({
      enabled: false,
      maxRunsPerDay: 3,
      trigger: { kind: 'schedule', cron: '30 8 * * *', timezone: 'UTC' },
      name: 'Weekly links',
    });
    const kindChange = await t.request('PATCH', `${path()}/${created.id}`, {
      body: { trigger: { kind: 'manual' } },
    });
    expect(kindChange.status).toBe(400);
    expect(((await kindChange.json()) as { error: string }).error).toMatch(/trigger\.kind cannot change/);
    expect((await t.request('PATCH', `${path()}/${created.id}`, { body: {} })).status).toBe(400);
  });

  it.each([
    [{ trigger: { kind: 'schedule', cron: 'every monday' } }, 'trigger.cron'],
    [{ trigger: { kind: 'schedule', cron: '0 0 31 2 *' } }, 'trigger.cron'],
    [{ trigger: { kind: 'schedule', cron: '0 9 * * 1', timezone: 'Mars/Olympus' } }, 'trigger.timezone'],
    [{ trigger: { kind: 'schedule' } }, 'trigger.cron'],
    [{ trigger: { kind: 'code_change', repository: 'acme/api' } }, 'trigger.provider'],
    [{ trigger: { kind: 'code_change', provider: 'github', repository: 'acme' } }, 'trigger.repository'],
    [
      { trigger: { kind: 'code_change', provider: 'github', repository: 'a/b', paths: [''] } },
      'trigger.paths',
    ],
    [{ trigger: { kind: 'manual', cron: '* * * * *' } }, 'trigger.cron'],
    [{ trigger: { kind: 'hourly' } }, 'kind'],
    [{ trigger: { kind: 'manual', secret: 'mine' } }, 'secret'],
    [{ maxRunsPerDay: 0 }, 'maxRunsPerDay'],
    [{ instructions: '   ' }, 'instructions'],
    [{ name: '' }, 'name'],
    [{ webhookSecret: 'mine' }, 'webhookSecret'],
  ])('refuses %j with a 400 naming %s', async (change, field) => {
    const body = { name: 'x', trigger: { kind: 'manual' }, instructions: 'Do it', ...change };
    const response = await create(body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain(field);
  });

  it('triggers a run (202), lists runs a page at a time, and answers 429 over the daily limit', async () => {
    const created = await json(
      create({
        name: 'On demand',
        trigger: { kind: 'manual' },
        instructions: 'Review the quickstart',
        maxRunsPerDay: 2,
      }),
    );
    const runs: Body[] = [];
    for (const context of ['first', 'second']) {
      const response = await t.request('POST', `${path()}/${created.id}/trigger`, { body: { context } });
      expect(response.status).toBe(202);
      const body = await json(response);
      expect(body).toEqual({
        automationId: created.id,
        runId: expect.stringMatching(/^run_/),
        jobId: expect.stringMatching(/^job_/),
      });
      runs.push(body);
    }
    // No worker runs here: the second run follows up the first run's job, still active.
    expect(runs[1]?.jobId).toBe(runs[0]?.jobId);
    const refused = await t.request('POST', `${path()}/${created.id}/trigger`);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: string }).error).toMatch(/daily limit of 2 runs/);

    const page1 = await json<{ runs: Body[]; nextCursor: string | null }>(
      t.request('GET', `${path()}/${created.id}/runs?limit=2`),
    );
    expect(page1.runs.map((r) => r.status)).toEqual(['rate_limited', 'queued']);
    expect(page1.runs[0]).toMatchObject({
      jobId: null,
      trigger: 'manual',
      reason: expect.stringMatching(/daily limit/),
    });
    expect(page1.nextCursor).not.toBeNull();
    const page2 = await json<{ runs: Body[]; nextCursor: string | null }>(
      t.request('GET', `${path()}/${created.id}/runs?limit=2&cursor=${page1.nextCursor}`),
    );
    expect(page2.runs.map((r) => r.id)).toEqual([runs[0]?.runId]);
    expect(page2.nextCursor).toBeNull();
    expect((await t.request('GET', `${path()}/${created.id}/runs?cursor=nonsense`)).status).toBe(400);
  });

  it('a disabled automation answers 409 to a trigger; unknown ids 404; another project reaches nothing', async () => {
    const created = await json(
      create({ name: 'Off', trigger: { kind: 'manual' }, instructions: 'Do it', enabled: false }),
    );
    const off = await t.request('POST', `${path()}/${created.id}/trigger`);
    expect(off.status).toBe(409);
    expect(((await off.json()) as { error: string }).error).toMatch(/disabled/);
    expect((await t.request('POST', `${path()}/aut_nope/trigger`)).status).toBe(404);
    expect((await t.request('GET', `${path()}/aut_nope/runs`)).status).toBe(404);
    const other = await t.services.projects.create({
      name: 'Other',
      repository: 'https://example.com/o.git',
    });
    const { key } = await t.services.keys.create(other.id, 'other');
    const otherPath = `/v2/agent/${other.id}/automations/${created.id}`;
    expect((await t.request('GET', otherPath, { key })).status).toBe(404);
    expect((await t.request('PATCH', otherPath, { key, body: { name: 'Mine' } })).status).toBe(404);
    expect((await t.request('DELETE', otherPath, { key })).status).toBe(404);
    expect((await t.request('POST', `${otherPath}/trigger`, { key })).status).toBe(404);
  });

  it("creates a code-change automation on an install without DOCWRIGHT_SECRET_KEY (the data directory's key)", async () => {
    const bare = await startTestApp();
    try {
      const response = await bare.request('POST', `/v2/agent/${bare.project.id}/automations`, {
        body: {
          name: 'x',
          trigger: { kind: 'code_change', provider: 'gitlab', repository: 'group/sub/api' },
          instructions: 'Do it',
        },
      });
      expect(response.status).toBe(201);
      expect(((await response.json()) as { webhookSecret: string }).webhookSecret).toMatch(/\S{20,}/);
    } finally {
      await bare.close();
    }
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { testBackend } from '../helpers/storage.ts';

const JOB_FIELDS = ['id', 'status', 'source', 'model', 'prLink', 'createdAt', 'archivedAt'];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe(`agent job API on ${testBackend}`, () => {
  let t: TestApp;
  afterEach(async () => {
    await t?.close();
  });

  async function createJob(prompt = 'Document the webhooks retry policy') {
    const response = await t.request('POST', `/v2/agent/${t.project.id}/job`, { body: { prompt } });
    expect(response.status).toBe(201);
    return (await response.json()) as Record<string, unknown> & { id: string };
  }

  async function expectError(response: Response, status: number, message?: RegExp) {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { error: string; requestId?: string };
    expect(typeof body.error).toBe('string');
    expect(body.error.length).toBeGreaterThan(0);
    expect(body.error).toMatch(message ?? /\S/);
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+|node_modules|SELECT |sqlite|postgres/i);
    return body;
  }

  describe('create and get', () => {
    it('creates an active job with every field and returns it on GET', async () => {
      t = await startTestApp({ env: { DOCWRIGHT_MODEL: 'anthropic:claude-sonnet-4-5' } });
      const job = await createJob('Add a page about rate limits');
      expect(Object.keys(job)).toEqual(expect.arrayContaining(JOB_FIELDS));
      expect(job.id).toMatch(/^job_[0-9a-z]{26}$/);
      expect(job.status).toBe('active');
      expect(job.source).toEqual({
        repository: 'https://example.com/docs.git',
        ref: expect.stringMatching(/^docwright\/[0-9a-z]{8}-add-a-page-about-rate-limits$/),
      });
      expect(job.model).toBe('anthropic:claude-sonnet-4-5');
      expect(job.prLink).toBeNull();
      expect(job.archivedAt).toBeNull();
      expect(job.createdAt).toMatch(ISO_UTC);

      const got = await t.request('GET', `/v2/agent/${t.project.id}/job/${job.id}`);
      expect(got.status).toBe(200);
      expect(await got.json()).toEqual(job);
    });

    it('gives every job a distinct id and branch', async () => {
      t = await startTestApp();
      const jobs = await Promise.all([createJob('same'), createJob('same'), createJob('same')]);
      expect(new Set(jobs.map((j) => j.id)).size).toBe(3);
      expect(new Set(jobs.map((j) => (j.source as { ref: string }).ref)).size).toBe(3);
    });

    it('stores the first turn with the job, visible in the messages endpoint', async () => {
      t = await startTestApp();
      const job = await createJob('Explain pagination');
      const response = await t.request('GET', `/v2/agent/${t.project.id}/job/${job.id}/messages`);
      expect(response.status).toBe(200);
      const conversation = (await response.json()) as { turns: unknown[]; messages: unknown[] };
      expect(conversation.turns).toEqual([
        expect.objectContaining({ turn: 1, status: 'pending', prompt: 'Explain pagination', attempts: 0 }),
      ]);
      expect(conversation.messages).toEqual([
        expect.objectContaining({ turn: 1, role: 'user', text: 'Explain pagination', tool: null }),
      ]);
    });
  });

  describe('messages, archive and list', () => {
    it('queues follow-ups as new turns while the job is active', async () => {
      t = await startTestApp();
      const job = await createJob();
      const response = await t.request('POST', `/v2/agent/${t.project.id}/job/${job.id}/message`, {
        body: { prompt: 'Also mention the retry headers' },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id: job.id, status: 'active' });
      const conversation = (await (
        await t.request('GET', `/v2/agent/${t.project.id}/job/${job.id}/messages`)
      ).json()) as { turns: { turn: number; prompt: string }[] };
      expect(conversation.turns.map((x) => [x.turn, x.prompt])).toEqual([
        [1, 'Document the webhooks retry policy'],
        [2, 'Also mention the retry headers'],
      ]);
    });

    it('archives: sets archivedAt, cancels turns, refuses messages with 409, and is idempotent', async () => {
      t = await startTestApp();
      const job = await createJob();
      const archived = await t.request('POST', `/v2/agent/${t.project.id}/job/${job.id}/archive`);
      expect(archived.status).toBe(200);
      const body = (await archived.json()) as { status: string; archivedAt: string };
      expect(body.status).toBe('archived');
      expect(body.archivedAt).toMatch(ISO_UTC);

      const conversation = (await (
        await t.request('GET', `/v2/agent/${t.project.id}/job/${job.id}/messages`)
      ).json()) as { turns: { status: string }[] };
      expect(conversation.turns.map((x) => x.status)).toEqual(['cancelled']);

      const again = await t.request('POST', `/v2/agent/${t.project.id}/job/${job.id}/archive`);
      expect(await again.json()).toEqual(body);

      await expectError(
        await t.request('POST', `/v2/agent/${t.project.id}/job/${job.id}/message`, {
          body: { prompt: 'more' },
        }),
        409,
        /archived/,
      );
    });

    it('lists jobs newest first, filters by status and pages with a cursor', async () => {
      t = await startTestApp();
      const created = [];
      for (let i = 0; i < 5; i++) created.push(await createJob(`job ${i}`));
      await t.request('POST', `/v2/agent/${t.project.id}/job/${created[1]?.id}/archive`);

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
        const page = (await (await t.request('GET', `/v2/agent/${t.project.id}/jobs${query}`)).json()) as {
          jobs: { id: string }[];
          nextCursor: string | null;
        };
        expect(page.jobs.length).toBeLessThanOrEqual(2);
        seen.push(...page.jobs.map((j) => j.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(created.map((j) => j.id).reverse());

      const archived = (await (
        await t.request('GET', `/v2/agent/${t.project.id}/jobs?status=archived`)
      ).json()) as { jobs: { id: string }[] };
      expect(archived.jobs.map((j) => j.id)).toEqual([created[1]?.id]);

      await expectError(await t.request('GET', `/v2/agent/${t.project.id}/jobs?status=done`), 400, /status/);
      await expectError(await t.request('GET', `/v2/agent/${t.project.id}/jobs?limit=0`), 400, /limit/);
      await expectError(
        await t.request('GET', `/v2/agent/${t.project.id}/jobs?cursor=nonsense`),
        400,
        /cursor/,
      );
    });

    it('finds jobs by text in any of their prompts, whatever its case, taking % and _ literally', async () => {
      t = await startTestApp();
      const rate = await createJob('Add a page about RATE limits');
      const webhooks = await createJob('Document webhooks');
      await t.request('POST', `/v2/agent/${t.project.id}/job/${webhooks.id}/message`, {
        body: { prompt: 'Also mention the Rate-limit headers' },
      });
      const accents = await createJob('Réécrire la page Économie');
      const literal = await createJob('Explain 100% uptime and snake_case names');
      const search = async (q: string, extra = '') =>
        (
          (await (
            await t.request('GET', `/v2/agent/${t.project.id}/jobs?q=${encodeURIComponent(q)}${extra}`)
          ).json()) as { jobs: { id: string }[] }
        ).jobs.map((j) => j.id);

      expect(await search('rate')).toEqual([webhooks.id, rate.id]);
      expect(await search('économie')).toEqual([accents.id]);
      expect(await search('100%')).toEqual([literal.id]);
      expect(await search('%')).toEqual([literal.id]);
      expect(await search('e_c')).toEqual([literal.id]);
      expect(await search('nothing like it')).toEqual([]);
      expect(await search('rate', '&limit=1')).toEqual([webhooks.id]);
      await t.request('POST', `/v2/agent/${t.project.id}/job/${rate.id}/archive`);
      expect(await search('rate', '&status=archived')).toEqual([rate.id]);
      await expectError(
        await t.request('GET', `/v2/agent/${t.project.id}/jobs?q=${'x'.repeat(201)}`),
        400,
        /q must be at most 200 characters/,
      );
    });
  });

  describe('bad bodies answer 400/413/415 and store nothing', () => {
    const cases: [string, unknown, RegExp][] = [
      ['missing prompt', {}, /prompt is required/],
      // One message, said once (not "must not be empty; must not be blank").
      ['empty prompt', { prompt: '' }, /^Invalid request body: prompt must not be empty or only whitespace$/],
      [
        'whitespace-only prompt',
        { prompt: ' \n\t ' },
        /^Invalid request body: prompt must not be empty or only whitespace$/,
      ],
      ['an unknown field', { prompt: 'x', model: 'openai:gpt-5' }, /unknown field "model"/],
      ['a misspelt field', { promt: 'x' }, /prompt is required; unknown field "promt"/],
      ['non-string prompt', { prompt: 42 }, /prompt must be a string/],
      ['array body', [{ prompt: 'x' }], /body must be a JSON object/],
      ['malformed JSON', '{"prompt": "x"', /not valid JSON/],
    ];
    for (const [name, body, message] of cases) {
      it(name, async () => {
        t = await startTestApp();
        const created = await t.request('POST', `/v2/agent/${t.project.id}/job`, { body });
        const error = await expectError(created, 400, message);
        // Validation errors list each problem; a body that is not JSON has nothing to list.
        expect('details' in error).toBe(typeof body !== 'string');
        const job = await createJob();
        const followUp = await t.request('POST', `/v2/agent/${t.project.id}/job/${job.id}/message`, { body });
        await expectError(followUp, 400, message);
        const list = (await (await t.request('GET', `/v2/agent/${t.project.id}/jobs`)).json()) as {
          jobs: unknown[];
        };
        expect(list.jobs).toHaveLength(1);
      });
    }

    it('an empty body with Content-Type: application/json is an empty object', async () => {
      t = await startTestApp();
      const job = await createJob();
      const empty = { headers: { 'content-type': 'application/json' }, body: '' };
      const archived = await t.request('POST', `/v2/agent/${t.project.id}/job/${job.id}/archive`, empty);
      expect(archived.status).toBe(200);
      expect(((await archived.json()) as { status: string }).status).toBe('archived');
      // Where a body is needed, the empty object says what is missing.
      await expectError(
        await t.request('POST', `/v2/agent/${t.project.id}/job`, empty),
        400,
        /prompt is required/,
      );
    });

    it('a body or query parameter a route does not take is refused, naming it', async () => {
      t = await startTestApp();
      const job = await createJob();
      await expectError(
        await t.request('POST', `/v2/agent/${t.project.id}/job/${job.id}/archive`, { body: { force: true } }),
        400,
        /takes no request body; unknown field "force"/,
      );
      expect((await t.services.jobs.get(t.project.id, job.id)).status).toBe('active');
      await expectError(
        await t.request('GET', `/v2/agent/${t.project.id}/jobs?stauts=failed`),
        400,
        /unknown parameter "stauts"/,
      );
      await expectError(
        await t.request('GET', `/v2/agent/${t.project.id}/job/${job.id}?verbose=1`),
        400,
        /unknown parameter "verbose"/,
      );
    });

    it('a prompt over the configured maximum', async () => {
      t = await startTestApp({ env: { DOCWRIGHT_MAX_PROMPT_LENGTH: '50' } });
      await expectError(
        await t.request('POST', `/v2/agent/${t.project.id}/job`, { body: { prompt: 'x'.repeat(51) } }),
        400,
        /at most 50 characters/,
      );
      expect(
        (await t.request('POST', `/v2/agent/${t.project.id}/job`, { body: { prompt: 'x'.repeat(50) } }))
          .status,
      ).toBe(201);
    });

    it('a body over the size limit answers 413', async () => {
      t = await startTestApp({ env: { DOCWRIGHT_BODY_LIMIT_BYTES: '2048' } });
      await expectError(
        await t.request('POST', `/v2/agent/${t.project.id}/job`, { body: { prompt: 'x'.repeat(4000) } }),
        413,
        /too large/,
      );
    });

    it('a body that is not JSON answers 415', async () => {
      t = await startTestApp();
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        await expectError(
          await t.request('POST', `/v2/agent/${t.project.id}/job`, {
            body: 'prompt=hi',
            headers: { 'content-type': type },
          }),
          415,
          /application\/json/,
        );
      }
    });
  });

  describe('authentication and authorization', () => {
    it('answers 401 for a missing, malformed, unknown or revoked key', async () => {
      t = await startTestApp();
      const path = `/v2/agent/${t.project.id}/jobs`;
      await expectError(await t.request('GET', path, { key: null }), 401, /Authorization/);
      await expectError(
        await t.request('GET', path, { key: null, headers: { authorization: `Basic ${t.key}` } }),
        401,
      );
      await expectError(await t.request('GET', path, { key: 'dw_not-a-key' }), 401, /Malformed/);
      // Well-formed (valid checksum) but never issued.
      const { generateApiKey } = await import('../../src/domain/keys/api-key-format.ts');
      await expectError(await t.request('GET', path, { key: generateApiKey() }), 401, /Unknown/);

      const { key, info } = await t.services.keys.create(t.project.id, 'to revoke');
      expect((await t.request('GET', path, { key })).status).toBe(200);
      await t.services.keys.revoke(info.id);
      await expectError(await t.request('GET', path, { key }), 401, /revoked/);
    });

    it('sees a revocation made by another process within five seconds', async () => {
      let now = new Date('2026-03-01T12:00:00.000Z');
      t = await startTestApp({ clock: () => now });
      const path = `/v2/agent/${t.project.id}/jobs`;
      expect((await t.request('GET', path)).status).toBe(200);
      // Revoked straight in the database, as the CLI or another server would.
      await t.services.storage.db.updateTable('api_keys').set({ revoked_at: now.toISOString() }).execute();
      expect((await t.request('GET', path)).status).toBe(200);
      now = new Date(now.getTime() + 5_001);
      await expectError(await t.request('GET', path), 401, /revoked/);
    });

    it('rejects before reading the body: no key and a bad body is 401, not 400', async () => {
      t = await startTestApp();
      await expectError(
        await t.request('POST', `/v2/agent/${t.project.id}/job`, { key: null, body: '{bad' }),
        401,
      );
    });

    it("answers 403 when a valid key is used on another project, and never shows that project's jobs", async () => {
      t = await startTestApp();
      const other = await t.services.projects.create({
        name: 'Other',
        repository: 'https://example.com/other.git',
      });
      const { key: otherKey } = await t.services.keys.create(other.id, 'other');
      const job = await createJob();
      await expectError(
        await t.request('GET', `/v2/agent/${t.project.id}/job/${job.id}`, { key: otherKey }),
        403,
      );
      await expectError(await t.request('GET', `/v2/agent/${t.project.id}/jobs`, { key: otherKey }), 403);
      await expectError(
        await t.request('POST', `/v2/agent/${t.project.id}/job`, { key: otherKey, body: { prompt: 'x' } }),
        403,
      );
      // The other project's own path does not reveal this project's job either.
      await expectError(
        await t.request('GET', `/v2/agent/${other.id}/job/${job.id}`, { key: otherKey }),
        404,
      );
    });

    it('answers 404 for an unknown project, job or route', async () => {
      t = await startTestApp();
      await expectError(
        await t.request('GET', '/v2/agent/prj_unknown/jobs'),
        404,
        /Project prj_unknown not found/,
      );
      await expectError(
        await t.request('GET', `/v2/agent/${t.project.id}/job/job_unknown`),
        404,
        /Job job_unknown/,
      );
      await expectError(
        await t.request('POST', `/v2/agent/${t.project.id}/job/job_unknown/message`, {
          body: { prompt: 'x' },
        }),
        404,
      );
      await expectError(await t.request('POST', `/v2/agent/${t.project.id}/job/job_unknown/archive`), 404);
      await expectError(await t.request('GET', `/v2/agent/${t.project.id}/job/job_unknown/messages`), 404);
      await expectError(await t.request('GET', '/v2/nothing-here'), 404, /No route/);
    });

    it('records when a key was last used', async () => {
      t = await startTestApp();
      const before = await t.services.keys.list(t.project.id);
      expect(before[0]?.lastUsedAt).toBeNull();
      await t.request('GET', `/v2/agent/${t.project.id}/jobs`);
      await expect
        .poll(async () => (await t.services.keys.list(t.project.id))[0]?.lastUsedAt)
        .toMatch(ISO_UTC);
    });
  });

  describe('rate limiting', () => {
    it('limits create and message per project and says when to retry', async () => {
      t = await startTestApp({
        env: { DOCWRIGHT_RATE_LIMIT: '3', DOCWRIGHT_RATE_LIMIT_WINDOW_SECONDS: '3600' },
      });
      const job = await createJob();
      await createJob();
      const message = await t.request('POST', `/v2/agent/${t.project.id}/job/${job.id}/message`, {
        body: { prompt: 'x' },
      });
      expect(message.status).toBe(200);
      const limited = await t.request('POST', `/v2/agent/${t.project.id}/job`, { body: { prompt: 'x' } });
      await expectError(limited, 429, /Rate limit/);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      await expectError(
        await t.request('POST', `/v2/agent/${t.project.id}/job/${job.id}/message`, { body: { prompt: 'x' } }),
        429,
      );
      // Reads are not limited, and another project has its own budget.
      expect((await t.request('GET', `/v2/agent/${t.project.id}/job/${job.id}`)).status).toBe(200);
      const other = await t.services.projects.create({
        name: 'Other',
        repository: 'https://example.com/other.git',
      });
      const { key } = await t.services.keys.create(other.id, 'other');
      expect(
        (await t.request('POST', `/v2/agent/${other.id}/job`, { key, body: { prompt: 'x' } })).status,
      ).toBe(201);
    });

    it('opens a new window when the old one ends', async () => {
      let now = new Date('2026-01-01T10:59:00.000Z');
      t = await startTestApp({ env: { DOCWRIGHT_RATE_LIMIT: '1' }, clock: () => now });
      await createJob();
      await expectError(
        await t.request('POST', `/v2/agent/${t.project.id}/job`, { body: { prompt: 'x' } }),
        429,
      );
      now = new Date('2026-01-01T11:00:01.000Z');
      await createJob();
    });
  });

  it('answers 500 without internals and with a request id when storage fails', async () => {
    t = await startTestApp();
    const job = await createJob();
    await t.services.storage.close();
    const response = await t.request('GET', `/v2/agent/${t.project.id}/job/${job.id}`);
    const body = await expectError(response, 500, /request id/);
    expect(body.requestId).toBe(response.headers.get('x-request-id'));
    expect(body.error).toContain(body.requestId);
    // close() must still work on an already closed storage.
    t.services.close = async () => {};
  });
});

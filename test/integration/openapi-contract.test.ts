import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../src/app/services.ts';
import type { Worker } from '../../src/domain/runner/worker.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { signIn } from '../helpers/dashboard-session.ts';
import { createRepository, tempDir } from '../helpers/git-repos.ts';
import { testBackend } from '../helpers/storage.ts';
import { PromptScriptedAgent } from '../helpers/test-agent.ts';

interface OpenApiDocument {
  openapi: string;
  paths: Record<
    string,
    Record<string, { responses: Record<string, unknown>; requestBody?: unknown; tags?: string[] }>
  >;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Checks live responses against the OpenAPI document the server itself publishes. */
class ContractChecker {
  private readonly ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));
  readonly checked: string[] = [];
  readonly document: OpenApiDocument;
  constructor(document: OpenApiDocument) {
    this.document = document;
    this.ajv.addSchema(document as object, 'openapi.json');
  }

  async check(response: Response, method: string, template: string): Promise<unknown> {
    const status = String(response.status);
    const operation = this.document.paths[template]?.[method.toLowerCase()];
    expect(operation, `${method} ${template} is documented`).toBeDefined();
    expect(Object.keys(operation?.responses ?? {}), `${method} ${template} documents ${status}`).toContain(
      status,
    );
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body: unknown = await response.json();
    const ref = `openapi.json#/${pointer('paths', template, method.toLowerCase(), 'responses', status, 'content', 'application/json', 'schema')}`;
    const validate = this.ajv.getSchema(ref);
    expect(validate, ref).toBeDefined();
    const valid = validate?.(body);
    expect(
      valid,
      `${method} ${template} ${status}: ${JSON.stringify(validate?.errors)} for ${JSON.stringify(body)}`,
    ).toBe(true);
    this.checked.push(`${method} ${template} ${status}`);
    return body;
  }
}

describe(`OpenAPI document and live responses on ${testBackend}`, () => {
  let t: TestApp;
  let worker: Worker | null = null;
  afterEach(async () => {
    await worker?.stop();
    await t?.close();
  });

  it('publishes an OpenAPI 3.1 document with every route and a human-readable page', async () => {
    t = await startTestApp();
    const response = await fetch(`${t.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as OpenApiDocument;
    expect(document.openapi).toBe('3.1.0');
    const paths = Object.keys(document.paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/v2/agent/{projectId}/job',
        '/v2/agent/{projectId}/job/{id}',
        '/v2/agent/{projectId}/job/{id}/archive',
        '/v2/agent/{projectId}/job/{id}/message',
        '/v2/agent/{projectId}/job/{id}/messages',
        '/v2/agent/{projectId}/jobs',
      ]),
    );
    expect(
      paths
        .filter(
          (p) => !/^\/(v2\/agent|v1\/analytics)\/\{projectId\}\//.test(p) && !p.startsWith('/dashboard/'),
        )
        .sort(),
    ).toEqual([
      '/health',
      '/review/{jobId}',
      '/review/{jobId}/merge',
      // Code hosts' webhooks (code-change automations), signed instead of keyed.
      '/v1/hooks/github/{projectId}',
      '/v1/hooks/gitlab/{projectId}',
    ]);
    // The dashboard's own routes, under one tag, with the session cookie; not the public API's twins.
    const dashboard = Object.entries(document.paths).filter(([p]) => p.startsWith('/dashboard/'));
    expect(dashboard.map(([p]) => p)).toEqual(
      expect.arrayContaining([
        '/dashboard/api/session',
        '/dashboard/api/users',
        '/dashboard/api/projects/{projectId}/settings',
      ]),
    );
    expect(dashboard.filter(([p]) => /^\/dashboard\/api\/v[12]\//.test(p))).toEqual([]);
    for (const [p, operations] of dashboard) {
      for (const [method, operation] of Object.entries(operations)) {
        expect({ route: `${method} ${p}`, tags: operation.tags }).toEqual({
          route: `${method} ${p}`,
          tags: ['Dashboard'],
        });
      }
    }
    expect(document.components.securitySchemes).toHaveProperty('cookieAuth', {
      type: 'apiKey',
      in: 'cookie',
      name: 'docwright_session',
      description: expect.any(String),
    });
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['Job', 'JobList', 'Conversation', 'Error']),
    );
    expect(document.components.securitySchemes).toHaveProperty('bearerAuth');
    const page = await fetch(`${t.baseUrl}/docs/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
  });

  it('every response of a full job lifecycle and of each error matches the document', async () => {
    t = await startTestApp({
      agent: new PromptScriptedAgent(),
      env: { DOCWRIGHT_RATE_LIMIT: '6', DOCWRIGHT_POLL_INTERVAL_MS: '50' },
    });
    const contract = new ContractChecker(
      (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as OpenApiDocument,
    );
    const p = t.project.id;
    const jobPath = '/v2/agent/{projectId}/job/{id}';

    const created = (await contract.check(
      await t.request('POST', `/v2/agent/${p}/job`, { body: { prompt: 'pr: add a page' } }),
      'POST',
      '/v2/agent/{projectId}/job',
    )) as { id: string };
    const id = created.id;
    await contract.check(await t.request('GET', `/v2/agent/${p}/job/${id}`), 'GET', jobPath);

    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    await expect.poll(async () => (await t.services.jobs.get(p, id)).status).toBe('completed');
    const completed = (await contract.check(
      await t.request('GET', `/v2/agent/${p}/job/${id}`),
      'GET',
      jobPath,
    )) as {
      prLink: string;
    };
    expect(completed.prLink).toMatch(/^https:/);
    await contract.check(
      await t.request('POST', `/v2/agent/${p}/job/${id}/message`, { body: { prompt: 'fail:on purpose' } }),
      'POST',
      `${jobPath}/message`,
    );
    await expect.poll(async () => (await t.services.jobs.get(p, id)).status).toBe('failed');
    await contract.check(await t.request('GET', `/v2/agent/${p}/job/${id}`), 'GET', jobPath);
    await contract.check(
      await t.request('GET', `/v2/agent/${p}/job/${id}/messages`),
      'GET',
      `${jobPath}/messages`,
    );
    await contract.check(
      await t.request('GET', `/v2/agent/${p}/jobs?limit=1`),
      'GET',
      '/v2/agent/{projectId}/jobs',
    );
    await contract.check(
      await t.request('POST', `/v2/agent/${p}/job/${id}/archive`),
      'POST',
      `${jobPath}/archive`,
    );

    // Errors.
    const other = await t.services.projects.create({
      name: 'Other',
      repository: 'https://example.com/o.git',
    });
    const { key: otherKey } = await t.services.keys.create(other.id, 'o');
    const errors: [Response, string, string][] = [
      [
        await t.request('POST', `/v2/agent/${p}/job`, { body: { prompt: '' } }),
        'POST',
        '/v2/agent/{projectId}/job',
      ],
      [await t.request('GET', `/v2/agent/${p}/job/${id}`, { key: null }), 'GET', jobPath],
      [await t.request('GET', `/v2/agent/${p}/job/${id}`, { key: otherKey }), 'GET', jobPath],
      [await t.request('GET', `/v2/agent/${p}/job/job_missing`), 'GET', jobPath],
      [
        await t.request('POST', `/v2/agent/${p}/job/${id}/message`, { body: { prompt: 'again' } }),
        'POST',
        `${jobPath}/message`,
      ],
      [
        await t.request('POST', `/v2/agent/${p}/job`, {
          body: 'x',
          headers: { 'content-type': 'text/plain' },
        }),
        'POST',
        '/v2/agent/{projectId}/job',
      ],
      [
        await t.request('POST', `/v2/agent/${p}/job`, { body: { prompt: 'x'.repeat(2_000_000) } }),
        'POST',
        '/v2/agent/{projectId}/job',
      ],
    ];
    for (let i = 0; i < 4; i++)
      await t.request('POST', `/v2/agent/${p}/job`, { body: { prompt: 'fill the window' } });
    errors.push([
      await t.request('POST', `/v2/agent/${p}/job`, { body: { prompt: 'one too many' } }),
      'POST',
      '/v2/agent/{projectId}/job',
    ]);
    for (const [response, method, template] of errors) await contract.check(response, method, template);

    expect(contract.checked.map((c) => c.split(' ').at(-1))).toEqual(
      expect.arrayContaining(['200', '201', '400', '401', '403', '404', '409', '413', '415', '429']),
    );
  });

  it('every automation response matches the document', async () => {
    t = await startTestApp({
      agent: new PromptScriptedAgent(),
      env: {
        DOCWRIGHT_POLL_INTERVAL_MS: '50',
        DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=',
      },
    });
    const contract = new ContractChecker(
      (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as OpenApiDocument,
    );
    const list = '/v2/agent/{projectId}/automations';
    const one = `${list}/{id}`;
    const path = `/v2/agent/${t.project.id}/automations`;
    await contract.check(
      await t.request('POST', path, {
        body: {
          name: 'API',
          trigger: { kind: 'code_change', provider: 'github', repository: 'acme/api', baseBranch: 'main' },
          instructions: 'pr document the change',
        },
      }),
      'POST',
      list,
    );
    const created = (await contract.check(
      await t.request('POST', path, {
        body: {
          name: 'Weekly',
          trigger: { kind: 'schedule', cron: '0 9 * * 1' },
          instructions: 'Check links',
          maxRunsPerDay: 2,
        },
      }),
      'POST',
      list,
    )) as { id: string };
    await contract.check(await t.request('GET', path), 'GET', list);
    await contract.check(await t.request('GET', `${path}/${created.id}`), 'GET', one);
    await contract.check(
      await t.request('PATCH', `${path}/${created.id}`, { body: { draft: false } }),
      'PATCH',
      one,
    );
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    await contract.check(await t.request('POST', `${path}/${created.id}/trigger`), 'POST', `${one}/trigger`);
    await expect
      .poll(
        async () =>
          (await t.services.automations.runs(t.project.id, created.id, { limit: 5 })).runs[0]?.status,
      )
      .toBe('no_change');
    await contract.check(
      await t.request('POST', `${path}/${created.id}/trigger`, { body: { context: 'More' } }),
      'POST',
      `${one}/trigger`,
    );
    const errors: [Response, string, string][] = [
      [await t.request('POST', `${path}/${created.id}/trigger`), 'POST', `${one}/trigger`],
      [
        await t.request('POST', path, {
          body: { name: 'x', trigger: { kind: 'schedule', cron: 'nope' }, instructions: 'x' },
        }),
        'POST',
        list,
      ],
      [await t.request('GET', `${path}/aut_missing`), 'GET', one],
      [
        await t.request('PATCH', `${path}/${created.id}`, { body: { trigger: { kind: 'manual' } } }),
        'PATCH',
        one,
      ],
    ];
    for (const [response, method, template] of errors) await contract.check(response, method, template);
    await contract.check(await t.request('GET', `${path}/${created.id}/runs?limit=2`), 'GET', `${one}/runs`);
    await contract.check(
      await t.request('PATCH', `${path}/${created.id}`, { body: { enabled: false } }),
      'PATCH',
      one,
    );
    await contract.check(await t.request('POST', `${path}/${created.id}/trigger`), 'POST', `${one}/trigger`);
    expect(contract.checked).toEqual(
      expect.arrayContaining([
        `POST ${list} 201`,
        `POST ${one}/trigger 202`,
        `POST ${one}/trigger 429`,
        `POST ${one}/trigger 409`,
        `POST ${list} 400`,
        `GET ${one} 404`,
        `GET ${one}/runs 200`,
      ]),
    );
  });

  it('every connected-repository response matches the document', async () => {
    t = await startTestApp();
    const contract = new ContractChecker(
      (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as OpenApiDocument,
    );
    const dir = tempDir();
    try {
      const repo = path.join(dir.dir, 'api');
      createRepository(repo, { 'src/index.ts': 'export {};\n' });
      const list = '/v2/agent/{projectId}/context';
      const one = `${list}/{name}`;
      const base = `/v2/agent/${t.project.id}/context`;
      const checks: [Response, string, string][] = [
        [await t.request('POST', base, { body: { name: 'api', repository: repo } }), 'POST', list],
        // No network here: a remote that cannot be asked is connected with a warning.
        [
          await t.request('POST', base, {
            body: { name: 'sdk', repository: 'https://git.invalid/acme/sdk.git', ref: 'trunk' },
          }),
          'POST',
          list,
        ],
        [await t.request('POST', base, { body: { name: 'api', repository: repo } }), 'POST', list],
        [await t.request('POST', base, { body: { name: 'API', repository: repo } }), 'POST', list],
        [await t.request('GET', base), 'GET', list],
        [await t.request('DELETE', `${base}/sdk`), 'DELETE', one],
        [await t.request('DELETE', `${base}/sdk`), 'DELETE', one],
      ];
      for (const [response, method, template] of checks) {
        if (response.status !== 204) {
          await contract.check(response, method, template);
          continue;
        }
        // No body to validate: the status must be one the document gives.
        const documented = contract.document.paths[template]?.[method.toLowerCase()]?.responses ?? {};
        expect(Object.keys(documented)).toContain('204');
        contract.checked.push(`${method} ${template} 204`);
      }
      expect(contract.checked).toEqual([
        `POST ${list} 201`,
        `POST ${list} 201`,
        `POST ${list} 409`,
        `POST ${list} 400`,
        `GET ${list} 200`,
        `DELETE ${one} 204`,
        `DELETE ${one} 404`,
      ]);
    } finally {
      dir.cleanup();
    }
  });

  it('every dashboard response matches the document', async () => {
    t = await startTestApp({ signInLimits: { perAccount: 1 } });
    const contract = new ContractChecker(
      (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as OpenApiDocument,
    );
    const owner = await signIn(t, { role: 'owner' });
    const viewer = await signIn(t, { role: 'viewer' });
    const p = t.project.id;
    const job = await t.services.jobs.create(await t.services.projects.get(p), 'Check the contract');
    const anonymous = (path: string, body: unknown) =>
      fetch(`${t.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const keys = `/dashboard/api/projects/${p}/keys`;
    const keyChecks = async (): Promise<[Response, string, string][]> => {
      const created = await owner.request('POST', keys, {
        body: { name: 'ci', scope: 'read', expiresInDays: null, allowedIps: ['192.0.2.0/24'] },
      });
      const { info } = (await created.clone().json()) as { info: { id: string } };
      return [
        [created, 'POST', '/dashboard/api/projects/{projectId}/keys'],
        [
          await owner.request('POST', keys, { body: { name: 'ci', scope: 'read', allowedIps: ['nope'] } }),
          'POST',
          '/dashboard/api/projects/{projectId}/keys',
        ],
        [await owner.request('GET', keys), 'GET', '/dashboard/api/projects/{projectId}/keys'],
        [await viewer.request('GET', keys), 'GET', '/dashboard/api/projects/{projectId}/keys'],
        [
          await owner.request('DELETE', `${keys}/${info.id}`),
          'DELETE',
          '/dashboard/api/projects/{projectId}/keys/{keyId}',
        ],
        [
          await owner.request('DELETE', `${keys}/key_nope`),
          'DELETE',
          '/dashboard/api/projects/{projectId}/keys/{keyId}',
        ],
      ];
    };
    const checks: [Response, string, string][] = [
      // First: the owner's session ends when it deletes its account below.
      ...(await keyChecks()),
      [await owner.request('GET', '/dashboard/api/session'), 'GET', '/dashboard/api/session'],
      [await fetch(`${t.baseUrl}/dashboard/api/session`), 'GET', '/dashboard/api/session'],
      [
        await anonymous('/dashboard/api/session', { email: owner.email, password: owner.password }),
        'POST',
        '/dashboard/api/session',
      ],
      [
        await anonymous('/dashboard/api/session', { email: viewer.email, password: 'wrong password' }),
        'POST',
        '/dashboard/api/session',
      ],
      [
        await anonymous('/dashboard/api/session', { email: viewer.email, password: viewer.password }),
        'POST',
        '/dashboard/api/session',
      ],
      [
        await anonymous('/dashboard/api/sign-in-links/redeem', { token: 'dwl_x' }),
        'POST',
        '/dashboard/api/sign-in-links/redeem',
      ],
      [await owner.request('GET', '/dashboard/api/users'), 'GET', '/dashboard/api/users'],
      [await viewer.request('GET', '/dashboard/api/users'), 'GET', '/dashboard/api/users'],
      [
        await owner.request('POST', '/dashboard/api/users', {
          body: { email: 'a@example.com', role: 'admin' },
        }),
        'POST',
        '/dashboard/api/users',
      ],
      [
        await owner.request('POST', '/dashboard/api/users', {
          body: { email: 'a@example.com', role: 'admin' },
        }),
        'POST',
        '/dashboard/api/users',
      ],
      [
        await owner.request('PATCH', `/dashboard/api/users/${viewer.userId}`, { body: { role: 'admin' } }),
        'PATCH',
        '/dashboard/api/users/{userId}',
      ],
      [
        await owner.request('POST', `/dashboard/api/users/${viewer.userId}/sign-in-link`),
        'POST',
        '/dashboard/api/users/{userId}/sign-in-link',
      ],
      [
        await owner.request('DELETE', `/dashboard/api/users/${owner.userId}`),
        'DELETE',
        '/dashboard/api/users/{userId}',
      ],
      [await viewer.request('GET', '/dashboard/api/projects'), 'GET', '/dashboard/api/projects'],
      [
        await viewer.request('GET', `/dashboard/api/projects/${p}`),
        'GET',
        '/dashboard/api/projects/{projectId}',
      ],
      [
        await viewer.request('GET', '/dashboard/api/projects/prj_nope'),
        'GET',
        '/dashboard/api/projects/{projectId}',
      ],
      [
        await owner.request('POST', '/dashboard/api/projects', {
          body: { name: 'Remote', repository: 'https://example.com/docs.git' },
        }),
        'POST',
        '/dashboard/api/projects',
      ],
      [
        await owner.request('PATCH', `/dashboard/api/projects/${p}`, { body: { name: 'Renamed' } }),
        'PATCH',
        '/dashboard/api/projects/{projectId}',
      ],
      [
        await viewer.request('GET', `/dashboard/api/projects/${p}/settings`),
        'GET',
        '/dashboard/api/projects/{projectId}/settings',
      ],
      [
        await owner.request('PATCH', `/dashboard/api/projects/${p}/settings`, {
          body: { agent: { host: 'github', hostRepository: 'acme/docs' } },
        }),
        'PATCH',
        '/dashboard/api/projects/{projectId}/settings',
      ],
      [
        await owner.request('PATCH', `/dashboard/api/projects/${p}/settings`, {
          body: { agent: { token: 'x' } },
        }),
        'PATCH',
        '/dashboard/api/projects/{projectId}/settings',
      ],
      [await viewer.request('GET', '/dashboard/api/jobs/job_nope'), 'GET', '/dashboard/api/jobs/{jobId}'],
      [
        await viewer.request('GET', `/dashboard/api/projects/${p}/jobs?q=contract`),
        'GET',
        '/dashboard/api/projects/{projectId}/jobs',
      ],
      [
        await viewer.request('GET', `/dashboard/api/projects/${p}/jobs/${job.id}/changes`),
        'GET',
        '/dashboard/api/projects/{projectId}/jobs/{jobId}/changes',
      ],
      [
        // The project's repository is remote: its pull request is merged on the code host.
        await owner.request('POST', `/dashboard/api/projects/${p}/jobs/${job.id}/merge`),
        'POST',
        '/dashboard/api/projects/{projectId}/jobs/{jobId}/merge',
      ],
    ];
    for (const [response, method, template] of checks) await contract.check(response, method, template);
    expect(contract.checked.map((c) => c.split(' ').at(-1))).toEqual(
      expect.arrayContaining(['200', '201', '400', '401', '403', '404', '409', '429']),
    );
  });
});

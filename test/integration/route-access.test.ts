import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyService } from '../../src/domain/keys/key-service.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createRepository, git, tempDir } from '../helpers/git-repos.ts';
import { testBackend } from '../helpers/storage.ts';

/**
 * Every route the server registers × every kind of caller, with the status each must get.
 * A route added without a row here fails the first test: access is decided, not inherited.
 */

type Credential =
  | 'none'
  | 'revoked'
  | 'expired'
  | 'outsideAllowlist'
  | 'ingest'
  | 'read'
  | 'otherProject'
  | 'admin';
// The admin key of the project comes last, so a route that changes state changes it once.
const CREDENTIALS: Credential[] = [
  'none',
  'revoked',
  'expired',
  'outsideAllowlist',
  'ingest',
  'read',
  'otherProject',
  'admin',
];

/**
 * admin: an admin key of the project in the path; read: an admin or read key of it;
 * ingest: an admin or ingestion key of it; review: an admin key of the job's project (a key of
 * another project finds no such job); public: anyone, whatever key is sent. Every key but
 * `outsideAllowlist` is used from where it may be (127.0.0.1); that one is an admin key of the
 * project allowed only from 203.0.113.0/24. `expired` is an admin key of the project.
 */
type Access = 'admin' | 'read' | 'ingest' | 'review' | 'public';

// 0: what the project's admin key gets.
const EXPECTED: Record<Exclude<Access, 'public'>, Record<Exclude<Credential, 'admin'>, number>> = {
  admin: {
    none: 401,
    revoked: 401,
    expired: 401,
    outsideAllowlist: 403,
    ingest: 403,
    read: 403,
    otherProject: 403,
  },
  read: {
    none: 401,
    revoked: 401,
    expired: 401,
    outsideAllowlist: 403,
    ingest: 403,
    read: 0,
    otherProject: 403,
  },
  ingest: {
    none: 401,
    revoked: 401,
    expired: 401,
    outsideAllowlist: 403,
    ingest: 0,
    read: 403,
    otherProject: 403,
  },
  review: {
    none: 401,
    revoked: 401,
    expired: 401,
    outsideAllowlist: 403,
    ingest: 403,
    read: 403,
    otherProject: 404,
  },
};

interface Row {
  access: Access;
  /** The status the project's admin key gets (and, for public routes, everyone). */
  ok: number;
  request: () => { path: string; body?: unknown; headers?: Record<string, string> };
}

const ORIGIN = 'https://docs.example.com';

describe(`every route checks key, scope and project (${testBackend})`, () => {
  let t: TestApp;
  let cleanup: () => void;
  let projectId: string;
  let jobId: string;
  const keys = {} as Record<Credential, string | null>;

  beforeAll(async () => {
    t = await startTestApp();
    const dir = tempDir();
    cleanup = dir.cleanup;
    // The project under test has its repository on this machine, so its jobs have review routes.
    const repo = path.join(dir.dir, 'docs');
    createRepository(repo, { 'index.md': '# Home\n' });
    const project = await t.services.projects.create({ name: 'Local docs', repository: repo });
    projectId = project.id;
    const revoked = await t.services.keys.create(projectId, 'revoked');
    await t.services.keys.revoke(revoked.info.id);
    keys.none = null;
    keys.revoked = revoked.key;
    keys.ingest = (await t.services.keys.create(projectId, 'docs server', 'ingest')).key;
    keys.read = (await t.services.keys.create(projectId, 'dashboards', 'read')).key;
    // Made 8 days ago to last 7, by the same service on a clock set back.
    const eightDaysAgo = () => new Date(Date.now() - 8 * 86_400_000);
    keys.expired = (
      await new KeyService(t.services.storage, eightDaysAgo).create(projectId, {
        name: 'old',
        scope: 'admin',
        expiresInDays: 7,
      })
    ).key;
    keys.outsideAllowlist = (
      await t.services.keys.create(projectId, {
        name: 'office only',
        scope: 'admin',
        allowedIps: ['203.0.113.0/24'],
      })
    ).key;
    keys.otherProject = t.key;
    keys.admin = (await t.services.keys.create(projectId, 'admin')).key;
    await t.services.analytics.updateSettings(projectId, { allowedOrigins: [ORIGIN] });
    jobId = (await t.services.jobs.create(await t.services.projects.get(projectId), 'Add a page')).id;
    // The job's branch, with one commit on top of main, as the agent would have pushed it.
    const branch = (await t.services.jobs.get(projectId, jobId)).source.ref;
    git(repo, 'checkout', '--quiet', '-b', branch);
    git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'Agent change');
    git(repo, 'checkout', '--quiet', 'main');
  });
  afterAll(async () => {
    await t?.close();
    cleanup?.();
  });

  const p = () => projectId;
  const range = '?dateFrom=2026-01-01&dateTo=2026-02-01';
  const ROUTES: Record<string, Row> = {
    'GET /health': { access: 'public', ok: 200, request: () => ({ path: '/health' }) },
    'GET /openapi.json': { access: 'public', ok: 200, request: () => ({ path: '/openapi.json' }) },
    'GET /docs': { access: 'public', ok: 200, request: () => ({ path: '/docs' }) },
    'GET /docs/json': { access: 'public', ok: 200, request: () => ({ path: '/docs/json' }) },
    'GET /docs/yaml': { access: 'public', ok: 200, request: () => ({ path: '/docs/yaml' }) },
    'GET /docs/static/index.html': {
      access: 'public',
      ok: 200,
      request: () => ({ path: '/docs/static/index.html' }),
    },
    'GET /docs/static/swagger-initializer.js': {
      access: 'public',
      ok: 200,
      request: () => ({ path: '/docs/static/swagger-initializer.js' }),
    },
    'GET /docs/static/*': {
      access: 'public',
      ok: 200,
      request: () => ({ path: '/docs/static/swagger-ui.css' }),
    },
    'GET /script.js': { access: 'public', ok: 200, request: () => ({ path: '/script.js' }) },
    'OPTIONS /v1/analytics/:projectId/collect': {
      access: 'public',
      ok: 204,
      request: () => ({ path: `/v1/analytics/${p()}/collect`, headers: { origin: ORIGIN } }),
    },
    'POST /v1/analytics/:projectId/collect': {
      access: 'public',
      ok: 202,
      request: () => ({
        path: `/v1/analytics/${p()}/collect`,
        body: { p: '/page' },
        headers: { origin: ORIGIN },
      }),
    },
    'POST /review/sign-out': { access: 'public', ok: 200, request: () => ({ path: '/review/sign-out' }) },
    'POST /v2/agent/:projectId/job': {
      access: 'admin',
      ok: 201,
      request: () => ({ path: `/v2/agent/${p()}/job`, body: { prompt: 'Add a page about limits' } }),
    },
    'GET /v2/agent/:projectId/job/:id': {
      access: 'read',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/job/${jobId}` }),
    },
    'GET /v2/agent/:projectId/jobs': {
      access: 'read',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/jobs` }),
    },
    'GET /v2/agent/:projectId/job/:id/messages': {
      access: 'read',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/job/${jobId}/messages` }),
    },
    'POST /v2/agent/:projectId/job/:id/message': {
      access: 'admin',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/job/${jobId}/message`, body: { prompt: 'And a table' } }),
    },
    'GET /review/:jobId': { access: 'review', ok: 200, request: () => ({ path: `/review/${jobId}` }) },
    'POST /review/:jobId/merge': {
      access: 'review',
      ok: 200,
      request: () => ({ path: `/review/${jobId}/merge` }),
    },
    'POST /review/:jobId/sign-in': {
      // The key comes in the form, not in a header: see the sign-in test below.
      access: 'public',
      ok: 401,
      request: () => ({
        path: `/review/${jobId}/sign-in`,
        body: 'key=',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    },
    'POST /v2/agent/:projectId/job/:id/archive': {
      access: 'admin',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/job/${jobId}/archive` }),
    },
    'POST /v1/analytics/:projectId/events': {
      access: 'ingest',
      ok: 202,
      request: () => ({
        path: `/v1/analytics/${p()}/events`,
        body: {
          events: [{ timestamp: '2026-01-05T10:00:00Z', path: '/a', userAgent: 'curl/8', ip: '203.0.113.9' }],
        },
      }),
    },
    'GET /v1/analytics/:projectId/visitors': {
      access: 'read',
      ok: 200,
      request: () => ({ path: `/v1/analytics/${p()}/visitors${range}` }),
    },
    'GET /v1/analytics/:projectId/views': {
      access: 'read',
      ok: 200,
      request: () => ({ path: `/v1/analytics/${p()}/views${range}` }),
    },
    'GET /v1/analytics/:projectId/timeseries': {
      access: 'read',
      ok: 200,
      request: () => ({ path: `/v1/analytics/${p()}/timeseries${range}` }),
    },
    'GET /v1/analytics/:projectId/breakdown': {
      access: 'read',
      ok: 200,
      request: () => ({ path: `/v1/analytics/${p()}/breakdown${range}` }),
    },
    'GET /v1/analytics/:projectId/settings': {
      access: 'read',
      ok: 200,
      request: () => ({ path: `/v1/analytics/${p()}/settings` }),
    },
    'PATCH /v1/analytics/:projectId/settings': {
      access: 'admin',
      ok: 200,
      request: () => ({ path: `/v1/analytics/${p()}/settings`, body: { countAiCrawlersAsAi: true } }),
    },
  };

  it('has a row for every registered route', () => {
    const registered = t.routes.filter((r) => r.method !== 'HEAD').map((r) => `${r.method} ${r.url}`);
    expect([...registered].sort()).toEqual(Object.keys(ROUTES).sort());
  });

  it('documents every JSON route in /openapi.json; only pages, assets and form posts are left out', async () => {
    const document = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>
      >;
    };
    // Request bodies are closed: an unknown field is an error, and the document says so.
    const open: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const schema = node as Record<string, unknown>;
      if (schema.type === 'object' && schema.properties && schema.additionalProperties !== false)
        open.push(where);
      for (const [key, child] of Object.entries(schema)) walk(child, `${where}.${key}`);
    };
    for (const [url, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [type, content] of Object.entries(operation.requestBody?.content ?? {})) {
          walk(content.schema, `${method} ${url} ${type}`);
        }
      }
    }
    expect(open).toEqual([]);
    const documented = Object.entries(document.paths).flatMap(([url, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${url.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    const visible = t.routes
      .filter((r) => r.method !== 'HEAD' && !r.hidden)
      .map((r) => `${r.method} ${r.url}`);
    expect([...documented].sort()).toEqual([...visible].sort());
    const hidden = t.routes.filter((r) => r.method !== 'HEAD' && r.hidden).map((r) => `${r.method} ${r.url}`);
    expect(hidden.sort()).toEqual(
      [
        // The API reference itself and its page.
        'GET /openapi.json',
        'GET /docs',
        'GET /docs/json',
        'GET /docs/yaml',
        'GET /docs/static/*',
        'GET /docs/static/index.html',
        'GET /docs/static/swagger-initializer.js',
        // The tracker script and its CORS preflight.
        'GET /script.js',
        'OPTIONS /v1/analytics/:projectId/collect',
        // HTML form posts of the review page.
        'POST /review/:jobId/sign-in',
        'POST /review/sign-out',
      ].sort(),
    );
  });

  for (const [route, row] of Object.entries(ROUTES)) {
    const method = route.split(' ')[0] as string;
    it(`${route} (${row.access})`, async () => {
      const seen: Record<string, number> = {};
      const wanted: Record<string, number> = {};
      for (const credential of CREDENTIALS) {
        const { path: url, body, headers = {} } = row.request();
        const response = await t.request(method, url, {
          key: keys[credential],
          headers: { accept: 'application/json', ...headers },
          ...(body !== undefined ? { body } : {}),
        });
        await response.arrayBuffer();
        seen[credential] = response.status;
        const expected =
          row.access === 'public' || credential === 'admin' ? row.ok : EXPECTED[row.access][credential];
        wanted[credential] = expected === 0 ? row.ok : expected;
      }
      expect(seen).toEqual(wanted);
    });
  }

  it('opens a review session only for an admin key of the job project', async () => {
    const signIn = async (key: string | null) => {
      const response = await fetch(`${t.baseUrl}/review/${jobId}/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
        body: `key=${encodeURIComponent(key ?? '')}`,
        redirect: 'manual',
      });
      await response.arrayBuffer();
      return { status: response.status, cookie: response.headers.get('set-cookie') !== null };
    };
    expect({
      none: await signIn(keys.none),
      revoked: await signIn(keys.revoked),
      expired: await signIn(keys.expired),
      outsideAllowlist: await signIn(keys.outsideAllowlist),
      ingest: await signIn(keys.ingest),
      read: await signIn(keys.read),
      otherProject: await signIn(keys.otherProject),
      admin: await signIn(keys.admin),
    }).toEqual({
      none: { status: 401, cookie: false },
      revoked: { status: 401, cookie: false },
      expired: { status: 401, cookie: false },
      // The review page does not pass the client's address: a key with an allowlist is refused.
      outsideAllowlist: { status: 403, cookie: false },
      ingest: { status: 403, cookie: false },
      read: { status: 403, cookie: false },
      otherProject: { status: 404, cookie: false },
      admin: { status: 303, cookie: true },
    });
  });
});

import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIST } from '../../scripts/build-dashboard.ts';
import { gitHubSignatureHeader } from '../../src/domain/automations/code-change/signature.ts';
import { KeyService } from '../../src/domain/keys/key-service.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { type DashboardSession, signIn } from '../helpers/dashboard-session.ts';
import { createRepository, git, tempDir } from '../helpers/git-repos.ts';
import { testBackend } from '../helpers/storage.ts';

/**
 * Every route the server registers × every kind of caller (API keys and dashboard sessions),
 * with the status each must get. A route added without a row here fails the first test:
 * access is decided, not inherited.
 */

type KeyCredential =
  | 'none'
  | 'revoked'
  | 'expired'
  | 'outsideAllowlist'
  | 'ingest'
  | 'read'
  | 'otherProject'
  | 'admin';
type SessionCredential = 'noSession' | 'viewer' | 'adminNoCsrf' | 'adminSession' | 'owner';
type Credential = KeyCredential | SessionCredential;
// The admin key and the admin and owner sessions come last, so a route that changes state
// changes it only once the refusals have been seen.
const CREDENTIALS: Credential[] = [
  'none',
  'revoked',
  'expired',
  'outsideAllowlist',
  'ingest',
  'read',
  'otherProject',
  'noSession',
  'viewer',
  'adminNoCsrf',
  'admin',
  'adminSession',
  'owner',
];
/** Session credentials send a cookie (the CSRF token and Sec-Fetch-Site too) and no key; `noSession`, nothing. */
const SESSIONS: readonly Credential[] = ['noSession', 'viewer', 'adminNoCsrf', 'adminSession', 'owner'];

/**
 * The public API (a key, never a cookie):
 * - admin: an admin key of the project in the path; apiRead: an admin or read key of it;
 *   ingest: an admin or ingestion key of it. Every key but `outsideAllowlist` is used from
 *   where it may be (127.0.0.1); that one is an admin key of the project allowed only from
 *   203.0.113.0/24; `expired` is an admin key of the project that expired yesterday;
 * - review: an admin key of the job's project (a key of another project finds no such job).
 * The dashboard (a session, never a key; state changes need the CSRF token):
 * - read: any account; write (and ingest): admin or owner; manage: owner;
 * - self: any account, and it changes state (sign out);
 * - anonymous: no session needed (signing in), but a key is still refused.
 * public: anyone, whatever is sent.
 * signed: a code host's webhook (GitHub, GitLab): no key nor session is its credential, only
 *   the signature made with a code-change automation's secret (the row's `signed` request).
 */
type Access =
  | 'admin'
  | 'apiRead'
  | 'ingest'
  | 'review'
  | 'read'
  | 'write'
  | 'manage'
  | 'self'
  | 'anonymous'
  | 'signed'
  | 'public';

// 0: the row's `ok` status. Every session is refused by the public API: it takes keys only.
const API_KEYS = {
  none: 401,
  revoked: 401,
  expired: 401,
  outsideAllowlist: 403,
  ingest: 403,
  read: 403,
  otherProject: 403,
  admin: 0,
};
const NO_SESSION = { noSession: 401, viewer: 401, adminNoCsrf: 401, adminSession: 401, owner: 401 };
const NO_KEY = {
  none: 401,
  revoked: 401,
  expired: 401,
  outsideAllowlist: 401,
  ingest: 401,
  read: 401,
  otherProject: 401,
  admin: 401,
};
const EXPECTED: Record<Exclude<Access, 'public'>, Record<Credential, number>> = {
  admin: { ...API_KEYS, ...NO_SESSION },
  apiRead: { ...API_KEYS, read: 0, ...NO_SESSION },
  ingest: { ...API_KEYS, ingest: 0, ...NO_SESSION },
  review: { ...API_KEYS, otherProject: 404, ...NO_SESSION },
  read: { ...NO_KEY, noSession: 401, viewer: 0, adminNoCsrf: 0, adminSession: 0, owner: 0 },
  write: { ...NO_KEY, noSession: 401, viewer: 403, adminNoCsrf: 403, adminSession: 0, owner: 0 },
  manage: { ...NO_KEY, noSession: 401, viewer: 403, adminNoCsrf: 403, adminSession: 403, owner: 0 },
  self: { ...NO_KEY, noSession: 401, viewer: 0, adminNoCsrf: 403, adminSession: 0, owner: 0 },
  anonymous: { ...NO_KEY, none: 0, noSession: 0, viewer: 0, adminNoCsrf: 0, adminSession: 0, owner: 0 },
  signed: { ...NO_KEY, noSession: 401, viewer: 401, adminNoCsrf: 401, adminSession: 401, owner: 401 },
};

interface Row {
  access: Access;
  /** The status an allowed caller gets (and, for public routes, everyone). */
  ok: number;
  /** Overrides for some credentials, where the route's own answer differs. */
  except?: Partial<Record<Credential, number>>;
  /** The request; called once per credential, so a row that changes state can make a fresh target each time. */
  request: (who: Credential) => Promise<Req> | Req;
  /** For `signed` rows: the request as the code host sends it, signed with the automation's secret. */
  signed?: () => Promise<Req> | Req;
  /**
   * The route ends or changes the session or account it is called with (sign-out, password):
   * each session credential gets a fresh account and session, with FRESH_PASSWORD.
   */
  endsSession?: boolean;
}
interface Req {
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

const ORIGIN = 'https://docs.example.com';
const SIGN_IN = { email: 'signs-in@example.com', password: 'a password for the matrix' };
/** The password of the fresh sessions that `endsSession` rows get. */
const FRESH_PASSWORD = 'a fresh password for one row';

describe(`every route checks key, session, scope, role and project (${testBackend})`, () => {
  let t: TestApp;
  let cleanup: () => void;
  let projectId: string;
  let jobId: string;
  let repo: string;
  let editedUserId: string;
  let twinJobId: string;
  /** An archived job: its event stream ends by itself once it has replayed the job's events. */
  let finishedJobId: string;
  /** A webhook endpoint of the project, with one delivery (a test event) in its log. */
  let webhookId: string;
  let deliveryId: string;
  /** Webhook secrets of the project's code-change automations (GitHub, GitLab). */
  const hookSecrets = { github: '', gitlab: '' };
  /** A manual automation of the project. */
  let automationId: string;
  /** Connected repositories made so far: each new one gets the next number in its name. */
  let contextNames = 0;
  /** A code-change automation whose secret the matrix rotates. */
  let rotatingAutomationId: string;
  const keys = {} as Record<KeyCredential, string | null>;
  const sessions = {} as Record<Exclude<SessionCredential, 'noSession' | 'adminNoCsrf'>, DashboardSession>;

  beforeAll(async () => {
    // Webhook endpoints need the secret box for their signing secrets.
    t = await startTestApp({
      env: { DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=' },
    });
    const dir = tempDir();
    cleanup = dir.cleanup;
    // The project under test has its repository on this machine, so its jobs have review routes.
    repo = path.join(dir.dir, 'docs');
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
    sessions.viewer = await signIn(t, { role: 'viewer' });
    sessions.adminSession = await signIn(t, { role: 'admin' });
    sessions.owner = await signIn(t, { role: 'owner' });
    editedUserId = (await t.services.users.create({ email: 'edited@example.com', role: 'viewer' })).id;
    await t.services.users.create({ ...SIGN_IN, role: 'viewer' });
    await t.services.analytics.updateSettings(projectId, { allowedOrigins: [ORIGIN] });
    jobId = (await t.services.jobs.create(await t.services.projects.get(projectId), 'Add a page')).id;
    // The public API's twins under /dashboard/api act on a job of their own.
    twinJobId = (await t.services.jobs.create(await t.services.projects.get(projectId), 'Add another')).id;
    finishedJobId = (await t.services.jobs.create(await t.services.projects.get(projectId), 'Stop')).id;
    await t.services.jobs.archive(projectId, finishedJobId);
    webhookId = (await t.services.webhooks.create(projectId, { url: 'https://hooks.example.com/matrix' })).id;
    deliveryId = (await t.services.webhooks.test(projectId, webhookId)).id;
    for (const provider of ['github', 'gitlab'] as const) {
      const created = await t.services.automations.create(projectId, {
        name: `Follow ${provider}`,
        trigger: { kind: 'code_change', provider, repository: 'acme/api' },
        instructions: 'Keep the docs in step.',
      });
      hookSecrets[provider] = created.webhookSecret ?? '';
    }
    rotatingAutomationId = (
      await t.services.automations.create(projectId, {
        name: 'Rotated',
        trigger: { kind: 'code_change', provider: 'github', repository: 'acme/rotated' },
        instructions: 'Keep the docs in step.',
      })
    ).id;
    automationId = (
      await t.services.automations.create(projectId, {
        name: 'Matrix',
        trigger: { kind: 'manual' },
        instructions: 'Check the docs',
      })
    ).id;
    await t.services.contextRepositories.add(projectId, { name: 'standing', repository: repo });
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

  /** A job of the project whose branch is one commit ahead of main, as the agent would have pushed it. */
  async function localJobWithCommit(): Promise<string> {
    const job = await t.services.jobs.create(await t.services.projects.get(projectId), 'Merge me');
    git(repo, 'branch', '--quiet', job.source.ref, 'main');
    git(repo, 'checkout', '--quiet', job.source.ref);
    git(repo, 'commit', '--quiet', '--allow-empty', '-m', `Change of ${job.id}`);
    git(repo, 'checkout', '--quiet', 'main');
    return job.id;
  }

  /** The headers a credential sends: a bearer key, or a session's cookie (and CSRF token). */
  async function credentialHeaders(who: Credential, endsSession: boolean): Promise<Record<string, string>> {
    if (!SESSIONS.includes(who)) {
      const key = keys[who as KeyCredential];
      return key === null ? {} : { authorization: `Bearer ${key}` };
    }
    if (who === 'noSession') return {};
    const role = who === 'viewer' ? 'viewer' : who === 'owner' ? 'owner' : 'admin';
    const session = endsSession
      ? await signIn(t, { role, password: FRESH_PASSWORD })
      : sessions[who === 'adminNoCsrf' ? 'adminSession' : (who as 'viewer' | 'adminSession' | 'owner')];
    return session.headers(who === 'adminNoCsrf' ? { 'x-csrf-token': undefined } : {});
  }

  const p = () => projectId;
  const range = '?dateFrom=2026-01-01&dateTo=2026-02-01';
  const PUBLIC_API: Record<string, Row> = {
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
    // Docwright's name and mark on the page (src/http/routes/api-reference.ts).
    'GET /docs/static/theme/docwright.js': {
      access: 'public',
      ok: 200,
      request: () => ({ path: '/docs/static/theme/docwright.js' }),
    },
    'GET /docs/static/theme/docwright.css': {
      access: 'public',
      ok: 200,
      request: () => ({ path: '/docs/static/theme/docwright.css' }),
    },
    'GET /docs/static/theme/docwright.svg': {
      access: 'public',
      ok: 200,
      request: () => ({ path: '/docs/static/theme/docwright.svg' }),
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
    'POST /v1/hooks/github/:projectId': {
      access: 'signed',
      ok: 200,
      // A key or a session is no signature: 401 for all of them, however privileged.
      request: () => ({
        path: `/v1/hooks/github/${p()}`,
        body: { zen: 'Keep it logically awesome.' },
        headers: { 'x-github-event': 'ping', 'x-hub-signature-256': 'sha256=00' },
      }),
      signed: () => {
        const body = { zen: 'Keep it logically awesome.' };
        return {
          path: `/v1/hooks/github/${p()}`,
          body,
          headers: {
            'x-github-event': 'ping',
            'x-hub-signature-256': gitHubSignatureHeader(hookSecrets.github, JSON.stringify(body)),
          },
        };
      },
    },
    'POST /v1/hooks/gitlab/:projectId': {
      access: 'signed',
      ok: 200,
      request: () => ({
        path: `/v1/hooks/gitlab/${p()}`,
        body: { object_kind: 'push' },
        headers: { 'x-gitlab-event': 'Push Hook' },
      }),
      signed: () => ({
        path: `/v1/hooks/gitlab/${p()}`,
        body: { object_kind: 'push' },
        headers: { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': hookSecrets.gitlab },
      }),
    },
    'GET /*': {
      // The dashboard's index.html, for a browser navigation to a path that is not the API's.
      access: 'public',
      ok: 200,
      request: () => ({ path: '/projects', headers: { accept: 'text/html' } }),
    },
    'GET /assets/*': {
      access: 'public',
      ok: 200,
      request: () => ({
        path: `/assets/${readdirSync(path.join(DASHBOARD_DIST, 'assets')).find((f) => f.endsWith('.js'))}`,
      }),
    },
    'POST /v2/agent/:projectId/job': {
      access: 'admin',
      ok: 201,
      request: () => ({ path: `/v2/agent/${p()}/job`, body: { prompt: 'Add a page about limits' } }),
    },
    'GET /v2/agent/:projectId/job/:id': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/job/${jobId}` }),
    },
    'GET /v2/agent/:projectId/jobs': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/jobs` }),
    },
    'GET /v2/agent/:projectId/job/:id/messages': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/job/${jobId}/messages` }),
    },
    'GET /v2/agent/:projectId/job/:id/events': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/job/${finishedJobId}/events` }),
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
    'POST /v2/agent/:projectId/job/:id/archive': {
      access: 'admin',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/job/${jobId}/archive` }),
    },
    'POST /v2/agent/:projectId/webhooks': {
      access: 'admin',
      ok: 201,
      request: () => ({ path: `/v2/agent/${p()}/webhooks`, body: { url: 'https://hooks.example.com/new' } }),
    },
    'GET /v2/agent/:projectId/webhooks': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/webhooks` }),
    },
    'DELETE /v2/agent/:projectId/webhooks/:id': {
      access: 'admin',
      ok: 204,
      // A fresh endpoint for each caller that may delete it (a deleted one cannot be deleted
      // again); the refused ones aim at the standing endpoint (a project has at most 20).
      request: async (who) => {
        const { id } = ['admin', 'adminSession', 'owner'].includes(who)
          ? await t.services.webhooks.create(projectId, { url: 'https://hooks.example.com/gone' })
          : { id: webhookId };
        return { path: `/v2/agent/${p()}/webhooks/${id}` };
      },
    },
    'PATCH /v2/agent/:projectId/webhooks/:id': {
      access: 'admin',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/webhooks/${webhookId}`, body: { events: ['job.created'] } }),
    },
    'POST /v2/agent/:projectId/webhooks/:id/rotate-secret': {
      access: 'admin',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/webhooks/${webhookId}/rotate-secret` }),
    },
    'POST /v2/agent/:projectId/webhooks/:id/test': {
      access: 'admin',
      ok: 202,
      request: () => ({ path: `/v2/agent/${p()}/webhooks/${webhookId}/test` }),
    },
    'GET /v2/agent/:projectId/webhooks/:id/deliveries': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/webhooks/${webhookId}/deliveries` }),
    },
    'POST /v2/agent/:projectId/webhooks/:id/deliveries/:deliveryId/resend': {
      access: 'admin',
      ok: 202,
      request: () => ({ path: `/v2/agent/${p()}/webhooks/${webhookId}/deliveries/${deliveryId}/resend` }),
    },
    // MCP over Streamable HTTP: the project is the key's own, so a key of another project gets
    // its own project's tools (test/integration/mcp shows it cannot reach this project's jobs).
    'POST /mcp': {
      access: 'apiRead',
      ok: 200,
      except: { otherProject: 200 },
      request: () => ({
        path: '/mcp',
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
        headers: { accept: 'application/json, text/event-stream' },
      }),
    },
    'GET /mcp': {
      access: 'apiRead',
      ok: 405,
      except: { otherProject: 405 },
      request: () => ({ path: '/mcp' }),
    },
    'DELETE /mcp': {
      access: 'apiRead',
      ok: 405,
      except: { otherProject: 405 },
      request: () => ({ path: '/mcp' }),
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
    'POST /v2/agent/:projectId/automations': {
      access: 'admin',
      ok: 201,
      request: () => ({
        path: `/v2/agent/${p()}/automations`,
        body: { name: 'New', trigger: { kind: 'manual' }, instructions: 'Check the links' },
      }),
    },
    'GET /v2/agent/:projectId/automations': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/automations` }),
    },
    'GET /v2/agent/:projectId/automations/:id': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/automations/${automationId}` }),
    },
    'PATCH /v2/agent/:projectId/automations/:id': {
      access: 'admin',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/automations/${automationId}`, body: { name: 'Matrix' } }),
    },
    'DELETE /v2/agent/:projectId/automations/:id': {
      access: 'admin',
      ok: 204,
      // A fresh automation for each caller that may delete it; the refused ones aim at the standing one.
      request: async (who) => {
        const { id } = ['admin', 'adminSession', 'owner'].includes(who)
          ? await t.services.automations.create(projectId, {
              name: 'Gone',
              trigger: { kind: 'manual' },
              instructions: 'Check',
            })
          : { id: automationId };
        return { path: `/v2/agent/${p()}/automations/${id}` };
      },
    },
    'GET /v2/agent/:projectId/automations/:id/runs': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/automations/${automationId}/runs` }),
    },
    'POST /v2/agent/:projectId/automations/:id/rotate-secret': {
      access: 'admin',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/automations/${rotatingAutomationId}/rotate-secret` }),
    },
    'POST /v2/agent/:projectId/automations/:id/trigger': {
      access: 'admin',
      ok: 202,
      request: () => ({
        path: `/v2/agent/${p()}/automations/${automationId}/trigger`,
        body: { context: 'From the matrix' },
      }),
    },
    'GET /v2/agent/:projectId/context': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v2/agent/${p()}/context` }),
    },
    'POST /v2/agent/:projectId/context': {
      access: 'admin',
      ok: 201,
      // A new name each time: a name is connected once.
      request: () => ({
        path: `/v2/agent/${p()}/context`,
        body: { name: `source-${++contextNames}`, repository: repo },
      }),
    },
    'DELETE /v2/agent/:projectId/context/:name': {
      access: 'admin',
      ok: 204,
      // A fresh one for each caller that may disconnect it; the refused ones aim at the standing one.
      request: async (who) => {
        const { name } = ['admin', 'adminSession', 'owner'].includes(who)
          ? await t.services.contextRepositories.add(projectId, {
              name: `gone-${++contextNames}`,
              repository: repo,
            })
          : { name: 'standing' };
        return { path: `/v2/agent/${p()}/context/${name}` };
      },
    },
    'GET /v1/analytics/:projectId/visitors': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v1/analytics/${p()}/visitors${range}` }),
    },
    'GET /v1/analytics/:projectId/views': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v1/analytics/${p()}/views${range}` }),
    },
    'GET /v1/analytics/:projectId/timeseries': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v1/analytics/${p()}/timeseries${range}` }),
    },
    'GET /v1/analytics/:projectId/breakdown': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v1/analytics/${p()}/breakdown${range}` }),
    },
    'GET /v1/analytics/:projectId/settings': {
      access: 'apiRead',
      ok: 200,
      request: () => ({ path: `/v1/analytics/${p()}/settings` }),
    },
    'PATCH /v1/analytics/:projectId/settings': {
      access: 'admin',
      ok: 200,
      request: () => ({ path: `/v1/analytics/${p()}/settings`, body: { countAiCrawlersAsAi: true } }),
    },
  };
  /**
   * The public API's routes behind the session (`/dashboard/api/v2/…`): a viewer gets what
   * reads; an admin or owner what an admin key gets. They act on a job of their own.
   */
  const publicApiTwins: Record<string, Row> = Object.fromEntries(
    Object.entries(PUBLIC_API)
      .filter(
        ([route, row]) => /^\w+ \/v[12]\//.test(route) && row.access !== 'public' && row.access !== 'signed',
      )
      .map(([route, row]) => {
        const [method, url] = route.split(' ') as [string, string];
        const twin: Row = {
          access: method === 'GET' ? 'read' : 'write',
          ok: row.ok,
          request: async (who) => {
            const request = await row.request(who);
            return { ...request, path: `/dashboard/api${request.path.replace(jobId, twinJobId)}` };
          },
        };
        return [`${method} /dashboard/api${url}`, twin];
      }),
  );
  const ROUTES: Record<string, Row> = {
    ...PUBLIC_API,
    ...publicApiTwins,
    'GET /dashboard/api/session': {
      access: 'read',
      ok: 200,
      request: () => ({ path: '/dashboard/api/session' }),
    },
    'POST /dashboard/api/session': {
      access: 'anonymous',
      ok: 200,
      request: () => ({ path: '/dashboard/api/session', body: SIGN_IN }),
    },
    'DELETE /dashboard/api/session': {
      access: 'self',
      ok: 204,
      endsSession: true,
      request: () => ({ path: '/dashboard/api/session' }),
    },
    'POST /dashboard/api/session/sign-out-everywhere': {
      access: 'self',
      ok: 204,
      endsSession: true,
      request: () => ({ path: '/dashboard/api/session/sign-out-everywhere' }),
    },
    'POST /dashboard/api/session/password': {
      access: 'self',
      ok: 204,
      // The password changes: each caller gets an account of its own.
      endsSession: true,
      request: () => ({
        path: '/dashboard/api/session/password',
        body: { currentPassword: FRESH_PASSWORD, password: 'the next password' },
      }),
    },
    'POST /dashboard/api/sign-in-links/redeem': {
      access: 'anonymous',
      ok: 200,
      request: async () => {
        const { id } = await t.services.users.find(SIGN_IN.email);
        const { token } = await t.services.signInLinks.create(id);
        return { path: '/dashboard/api/sign-in-links/redeem', body: { token } };
      },
    },
    'GET /dashboard/api/users': {
      access: 'manage',
      ok: 200,
      request: () => ({ path: '/dashboard/api/users' }),
    },
    'POST /dashboard/api/users': {
      access: 'manage',
      ok: 201,
      request: () => ({
        path: '/dashboard/api/users',
        body: { email: `new-${randomUUID()}@example.com`, role: 'viewer' },
      }),
    },
    'PATCH /dashboard/api/users/:userId': {
      access: 'manage',
      ok: 200,
      request: () => ({ path: `/dashboard/api/users/${editedUserId}`, body: { role: 'admin' } }),
    },
    'DELETE /dashboard/api/users/:userId': {
      access: 'manage',
      ok: 204,
      request: async () => {
        const { id } = await t.services.users.create({
          email: `gone-${randomUUID()}@example.com`,
          role: 'viewer',
        });
        return { path: `/dashboard/api/users/${id}` };
      },
    },
    'POST /dashboard/api/users/:userId/sign-in-link': {
      access: 'manage',
      ok: 201,
      request: () => ({ path: `/dashboard/api/users/${editedUserId}/sign-in-link` }),
    },
    'GET /dashboard/api/projects': {
      access: 'read',
      ok: 200,
      request: () => ({ path: '/dashboard/api/projects' }),
    },
    'POST /dashboard/api/projects': {
      access: 'manage',
      ok: 201,
      request: () => ({ path: '/dashboard/api/projects', body: { name: 'Another', repository: repo } }),
    },
    'GET /dashboard/api/projects/:projectId': {
      access: 'read',
      ok: 200,
      request: () => ({ path: `/dashboard/api/projects/${p()}` }),
    },
    'PATCH /dashboard/api/projects/:projectId': {
      access: 'write',
      ok: 200,
      request: () => ({ path: `/dashboard/api/projects/${p()}`, body: { name: 'Local docs' } }),
    },
    'DELETE /dashboard/api/projects/:projectId': {
      access: 'manage',
      ok: 204,
      request: async () => {
        const doomed = await t.services.projects.create({ name: 'Doomed', repository: repo });
        return { path: `/dashboard/api/projects/${doomed.id}` };
      },
    },
    'GET /dashboard/api/projects/:projectId/settings': {
      access: 'read',
      ok: 200,
      request: () => ({ path: `/dashboard/api/projects/${p()}/settings` }),
    },
    'PATCH /dashboard/api/projects/:projectId/settings': {
      access: 'write',
      ok: 200,
      request: () => ({ path: `/dashboard/api/projects/${p()}/settings`, body: { agent: { draft: true } } }),
    },
    'GET /dashboard/api/projects/:projectId/keys': {
      access: 'write',
      ok: 200,
      // Reading keys needs write, but reading changes nothing: no CSRF token needed.
      except: { adminNoCsrf: 0 },
      request: () => ({ path: `/dashboard/api/projects/${p()}/keys` }),
    },
    'POST /dashboard/api/projects/:projectId/keys': {
      access: 'write',
      ok: 201,
      request: () => ({
        path: `/dashboard/api/projects/${p()}/keys`,
        body: {
          name: 'from the dashboard',
          scope: 'read',
          expiresInDays: 30,
          allowedIps: ['203.0.113.0/24'],
        },
      }),
    },
    'DELETE /dashboard/api/projects/:projectId/keys/:keyId': {
      access: 'write',
      ok: 200,
      request: async () => {
        const { info } = await t.services.keys.create(projectId, 'to revoke');
        return { path: `/dashboard/api/projects/${p()}/keys/${info.id}` };
      },
    },
    'GET /dashboard/api/jobs/:jobId': {
      access: 'read',
      ok: 200,
      request: () => ({ path: `/dashboard/api/jobs/${jobId}` }),
    },
    'GET /dashboard/api/projects/:projectId/jobs': {
      access: 'read',
      ok: 200,
      request: () => ({ path: `/dashboard/api/projects/${p()}/jobs?q=page` }),
    },
    'GET /dashboard/api/projects/:projectId/jobs/:jobId/changes': {
      access: 'read',
      ok: 200,
      request: () => ({ path: `/dashboard/api/projects/${p()}/jobs/${jobId}/changes` }),
    },
    'POST /dashboard/api/projects/:projectId/jobs/:jobId/merge': {
      access: 'write',
      ok: 200,
      // A job with a branch of its own each time: a merged branch cannot be merged again.
      request: async () => ({
        path: `/dashboard/api/projects/${p()}/jobs/${await localJobWithCommit()}/merge`,
      }),
    },
  };

  it('has a row for every registered route', () => {
    const registered = t.routes.filter((r) => r.method !== 'HEAD').map((r) => `${r.method} ${r.url}`);
    expect([...registered].sort()).toEqual(Object.keys(ROUTES).sort());
  });

  it('documents every JSON route in /openapi.json; only pages, assets and the public API twins are left out', async () => {
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
        'GET /docs/static/theme/docwright.js',
        'GET /docs/static/theme/docwright.css',
        'GET /docs/static/theme/docwright.svg',
        // The tracker script and its CORS preflight.
        'GET /script.js',
        'OPTIONS /v1/analytics/:projectId/collect',
        // MCP: JSON-RPC, described by its own tools/list (docs/mcp.md).
        'POST /mcp',
        'GET /mcp',
        'DELETE /mcp',
        // The dashboard application: its pages and assets.
        'GET /*',
        'GET /assets/*',
        // The public API through the session: documented once, under /v1 and /v2.
        ...Object.keys(ROUTES).filter((route) => route.includes(' /dashboard/api/v')),
      ].sort(),
    );
  });

  for (const [route, row] of Object.entries(ROUTES)) {
    const method = route.split(' ')[0] as string;
    it(`${route} (${row.access})`, async () => {
      const seen: Record<string, number> = {};
      const wanted: Record<string, number> = {};
      for (const credential of CREDENTIALS) {
        const { path: url, body, headers = {} } = await row.request(credential);
        const response = await t.request(method, url, {
          key: null,
          headers: {
            accept: 'application/json',
            ...(await credentialHeaders(credential, row.endsSession ?? false)),
            ...headers,
          },
          ...(body !== undefined ? { body } : {}),
        });
        await response.arrayBuffer();
        seen[credential] = response.status;
        const expected =
          row.except?.[credential] ?? (row.access === 'public' ? 0 : EXPECTED[row.access][credential]);
        wanted[credential] = expected === 0 ? row.ok : expected;
      }
      if (row.signed) {
        const { path: url, body, headers = {} } = await row.signed();
        const response = await t.request(method, url, {
          key: null,
          headers,
          ...(body !== undefined ? { body } : {}),
        });
        await response.arrayBuffer();
        seen.signed = response.status;
        wanted.signed = row.ok;
      }
      expect(seen).toEqual(wanted);
    });
  }
});

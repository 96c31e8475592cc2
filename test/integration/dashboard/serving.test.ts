import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIST } from '../../../scripts/build-dashboard.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { tempDir } from '../../helpers/git-repos.ts';
import { testBackend } from '../../helpers/storage.ts';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe(`the server serves the dashboard (${testBackend})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (url: string, headers: Record<string, string> = HTML) =>
    t.request('GET', url, { key: null, headers });

  it('answers a browser navigation to any page with index.html, uncached, under a strict CSP', async () => {
    const index = readFileSync(path.join(DASHBOARD_DIST, 'index.html'), 'utf8');
    for (const url of [
      '/',
      '/sign-in',
      '/sign-in/link',
      '/projects',
      '/projects/prj_x/keys',
      '/users',
      '/jobs/job_1',
    ]) {
      const response = await get(url);
      expect({ url, status: response.status, body: await response.text() }).toEqual({
        url,
        status: 200,
        body: index,
      });
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("base-uri 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('serves the hashed assets with long-lived immutable caching, and 404s in JSON for unknown ones', async () => {
    const index = readFileSync(path.join(DASHBOARD_DIST, 'index.html'), 'utf8');
    const script = /<script type="module" crossorigin src="([^"]+)"/.exec(index)?.[1];
    expect(script).toMatch(/^\/assets\/.+\.js$/);
    const response = await get(script as string, {});
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/javascript/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await response.text()).toBe(readFileSync(path.join(DASHBOARD_DIST, script as string), 'utf8'));

    // React's production build, even when the test runner (NODE_ENV=test) ran the build: the
    // development build's warnings, such as this one, are not in it.
    expect(await (await get(script as string, {})).text()).not.toContain('cannot be a child of');

    const missing = await get('/assets/nope-123.js', {});
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'No route GET /assets/nope-123.js' });
    // Nothing beside the assets is reachable through them.
    expect((await get('/assets/../index.html', {})).status).toBe(404);
    expect((await get('/assets/%2e%2e/.build-hash', {})).status).not.toBe(200);
  });

  it('keeps the JSON 404 of API paths, and of non-browser requests', async () => {
    for (const url of [
      '/v2/agent/prj_x/nope',
      '/v1/nope',
      '/dashboard/api/nope',
      '/review/job_1/nope',
      '/docs/nope',
      '/collect',
    ]) {
      const response = await get(url);
      expect({ url, status: response.status, type: response.headers.get('content-type') }).toEqual({
        url,
        status: 404,
        type: 'application/json; charset=utf-8',
      });
      expect(await response.json()).toMatchObject({ error: `No route GET ${url}` });
    }
    const api = await get('/projects', { accept: 'application/json' });
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ error: 'No route GET /projects' });
    // Other methods are the API's too.
    const post = await t.request('POST', '/projects', { key: null, headers: HTML, body: {} });
    expect(post.status).toBe(404);
    // The API's own routes are untouched.
    expect((await get('/health')).status).toBe(200);
    expect((await get('/openapi.json', {})).status).toBe(200);
  });

  it('answers GET / as curl sends it (Accept: */*) with 200 and where things are', async () => {
    const asked: Record<string, string>[] = [{ accept: '*/*' }, {}, { accept: 'application/json' }];
    for (const headers of asked) {
      const response = await get('/', headers);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await response.json()).toEqual({
        status: 'ok',
        service: 'Docwright',
        dashboard: 'open this URL in a browser',
        apiReference: '/docs',
        health: '/health',
      });
    }
    // Only the root: another path a browser did not ask for stays the API's 404.
    expect((await get('/sign-in', { accept: '*/*' })).status).toBe(404);
  });

  it('leaves the dashboard out of /openapi.json', async () => {
    const document = (await (await get('/openapi.json', {})).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((p) => p === '/*' || p.startsWith('/assets'))).toEqual([]);
  });
});

describe(`without a built dashboard (${testBackend})`, () => {
  let t: TestApp;
  let dir: { dir: string; cleanup: () => void };
  beforeAll(async () => {
    dir = tempDir();
    t = await startTestApp({ dashboardDir: path.join(dir.dir, 'missing') });
  });
  afterAll(async () => {
    await t?.close();
    dir?.cleanup();
  });

  it('says on / how to build it, and the API still works', async () => {
    const response = await t.request('GET', '/', { key: null, headers: HTML });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toContain('npm run build:dashboard');
    expect((await t.request('GET', '/assets/index.js', { key: null })).status).toBe(404);
    expect((await t.request('GET', `/v2/agent/${t.project.id}/jobs`)).status).toBe(200);
  });
});

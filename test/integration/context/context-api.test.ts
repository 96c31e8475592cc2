import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { signIn } from '../../helpers/dashboard-session.ts';
import { createRepository, tempDir } from '../../helpers/git-repos.ts';
import { testBackend } from '../../helpers/storage.ts';

describe(`connected repositories over the public API (${testBackend})`, () => {
  let t: TestApp;
  let cleanup: () => void;
  /** Repositories under the server's allowed roots, and one outside them. */
  let api: string;
  let sdk: string;
  let outside: string;

  beforeAll(async () => {
    const dir = tempDir();
    cleanup = dir.cleanup;
    const allowed = path.join(dir.dir, 'allowed');
    mkdirSync(allowed);
    api = path.join(allowed, 'api');
    createRepository(api, { 'src/limits.ts': 'export const RETRIES = 3;\n' }, 'trunk');
    sdk = path.join(allowed, 'sdk');
    createRepository(sdk, { 'index.ts': 'export {};\n' });
    outside = path.join(dir.dir, 'outside');
    createRepository(outside, { 'a.ts': '\n' });
    t = await startTestApp({ env: { DOCWRIGHT_LOCAL_REPOSITORY_ROOTS: allowed } });
  });
  afterAll(async () => {
    await t?.close();
    cleanup?.();
  });

  const path_ = () => `/v2/agent/${t.project.id}/context`;
  const post = (body: unknown) => t.request('POST', path_(), { body });
  const refusal = async (response: Response) => ({
    status: response.status,
    error: ((await response.json()) as { error: string }).error,
  });

  it('connects, lists and disconnects repositories, and a read key only lists', async () => {
    const created = await post({ name: 'api', repository: api, ref: 'trunk' });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({
      repository: { name: 'api', repository: api, ref: 'trunk', createdAt: expect.any(String) },
      warnings: [],
    });
    expect((await post({ name: 'sdk.js', repository: sdk })).status).toBe(201);

    const { key: readKey } = await t.services.keys.create(t.project.id, 'reader', 'read');
    const listed = await t.request('GET', path_(), { key: readKey });
    expect(listed.status).toBe(200);
    const { repositories } = (await listed.json()) as { repositories: { name: string; ref: string }[] };
    expect(repositories.map((r) => [r.name, r.ref])).toEqual([
      ['api', 'trunk'],
      ['sdk.js', 'main'],
    ]);
    expect(
      await refusal(await t.request('POST', path_(), { key: readKey, body: { name: 'x', repository: sdk } })),
    ).toEqual({ status: 403, error: 'An API key with scope "read" cannot call this endpoint' });

    expect((await t.request('DELETE', `${path_()}/sdk.js`)).status).toBe(204);
    expect(await refusal(await t.request('DELETE', `${path_()}/sdk.js`))).toEqual({
      status: 404,
      error: `Project ${t.project.id} has no connected repository named "sdk.js"`,
    });
    expect(
      ((await (await t.request('GET', path_())).json()) as { repositories: unknown[] }).repositories,
    ).toEqual([expect.objectContaining({ name: 'api' })]);
    await t.request('DELETE', `${path_()}/api`);
  });

  it('refuses bad input with 400 naming the field, a taken name with 409, an unknown project with 404', async () => {
    expect((await post({ name: 'api', repository: api, ref: 'trunk' })).status).toBe(201);
    expect(await refusal(await post({ name: 'api', repository: sdk }))).toEqual({
      status: 409,
      error:
        'A repository named "api" is already connected to this project; remove it first or choose another name',
    });
    expect(await refusal(await post({ name: 'Api Code', repository: sdk }))).toEqual({
      status: 400,
      error: expect.stringMatching(
        /^name: "Api Code" is not a connected repository name: 1 to 63 lower-case/,
      ),
    });
    expect(await refusal(await post({ repository: sdk }))).toEqual({
      status: 400,
      error: 'Invalid request body: name is required',
    });
    expect(await refusal(await post({ name: 'sdk', repository: sdk, branch: 'main' }))).toEqual({
      status: 400,
      error: 'Invalid request body: unknown field "branch"',
    });
    expect(await refusal(await post({ name: 'sdk', repository: ' ' }))).toEqual({
      status: 400,
      error: 'Invalid request body: repository must not be empty or only whitespace',
    });
    // Over HTTP a path must lie under DOCWRIGHT_LOCAL_REPOSITORY_ROOTS, as a project's own.
    expect(await refusal(await post({ name: 'outside', repository: outside }))).toEqual({
      status: 400,
      error: expect.stringMatching(/^repository: a path on this server/),
    });
    expect(await refusal(await post({ name: 'sdk', repository: sdk, ref: 'trunk' }))).toEqual({
      status: 400,
      error: expect.stringMatching(/has no branch "trunk"; its branches include main/),
    });
    const unknown = await t.request('GET', '/v2/agent/prj_unknown/context');
    expect(await refusal(unknown)).toEqual({ status: 404, error: 'Project prj_unknown not found' });
    expect(
      ((await (await t.request('GET', path_())).json()) as { repositories: unknown[] }).repositories,
    ).toHaveLength(1);
    await t.request('DELETE', `${path_()}/api`);
  });

  it('serves the dashboard the same routes through a session: a viewer reads, an admin changes', async () => {
    const [viewer, admin] = [await signIn(t, { role: 'viewer' }), await signIn(t, { role: 'admin' })];
    const twin = `/dashboard/api${path_()}`;
    const body = { name: 'api', repository: api, ref: 'trunk' };
    expect((await viewer.request('POST', twin, { body })).status).toBe(403);
    const created = await admin.request('POST', twin, { body });
    expect(created.status).toBe(201);
    // The same local-path rule as the public API's.
    expect((await admin.request('POST', twin, { body: { name: 'out', repository: outside } })).status).toBe(
      400,
    );
    const viaSession = await viewer.request('GET', twin);
    expect(viaSession.status).toBe(200);
    expect(await viaSession.json()).toEqual(await (await t.request('GET', path_())).json());
    expect((await viewer.request('DELETE', `${twin}/api`)).status).toBe(403);
    expect((await admin.request('DELETE', `${twin}/api`)).status).toBe(204);
    const unknown = await viewer.request('GET', '/dashboard/api/v2/agent/prj_unknown/context');
    expect(await refusal(unknown)).toEqual({ status: 404, error: 'Project prj_unknown not found' });
  });
});

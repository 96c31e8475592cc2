import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, DocwrightApiError } from '../../../src/client/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createRepository, tempDir } from '../../helpers/git-repos.ts';
import { testBackend } from '../../helpers/storage.ts';

describe(`docwright/client: connected repositories, against a running app on ${testBackend}`, () => {
  let t: TestApp;
  let cleanup: (() => void) | undefined;
  afterEach(async () => {
    cleanup?.();
    t?.app.server.closeAllConnections();
    await t?.close();
  });

  async function apiError(promise: Promise<unknown>): Promise<DocwrightApiError> {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DocwrightApiError);
    return error as DocwrightApiError;
  }

  it("connects, lists and disconnects source repositories, with the server's refusals as errors", async () => {
    t = await startTestApp();
    const dir = tempDir();
    cleanup = dir.cleanup;
    // Under the test server's DOCWRIGHT_LOCAL_REPOSITORY_ROOTS (the system's temporary directory).
    const api = path.join(dir.dir, 'api');
    createRepository(api, { 'src/limits.ts': 'export const RETRIES = 3;\n' }, 'trunk');
    const p = t.project.id;
    const client = createClient({ baseUrl: t.baseUrl, apiKey: t.key });

    expect(await client.context.list(p)).toEqual([]);
    const connected = await client.context.add(p, { name: 'api', repository: api, ref: 'trunk' });
    expect(connected).toEqual({
      repository: { name: 'api', repository: api, ref: 'trunk', createdAt: expect.any(String) },
      warnings: [],
    });
    const remote = await client.context.add(p, {
      name: 'sdk.js',
      repository: 'https://git.invalid/acme/sdk.git',
    });
    expect(remote.repository.ref).toBe('main');
    // No network here: the remote could not be asked, which is a warning, not a refusal.
    expect(remote.warnings).toEqual([expect.stringMatching(/^Could not check https:\/\/git\.invalid/)]);
    expect((await client.context.list(p)).map((r) => r.name)).toEqual(['api', 'sdk.js']);

    const taken = await apiError(client.context.add(p, { name: 'api', repository: api, ref: 'trunk' }));
    expect(taken.status).toBe(409);
    expect(taken.message).toMatch(/"api" is already connected/);
    expect((await apiError(client.context.add(p, { name: 'API', repository: api }))).status).toBe(400);

    expect(await client.context.remove(p, 'sdk.js')).toBeUndefined();
    const gone = await apiError(client.context.remove(p, 'sdk.js'));
    expect(gone.status).toBe(404);
    expect(gone.message).toBe(`Project ${p} has no connected repository named "sdk.js"`);
    expect((await client.context.list(p)).map((r) => r.name)).toEqual(['api']);

    // A read key lists but does not change.
    const reader = createClient({
      baseUrl: t.baseUrl,
      apiKey: (await t.services.keys.create(p, 'reader', 'read')).key,
    });
    expect((await reader.context.list(p)).map((r) => r.name)).toEqual(['api']);
    expect((await apiError(reader.context.remove(p, 'api'))).status).toBe(403);
  });
});

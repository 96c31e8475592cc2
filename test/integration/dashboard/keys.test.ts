import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { signIn } from '../../helpers/dashboard-session.ts';
import { testBackend } from '../../helpers/storage.ts';

const DAY_MS = 86_400_000;
const body = async (response: Response) => (await response.json()) as Record<string, unknown>;

interface KeyInfo {
  id: string;
  name: string;
  scope: string;
  hint: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  allowedIps: string[];
  revokedAt: string | null;
}

describe(`dashboard API keys (${testBackend})`, () => {
  let t: TestApp | null = null;
  afterEach(async () => {
    await t?.close();
    t = null;
  });

  it('creates a key shown once, with its scope, expiry and allowlist, and the key works on the public API', async () => {
    t = await startTestApp();
    const admin = await signIn(t, { role: 'admin' });
    const keys = `/dashboard/api/projects/${t.project.id}/keys`;

    const created = await admin.request('POST', keys, {
      body: {
        name: 'reports',
        scope: 'read',
        expiresInDays: 30,
        allowedIps: ['127.0.0.1', ' 2001:DB8::/32 '],
      },
    });
    expect(created.status).toBe(201);
    const { key, info } = (await created.json()) as { key: string; info: KeyInfo };
    expect(key).toMatch(/^dw_/);
    expect(info).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'reports',
      scope: 'read',
      hint: `dw_…${key.slice(-4)}`,
      createdAt: expect.any(String),
      lastUsedAt: null,
      expiresAt: new Date(Date.parse(info.createdAt) + 30 * DAY_MS).toISOString(),
      allowedIps: ['127.0.0.1', '2001:db8::/32'],
      revokedAt: null,
    });
    // A read key from an allowed address: reads, and nothing else.
    expect((await t.request('GET', `/v2/agent/${t.project.id}/jobs`, { key })).status).toBe(200);
    expect(
      (await t.request('POST', `/v2/agent/${t.project.id}/job`, { key, body: { prompt: 'x' } })).status,
    ).toBe(403);

    const listed = await admin.request('GET', keys);
    expect(listed.status).toBe(200);
    const text = await listed.text();
    expect(text).not.toContain(key);
    const list = (JSON.parse(text) as { keys: KeyInfo[] }).keys;
    expect(list.map((k) => k.name)).toEqual(['test', 'reports']);
    // last used is recorded in the background: whether it has landed yet is not the point here.
    expect({ ...list.find((k) => k.id === info.id), lastUsedAt: null }).toEqual(info);

    const defaults = (await body(await admin.request('POST', keys, { body: { name: 'ci', scope: 'admin' } })))
      .info as KeyInfo;
    expect(Date.parse(defaults.expiresAt as string) - Date.parse(defaults.createdAt)).toBe(90 * DAY_MS);
    expect(defaults.allowedIps).toEqual([]);
    const never = (
      await body(
        await admin.request('POST', keys, { body: { name: 'ci', scope: 'ingest', expiresInDays: null } }),
      )
    ).info as KeyInfo;
    expect(never.expiresAt).toBeNull();
  });

  it('refuses a bad key request with 400 naming the field', async () => {
    t = await startTestApp();
    const owner = await signIn(t, { role: 'owner' });
    const create = async (payload: unknown) => {
      const response = await owner.request('POST', `/dashboard/api/projects/${t?.project.id}/keys`, {
        body: payload,
      });
      return { status: response.status, error: (await body(response)).error };
    };
    expect(await create({ name: 'x', scope: 'admin', allowedIps: ['10.0.0.0/8', '10.0.0.300'] })).toEqual({
      status: 400,
      error:
        'allowedIps: "10.0.0.300" is not an IP address or CIDR range (like 203.0.113.7, 203.0.113.0/24 or 2001:db8::/32)',
    });
    expect(await create({ name: 'x', scope: 'admin', expiresInDays: 45 })).toMatchObject({
      status: 400,
      error: expect.stringContaining('expiresInDays'),
    });
    expect(await create({ name: 'x', scope: 'owner' })).toMatchObject({
      status: 400,
      error: expect.stringContaining('scope'),
    });
    expect(await create({ name: '  ', scope: 'admin' })).toMatchObject({
      status: 400,
      error: expect.stringContaining('name'),
    });
    const many = Array.from({ length: 51 }, (_, i) => `192.0.2.${i}`);
    expect(await create({ name: 'x', scope: 'admin', allowedIps: many })).toMatchObject({
      status: 400,
      error: expect.stringContaining('allowedIps'),
    });
    expect(await create({ name: 'x', scope: 'admin', key: 'dw_mine' })).toMatchObject({
      status: 400,
      error: expect.stringContaining('key'),
    });
    expect((await t.services.keys.list(t.project.id)).map((k) => k.name)).toEqual(['test']);
  });

  it("revokes a key of the project; another project's key is 404 and keeps working", async () => {
    t = await startTestApp();
    const admin = await signIn(t, { role: 'admin' });
    const other = await t.services.projects.create({
      name: 'Other',
      repository: 'https://example.com/o.git',
    });
    const theirs = await t.services.keys.create(other.id, 'theirs');
    const ours = await t.services.keys.create(t.project.id, 'ours');
    const keys = `/dashboard/api/projects/${t.project.id}/keys`;

    const wrongProject = await admin.request('DELETE', `${keys}/${theirs.info.id}`);
    expect(wrongProject.status).toBe(404);
    expect((await body(wrongProject)).error).toBe(`API key ${theirs.info.id} not found`);
    expect((await t.request('GET', `/v2/agent/${other.id}/jobs`, { key: theirs.key })).status).toBe(200);
    expect((await admin.request('DELETE', `${keys}/key_nope`)).status).toBe(404);
    expect(
      (await admin.request('DELETE', `/dashboard/api/projects/prj_nope/keys/${ours.info.id}`)).status,
    ).toBe(404);

    const revoked = await admin.request('DELETE', `${keys}/${ours.info.id}`);
    expect(revoked.status).toBe(200);
    expect(await body(revoked)).toMatchObject({ id: ours.info.id, revokedAt: expect.any(String) });
    const unauthorised = await t.request('GET', `/v2/agent/${t.project.id}/jobs`, { key: ours.key });
    expect(unauthorised.status).toBe(401);
    expect((await body(unauthorised)).error).toBe('This API key has been revoked');
  });

  it('is for accounts that may change keys: a viewer gets 403, even for the list', async () => {
    t = await startTestApp();
    const viewer = await signIn(t, { role: 'viewer' });
    const keys = `/dashboard/api/projects/${t.project.id}/keys`;
    const listed = await viewer.request('GET', keys);
    expect(listed.status).toBe(403);
    expect((await body(listed)).error).toBe('An account with role "viewer" cannot do this');
    expect((await viewer.request('POST', keys, { body: { name: 'x', scope: 'admin' } })).status).toBe(403);
    expect((await t.services.keys.list(t.project.id)).map((k) => k.name)).toEqual(['test']);
  });
});

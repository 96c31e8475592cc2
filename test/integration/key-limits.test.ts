import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import { VERIFIED_TTL_MS } from '../../src/domain/keys/key-service.ts';
import { buildHttpApp } from '../../src/http/app.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { testBackend } from '../helpers/storage.ts';

const DAY_MS = 86_400_000;
const CREATED = new Date('2026-03-01T12:00:00.000Z');

describe(`API key expiry, IP allowlists and read-only keys (${testBackend})`, () => {
  let t: TestApp | undefined;
  let extra: FastifyInstance | undefined;
  let now = CREATED;
  afterEach(async () => {
    await extra?.close();
    extra = undefined;
    await t?.close();
    t = undefined;
    now = CREATED;
  });

  const start = async (env: Record<string, string> = {}) => {
    t = await startTestApp({ clock: () => now, env });
    return t;
  };
  const jobsPath = (app: TestApp) => `/v2/agent/${app.project.id}/jobs`;
  const errorOf = async (response: Response) => ({
    status: response.status,
    error: ((await response.json()) as { error: string }).error,
  });

  describe('expiry', () => {
    it('lasts 90 days by default, or 7, 30, 60 days, or never', async () => {
      const app = await start();
      const made = async (expiresInDays?: number | null) =>
        (
          await app.services.keys.create(app.project.id, {
            name: `k${expiresInDays}`,
            scope: 'admin',
            ...(expiresInDays !== undefined ? { expiresInDays } : {}),
          })
        ).info.expiresAt;
      const daysOn = (days: number) => new Date(CREATED.getTime() + days * DAY_MS).toISOString();
      expect({
        default: await made(),
        7: await made(7),
        30: await made(30),
        60: await made(60),
        90: await made(90),
        never: await made(null),
      }).toEqual({
        default: daysOn(90),
        7: daysOn(7),
        30: daysOn(30),
        60: daysOn(60),
        90: daysOn(90),
        never: null,
      });
      // The shorthand existing callers use gets the default lifetime too.
      expect((await app.services.keys.create(app.project.id, 'short', 'read')).info.expiresAt).toBe(
        daysOn(90),
      );
      await expect(
        app.services.keys.create(app.project.id, { name: 'x', scope: 'admin', expiresInDays: 45 }),
      ).rejects.toThrow(new DomainError('invalid', 'expiresInDays: must be 7, 30, 60, 90 or null (never)'));
    });

    it('answers 401 saying when the key expired, from the instant it expires', async () => {
      const app = await start();
      const { key, info } = await app.services.keys.create(app.project.id, {
        name: 'week',
        scope: 'read',
        expiresInDays: 7,
      });
      const expiresAt = new Date(info.expiresAt as string);
      now = new Date(expiresAt.getTime() - 1);
      expect((await app.request('GET', jobsPath(app), { key })).status).toBe(200);
      now = expiresAt;
      expect(await errorOf(await app.request('GET', jobsPath(app), { key }))).toEqual({
        status: 401,
        error: `This API key expired on ${info.expiresAt}`,
      });
    });

    it('never trusts a cached key past its expiry, though it was verified less than 5 s before', async () => {
      const app = await start();
      const { key, info } = await app.services.keys.create(app.project.id, {
        name: 'week',
        scope: 'admin',
        expiresInDays: 7,
      });
      const expiresAt = new Date(info.expiresAt as string).getTime();
      now = new Date(expiresAt - 1_000);
      expect((await app.request('GET', jobsPath(app), { key })).status).toBe(200);
      now = new Date(expiresAt - 1);
      expect((await app.request('GET', jobsPath(app), { key })).status).toBe(200);
      now = new Date(expiresAt + 1);
      expect(expiresAt + 1 - (expiresAt - 1_000)).toBeLessThan(VERIFIED_TTL_MS);
      expect((await app.request('GET', jobsPath(app), { key })).status).toBe(401);
    });

    it('keeps a key that never expires working, years on', async () => {
      const app = await start();
      const { key } = await app.services.keys.create(app.project.id, {
        name: 'forever',
        scope: 'admin',
        expiresInDays: null,
      });
      now = new Date(CREATED.getTime() + 10 * 365 * DAY_MS);
      expect((await app.request('GET', jobsPath(app), { key })).status).toBe(200);
    });
  });

  describe('IP allowlists', () => {
    const withAllowlist = async (app: TestApp, allowedIps: string[]) =>
      (await app.services.keys.create(app.project.id, { name: 'limited', scope: 'admin', allowedIps })).key;

    it('checks and normalises entries, naming a bad one, and lists them with the expiry', async () => {
      const app = await start();
      const { info } = await app.services.keys.create(app.project.id, {
        name: 'office',
        scope: 'read',
        allowedIps: [' 10.1.2.3/8 ', '2001:DB8:0:0::1', '::ffff:192.0.2.1', '203.0.113.7/32', '10.0.0.0/8'],
      });
      expect(info.allowedIps).toEqual(['10.0.0.0/8', '2001:db8::1', '192.0.2.1', '203.0.113.7']);
      const [listed] = (await app.services.keys.list(app.project.id)).filter((k) => k.id === info.id);
      expect(listed).toMatchObject({ allowedIps: info.allowedIps, expiresAt: info.expiresAt });
      for (const bad of [
        '10.0.0.300',
        '10.0.0.0/33',
        '2001:db8::/129',
        'fe80::1%eth0',
        'example.com',
        '010.0.0.1',
        '',
      ]) {
        await expect(withAllowlist(app, ['192.0.2.1', bad])).rejects.toThrow(
          new DomainError(
            'invalid',
            `allowedIps: "${bad}" is not an IP address or CIDR range (like 203.0.113.7, 203.0.113.0/24 or 2001:db8::/32)`,
          ),
        );
      }
      const many = Array.from({ length: 51 }, (_, i) => `192.0.2.${i}`);
      await expect(withAllowlist(app, many)).rejects.toThrow('allowedIps: at most 50 entries, not 51');
      expect(await withAllowlist(app, many.slice(0, 50))).toMatch(/^dw_/);
    });

    it('allows an IPv4 address or range the request comes from, and refuses others with 403 naming the address', async () => {
      const app = await start();
      const exact = await withAllowlist(app, ['127.0.0.1']);
      const range = await withAllowlist(app, ['127.0.0.0/8']);
      const elsewhere = await withAllowlist(app, ['203.0.113.0/24', '2001:db8::/32']);
      expect((await app.request('GET', jobsPath(app), { key: exact })).status).toBe(200);
      expect((await app.request('GET', jobsPath(app), { key: range })).status).toBe(200);
      expect(await errorOf(await app.request('GET', jobsPath(app), { key: elsewhere }))).toEqual({
        status: 403,
        error: 'This API key may not be used from 127.0.0.1',
      });
    });

    it('holds on the review routes too: an allowed address gets through to the job, another is refused', async () => {
      const app = await start();
      const allowed = await withAllowlist(app, ['127.0.0.1']);
      const elsewhere = await withAllowlist(app, ['203.0.113.0/24']);
      // No such job: a key that passes its checks is told so, a refused one never gets that far.
      expect((await app.request('GET', '/review/job_nosuchjob', { key: allowed })).status).toBe(404);
      expect(await errorOf(await app.request('GET', '/review/job_nosuchjob', { key: elsewhere }))).toEqual({
        status: 403,
        error: 'This API key may not be used from 127.0.0.1',
      });
      expect((await app.request('POST', '/review/job_nosuchjob/merge', { key: elsewhere })).status).toBe(403);
    });

    it('matches IPv6 peers, and IPv4 entries against the IPv4-mapped addresses of a dual-stack socket', async () => {
      const app = await start();
      // The same services behind a server listening on every address, IPv6 included.
      extra = await buildHttpApp({ services: app.services, logger: pino({ level: 'silent' }) });
      await extra.listen({ host: '::', port: 0 });
      const port = (extra.server.address() as AddressInfo).port;
      const get = (host: string, key: string) =>
        fetch(`http://${host}:${port}${jobsPath(app)}`, { headers: { authorization: `Bearer ${key}` } });
      const loopback6 = await withAllowlist(app, ['::1']);
      const range6 = await withAllowlist(app, ['::/127']);
      const loopback4 = await withAllowlist(app, ['127.0.0.1']);
      const documentation6 = await withAllowlist(app, ['2001:db8::/32']);
      expect((await get('[::1]', loopback6)).status).toBe(200);
      expect((await get('[::1]', range6)).status).toBe(200);
      // The socket reports ::ffff:127.0.0.1 for an IPv4 client.
      expect((await get('127.0.0.1', loopback4)).status).toBe(200);
      expect(await errorOf(await get('127.0.0.1', loopback6))).toEqual({
        status: 403,
        error: 'This API key may not be used from ::ffff:127.0.0.1',
      });
      expect(await errorOf(await get('[::1]', documentation6))).toEqual({
        status: 403,
        error: 'This API key may not be used from ::1',
      });
    });

    it('ignores X-Forwarded-For from a proxy that is not trusted', async () => {
      const app = await start();
      const remote = await withAllowlist(app, ['203.0.113.0/24']);
      const local = await withAllowlist(app, ['127.0.0.1']);
      const forwarded = { 'x-forwarded-for': '203.0.113.5' };
      expect(
        await errorOf(await app.request('GET', jobsPath(app), { key: remote, headers: forwarded })),
      ).toEqual({ status: 403, error: 'This API key may not be used from 127.0.0.1' });
      expect((await app.request('GET', jobsPath(app), { key: local, headers: forwarded })).status).toBe(200);
    });

    it('believes X-Forwarded-For as far as DOCWRIGHT_TRUSTED_PROXIES vouch for it, and checks every request', async () => {
      const app = await start({ DOCWRIGHT_TRUSTED_PROXIES: 'loopback' });
      const remote = await withAllowlist(app, ['203.0.113.0/24', '2001:db8::/32']);
      const from = (chain: string) =>
        app.request('GET', jobsPath(app), { key: remote, headers: { 'x-forwarded-for': chain } });
      expect((await from('203.0.113.5')).status).toBe(200);
      expect((await from('2001:db8::5')).status).toBe(200);
      // Verified a moment ago and trusted from memory, yet the address is checked again.
      expect(await errorOf(await from('198.51.100.1'))).toEqual({
        status: 403,
        error: 'This API key may not be used from 198.51.100.1',
      });
      // The client may write anything to the left; only what a trusted proxy added counts.
      expect(await errorOf(await from('203.0.113.5, 198.51.100.1'))).toEqual({
        status: 403,
        error: 'This API key may not be used from 198.51.100.1',
      });
      // Without the header, the proxy itself (loopback) is the client.
      expect(await errorOf(await app.request('GET', jobsPath(app), { key: remote }))).toEqual({
        status: 403,
        error: 'This API key may not be used from 127.0.0.1',
      });
    });

    it('does not count a refused request as a use of the key', async () => {
      const app = await start();
      const { key, info } = await app.services.keys.create(app.project.id, {
        name: 'office',
        scope: 'admin',
        allowedIps: ['203.0.113.0/24'],
      });
      expect((await app.request('GET', jobsPath(app), { key })).status).toBe(403);
      const [listed] = (await app.services.keys.list(app.project.id)).filter((k) => k.id === info.id);
      expect(listed?.lastUsedAt).toBeNull();
    });
  });

  describe('revoking', () => {
    it("within a project finds only that project's keys", async () => {
      const app = await start();
      const other = await app.services.projects.create({
        name: 'Other',
        repository: 'https://example.com/o.git',
      });
      const { key, info } = await app.services.keys.create(app.project.id, 'ci');
      await expect(app.services.keys.revoke(info.id, { projectId: other.id })).rejects.toThrow(
        new DomainError('not_found', `API key ${info.id} not found`),
      );
      expect((await app.request('GET', jobsPath(app), { key })).status).toBe(200);
      const revoked = await app.services.keys.revoke(info.id, { projectId: app.project.id });
      expect(revoked.revokedAt).toBe(now.toISOString());
      expect((await app.request('GET', jobsPath(app), { key })).status).toBe(401);
      // Again: nothing changes, and the answer says when it was revoked.
      expect(await app.services.keys.revoke(info.id, { projectId: app.project.id })).toEqual(revoked);
    });
  });

  describe('read keys', () => {
    it('read everything and change nothing: 403 naming the scope', async () => {
      const app = await start();
      const { key } = await app.services.keys.create(app.project.id, { name: 'dashboards', scope: 'read' });
      const p = app.project.id;
      expect((await app.request('GET', `/v2/agent/${p}/jobs`, { key })).status).toBe(200);
      expect((await app.request('GET', `/v1/analytics/${p}/settings`, { key })).status).toBe(200);
      const refused = 'An API key with scope "read" cannot call this endpoint';
      expect(
        await errorOf(
          await app.request('POST', `/v2/agent/${p}/job`, { key, body: { prompt: 'Add a page' } }),
        ),
      ).toEqual({ status: 403, error: refused });
      expect(
        await errorOf(
          await app.request('PATCH', `/v1/analytics/${p}/settings`, {
            key,
            body: { countAiCrawlersAsAi: true },
          }),
        ),
      ).toEqual({ status: 403, error: refused });
      expect((await app.services.jobs.list(p, { limit: 10 })).jobs).toEqual([]);
    });
  });
});

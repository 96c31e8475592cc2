import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/domain/clock.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { signIn, signInAs } from '../../helpers/dashboard-session.ts';
import { testBackend } from '../../helpers/storage.ts';

const SESSION_PATH = '/dashboard/api/session';

describe(`dashboard sessions (${testBackend})`, () => {
  let t: TestApp | null = null;
  afterEach(async () => {
    await t?.close();
    t = null;
  });

  /** A moving clock for expiry and rate-limit windows. */
  const movableClock = () => {
    const state = { now: Date.parse('2026-03-02T09:00:00.000Z') };
    const clock: Clock = () => new Date(state.now);
    return { clock, advance: (seconds: number) => (state.now += seconds * 1000) };
  };

  const post = (app: TestApp, path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${app.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin', ...headers },
      body: JSON.stringify(body),
    });
  const get = (app: TestApp, path: string, headers: Record<string, string> = {}) =>
    fetch(`${app.baseUrl}${path}`, { headers });

  it('signs in with a cookie, shows the session and its CSRF token, and signs out', async () => {
    t = await startTestApp();
    const user = await t.services.users.create({
      email: 'Ada@Example.com',
      password: 'correct horse battery',
      role: 'admin',
    });
    expect(user.email).toBe('ada@example.com');

    const response = await post(t, SESSION_PATH, {
      email: ' ADA@example.com',
      password: 'correct horse battery',
    });
    expect(response.status).toBe(200);
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(
      /^docwright_session=dws_[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800$/,
    );
    const body = (await response.json()) as { user: unknown; csrfToken: string; expiresAt: string };
    expect(body).toEqual({
      user: { id: user.id, email: 'ada@example.com', role: 'admin', createdAt: user.createdAt },
      csrfToken: expect.stringMatching(/^[\w-]{43}$/),
      expiresAt: expect.any(String),
    });
    expect(Date.parse(body.expiresAt) - Date.now()).toBeGreaterThan(7 * 24 * 3600 * 1000 - 60_000);
    const pair = cookie.split(';')[0] ?? '';
    const token = pair.slice('docwright_session='.length);
    // Only the token's hash is stored, and the CSRF token is not the session token.
    const rows = await t.services.storage.db.selectFrom('sessions').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]).toMatchObject({ user_id: user.id, project_id: null, api_key_id: null });
    expect(body.csrfToken).not.toContain(token.slice(4, 20));

    const shown = await get(t, SESSION_PATH, { cookie: pair });
    expect(shown.status).toBe(200);
    expect(await shown.json()).toEqual(body);
    expect((await t.services.users.get(user.id)).lastSignInAt).toEqual(expect.any(String));

    // Signing out needs the CSRF token too.
    const forged = await fetch(`${t.baseUrl}${SESSION_PATH}`, {
      method: 'DELETE',
      headers: { cookie: pair, 'sec-fetch-site': 'same-origin' },
    });
    expect(forged.status).toBe(403);
    const out = await fetch(`${t.baseUrl}${SESSION_PATH}`, {
      method: 'DELETE',
      headers: { cookie: pair, 'x-csrf-token': body.csrfToken, 'sec-fetch-site': 'same-origin' },
    });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toBe(
      'docwright_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0',
    );
    const after = await get(t, SESSION_PATH, { cookie: pair });
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ error: expect.stringMatching(/sign in again/) });
  });

  it('marks the cookie Secure when the public URL is https', async () => {
    t = await startTestApp({ env: { DOCWRIGHT_PUBLIC_URL: 'https://docwright.example.com' } });
    await t.services.users.create({ email: 'a@example.com', password: 'a long password', role: 'viewer' });
    const response = await post(t, SESSION_PATH, { email: 'a@example.com', password: 'a long password' });
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toMatch(/; Secure$/);
  });

  it('answers a wrong password and an unknown email alike', async () => {
    t = await startTestApp();
    await t.services.users.create({
      email: 'ada@example.com',
      password: 'correct horse battery',
      role: 'owner',
    });
    const wrongPassword = await post(t, SESSION_PATH, {
      email: 'ada@example.com',
      password: 'wrong password!',
    });
    const unknownEmail = await post(t, SESSION_PATH, {
      email: 'bob@example.com',
      password: 'correct horse battery',
    });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    const a = (await wrongPassword.json()) as { error: string };
    const b = (await unknownEmail.json()) as { error: string };
    expect(a.error).toBe('Wrong email or password');
    expect(b.error).toBe(a.error);
    expect(wrongPassword.headers.get('set-cookie')).toBeNull();
    expect(unknownEmail.headers.get('set-cookie')).toBeNull();
    // An account that has no password yet cannot be signed in to with any password.
    await t.services.users.create({ email: 'new@example.com', role: 'viewer' });
    expect(
      (await post(t, SESSION_PATH, { email: 'new@example.com', password: 'anything at all' })).status,
    ).toBe(401);
  });

  it('limits failed sign-ins per account, then lets the account in after the window', async () => {
    const { clock, advance } = movableClock();
    t = await startTestApp({ clock, signInLimits: { perAccount: 3, perAddress: 100 } });
    await t.services.users.create({
      email: 'ada@example.com',
      password: 'correct horse battery',
      role: 'owner',
    });
    const attempt = (password: string, email = 'ada@example.com') =>
      post(t as TestApp, SESSION_PATH, { email, password });
    for (let i = 0; i < 3; i++) expect((await attempt('wrong password!')).status).toBe(401);
    // Over the limit: refused before the password is checked, even the right one.
    const limited = await attempt('correct horse battery');
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(((await limited.json()) as { error: string }).error).toMatch(
      /^Too many failed sign-ins for this account; try again in \d+ s$/,
    );
    // The email is counted however it is written, and another account is not affected.
    expect((await attempt('correct horse battery', 'ADA@example.com ')).status).toBe(429);
    await t.services.users.create({ email: 'bob@example.com', password: 'another long one', role: 'viewer' });
    expect((await attempt('another long one', 'bob@example.com')).status).toBe(200);
    // Unknown emails are counted the same way, so the limit tells nothing about which exist.
    for (let i = 0; i < 3; i++)
      expect((await attempt('whatever it is', 'nobody@example.com')).status).toBe(401);
    expect((await attempt('whatever it is', 'nobody@example.com')).status).toBe(429);

    advance(retryAfter);
    expect((await attempt('correct horse battery')).status).toBe(200);
    // Emails are not stored in the rate-limit table, only their hashes.
    const buckets = await t.services.storage.db.selectFrom('rate_limit_windows').select('bucket').execute();
    expect(JSON.stringify(buckets)).not.toContain('example.com');
  });

  it('limits failed sign-ins per client address, across accounts', async () => {
    const { clock, advance } = movableClock();
    t = await startTestApp({
      clock,
      signInLimits: { perAccount: 100, perAddress: 4 },
      // Behind a proxy on this machine: the client is X-Forwarded-For's.
      env: { DOCWRIGHT_TRUSTED_PROXIES: 'loopback' },
    });
    await t.services.users.create({
      email: 'ada@example.com',
      password: 'correct horse battery',
      role: 'owner',
    });
    const from = (ip: string, email: string, password: string) =>
      post(t as TestApp, SESSION_PATH, { email, password }, { 'x-forwarded-for': ip });
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com']) {
      expect((await from('203.0.113.7', email, 'wrong password!')).status).toBe(401);
    }
    const limited = await from('203.0.113.7', 'ada@example.com', 'correct horse battery');
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { error: string }).error).toMatch(/from this address/);
    // Another address is not affected.
    expect((await from('198.51.100.2', 'ada@example.com', 'correct horse battery')).status).toBe(200);
    advance(15 * 60);
    expect((await from('203.0.113.7', 'ada@example.com', 'correct horse battery')).status).toBe(200);
  });

  it('ends a session 24 hours unused and 7 days after sign-in, however much it is used', async () => {
    const { clock, advance } = movableClock();
    t = await startTestApp({ clock });
    const status = async (cookie: string) => (await get(t as TestApp, SESSION_PATH, { cookie })).status;

    const idle = await signIn(t, { role: 'viewer' });
    advance(24 * 3600 - 60);
    expect(await status(idle.cookie)).toBe(200); // used: the idle clock starts again
    advance(24 * 3600 - 60);
    expect(await status(idle.cookie)).toBe(200);
    advance(24 * 3600);
    expect(await status(idle.cookie)).toBe(401);

    const busy = await signIn(t, { role: 'viewer' });
    for (let day = 0; day < 7; day++) {
      advance(23 * 3600);
      expect(await status(busy.cookie)).toBe(200);
    }
    advance(7 * 24 * 3600 - 7 * 23 * 3600 - 60);
    expect(await status(busy.cookie)).toBe(200);
    advance(120);
    expect(await status(busy.cookie)).toBe(401);
  });

  it('signs out everywhere: every session of the account ends, not those of others', async () => {
    t = await startTestApp();
    const first = await signIn(t, { role: 'viewer', email: 'ada@example.com' });
    const second = await signInAs(t, first.email, first.password);
    const other = await signIn(t, { role: 'viewer' });
    const everywhere = await first.request('POST', '/dashboard/api/session/sign-out-everywhere');
    expect(everywhere.status).toBe(204);
    expect(everywhere.headers.get('set-cookie')).toMatch(/^docwright_session=; .*Max-Age=0/);
    for (const session of [first, second]) {
      expect((await session.request('GET', SESSION_PATH)).status).toBe(401);
    }
    expect((await other.request('GET', SESSION_PATH)).status).toBe(200);
    // And signing in again works.
    expect((await signInAs(t, first.email, first.password)).cookie).not.toBe(first.cookie);
  });

  it('refuses a state-changing request without the CSRF token, with a wrong one, or from another site', async () => {
    t = await startTestApp();
    const admin = await signIn(t, { role: 'admin' });
    const other = await signIn(t, { role: 'admin' });
    const path = `/v2/agent/${t.project.id}/job`;
    const create = (headers: Record<string, string | undefined>) =>
      admin.request('POST', `/dashboard/api${path}`, { body: { prompt: 'Add a page' }, headers });

    const refusals = {
      missing: await create({ 'x-csrf-token': undefined }),
      wrong: await create({ 'x-csrf-token': 'A'.repeat(43) }),
      anotherSessions: await create({ 'x-csrf-token': other.csrfToken }),
      crossSite: await create({ 'sec-fetch-site': 'cross-site' }),
      sameSiteNotOrigin: await create({ 'sec-fetch-site': 'same-site' }),
      foreignOrigin: await create({ 'sec-fetch-site': undefined, origin: 'https://evil.example' }),
    };
    for (const [name, response] of Object.entries(refusals)) {
      expect({ name, status: response.status }).toEqual({ name, status: 403 });
    }
    expect(((await refusals.missing.json()) as { error: string }).error).toMatch(/X-CSRF-Token/);
    expect(((await refusals.crossSite.json()) as { error: string }).error).toMatch(/another site/);
    expect((await t.services.jobs.list(t.project.id, { limit: 10 })).jobs).toHaveLength(0);

    // The same request from the dashboard itself works; an Origin of this host does too.
    expect((await create({})).status).toBe(201);
    const host = new URL(t.baseUrl).host;
    expect((await create({ 'sec-fetch-site': undefined, origin: `http://${host}` })).status).toBe(201);
    // Reads need no CSRF token.
    expect(
      (await admin.request('GET', `/dashboard/api${path}s`, { headers: { 'x-csrf-token': undefined } }))
        .status,
    ).toBe(200);
  });

  it('keeps the doors apart: a key does not open the dashboard, a cookie does not open the API', async () => {
    t = await startTestApp();
    const owner = await signIn(t, { role: 'owner' });
    const jobs = `/v2/agent/${t.project.id}/jobs`;
    // A bearer key on a dashboard route: 401, even with a valid session beside it.
    const byKey = await t.request('GET', `/dashboard/api${jobs}`);
    expect(byKey.status).toBe(401);
    expect(((await byKey.json()) as { error: string }).error).toMatch(/API keys do not open the dashboard/);
    expect(
      (await t.request('GET', '/dashboard/api/projects', { headers: { cookie: owner.cookie } })).status,
    ).toBe(401);
    // A session cookie on the public API: 401 without a bearer key.
    const byCookie = await t.request('GET', jobs, { key: null, headers: { cookie: owner.cookie } });
    expect(byCookie.status).toBe(401);
    const analytics = await t.request('GET', `/v1/analytics/${t.project.id}/visitors`, {
      key: null,
      headers: { cookie: owner.cookie },
    });
    expect(analytics.status).toBe(401);
    // Without anything: 401 on the dashboard.
    expect((await fetch(`${t.baseUrl}/dashboard/api/projects`)).status).toBe(401);
  });

  it('never shows or logs a password', async () => {
    const lines: string[] = [];
    t = await startTestApp({ log: (line) => lines.push(line) });
    const password = 'unmistakable-secret-passphrase';
    const owner = await signIn(t, { role: 'owner' });
    const created = await owner.request('POST', '/dashboard/api/users', {
      body: { email: 'ada@example.com', password, role: 'admin' },
    });
    expect(created.status).toBe(201);
    const createdText = await created.text();
    const signedIn = await post(t, SESSION_PATH, { email: 'ada@example.com', password });
    const wrong = await post(t, SESSION_PATH, { email: 'ada@example.com', password: `${password}!` });
    const short = await owner.request('POST', '/dashboard/api/users', {
      body: { email: 'bob@example.com', password: 'short-secret', role: 'admin' },
    });
    const tooShort = await owner.request('POST', '/dashboard/api/users', {
      body: { email: 'bob@example.com', password: 'tiny-secret', role: 'admin' },
    });
    expect(short.status).toBe(201);
    expect(tooShort.status).toBe(400);
    const tooShortText = await tooShort.text();
    expect(tooShortText).toMatch(/password must be at least 12 characters/);
    const listed = await owner.request('GET', '/dashboard/api/users');
    const texts = [createdText, await signedIn.text(), await wrong.text(), tooShortText, await listed.text()];
    for (const text of [...texts, ...lines]) {
      expect(text).not.toContain(password);
      expect(text).not.toContain('tiny-secret');
      expect(text).not.toContain('scrypt$');
    }
    expect(lines.length).toBeGreaterThan(0);
  });

  it('lets an account change its own password: the current one is checked, other sessions end', async () => {
    t = await startTestApp({ signInLimits: { perAccount: 2 } });
    const viewer = await signIn(t, { role: 'viewer', password: 'the first password' });
    const elsewhere = await signInAs(t, viewer.email, 'the first password');
    const change = (currentPassword: string, password: string) =>
      viewer.request('POST', '/dashboard/api/session/password', { body: { currentPassword, password } });

    const wrong = await change('not the password', 'the second password');
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({
      error: 'currentPassword is not the password of this account',
    });
    const short = await change('the first password', 'too short');
    expect(short.status).toBe(400);
    expect(await short.json()).toMatchObject({ error: expect.stringMatching(/at least 12 characters/) });
    expect((await change('the first password', 'the second password')).status).toBe(204);
    expect((await viewer.request('GET', SESSION_PATH)).status).toBe(200);
    expect((await elsewhere.request('GET', SESSION_PATH)).status).toBe(401);
    await signInAs(t, viewer.email, 'the second password');
    // Wrong current passwords count like failed sign-ins.
    expect((await change('wrong again', 'the third password')).status).toBe(400);
    expect((await change('the second password', 'the third password')).status).toBe(429);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockOwnerIds, updateUser } from '../../../src/storage/queries/users.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { type DashboardSession, signIn, signInAs } from '../../helpers/dashboard-session.ts';
import { testBackend } from '../../helpers/storage.ts';

interface UserBody {
  id: string;
  email: string;
  role: string;
  createdAt: string;
  lastSignInAt: string | null;
  hasPassword: boolean;
}

describe(`dashboard accounts (${testBackend})`, () => {
  let t: TestApp;
  let owner: DashboardSession;
  beforeEach(async () => {
    t = await startTestApp();
    owner = await signIn(t, { role: 'owner', email: 'owner@example.com' });
  });
  afterEach(() => t.close());

  const error = async (response: Response) => ((await response.json()) as { error: string }).error;

  it('lets an owner create, list, change and delete accounts', async () => {
    const created = await owner.request('POST', '/dashboard/api/users', {
      body: { email: 'Ada@Example.com', password: 'correct horse battery', role: 'admin' },
    });
    expect(created.status).toBe(201);
    const ada = (await created.json()) as UserBody;
    expect(ada).toEqual({
      id: expect.stringMatching(/^usr_[0-9a-z]{26}$/),
      email: 'ada@example.com',
      role: 'admin',
      createdAt: expect.any(String),
      lastSignInAt: null,
      hasPassword: true,
    });
    const taken = await owner.request('POST', '/dashboard/api/users', {
      body: { email: 'ADA@example.com', role: 'viewer' },
    });
    expect(taken.status).toBe(409);
    expect(await error(taken)).toBe('An account with email ada@example.com already exists');
    const invalid = await owner.request('POST', '/dashboard/api/users', {
      body: { email: 'ada', role: 'viewer', extra: true },
    });
    expect(invalid.status).toBe(400);
    expect(await error(invalid)).toMatch(/unknown field "extra"/);
    const badEmail = await owner.request('POST', '/dashboard/api/users', {
      body: { email: 'ada', role: 'viewer' },
    });
    expect(badEmail.status).toBe(400);
    expect(await error(badEmail)).toBe('email must be an email address like name@example.com');
    const badRole = await owner.request('POST', '/dashboard/api/users', {
      body: { email: 'x@example.com', role: 'root' },
    });
    expect(badRole.status).toBe(400);
    expect(await error(badRole)).toMatch(/role must be one of owner, admin, viewer/);

    const list = (await (await owner.request('GET', '/dashboard/api/users')).json()) as { users: UserBody[] };
    expect(list.users.map((u) => [u.email, u.role])).toEqual([
      ['owner@example.com', 'owner'],
      ['ada@example.com', 'admin'],
    ]);
    expect(list.users[0]?.lastSignInAt).toEqual(expect.any(String));

    const changed = await owner.request('PATCH', `/dashboard/api/users/${ada.id}`, {
      body: { role: 'viewer' },
    });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ id: ada.id, role: 'viewer' });
    // The new role applies to a session at once.
    const session = await signInAs(t, 'ada@example.com', 'correct horse battery');
    expect((await session.request('GET', '/dashboard/api/session')).status).toBe(200);
    expect(
      (await session.request('PATCH', `/dashboard/api/projects/${t.project.id}/settings`, { body: {} }))
        .status,
    ).toBe(403);
    await owner.request('PATCH', `/dashboard/api/users/${ada.id}`, { body: { role: 'admin' } });
    expect(
      (await session.request('PATCH', `/dashboard/api/projects/${t.project.id}/settings`, { body: {} }))
        .status,
    ).toBe(200);

    const deleted = await owner.request('DELETE', `/dashboard/api/users/${ada.id}`);
    expect(deleted.status).toBe(204);
    expect((await session.request('GET', '/dashboard/api/session')).status).toBe(401);
    expect((await owner.request('DELETE', `/dashboard/api/users/${ada.id}`)).status).toBe(404);
    expect(
      (await owner.request('PATCH', '/dashboard/api/users/usr_nope', { body: { role: 'viewer' } })).status,
    ).toBe(404);
    const rows = await t.services.storage.db
      .selectFrom('sessions')
      .selectAll()
      .where('user_id', '=', ada.id)
      .execute();
    expect(rows).toEqual([]);
  });

  it('keeps the last owner: it can be neither deleted nor demoted', async () => {
    const demote = await owner.request('PATCH', `/dashboard/api/users/${owner.userId}`, {
      body: { role: 'admin' },
    });
    expect(demote.status).toBe(409);
    expect(await error(demote)).toMatch(/last owner account/);
    const remove = await owner.request('DELETE', `/dashboard/api/users/${owner.userId}`);
    expect(remove.status).toBe(409);
    expect((await owner.request('GET', '/dashboard/api/session')).status).toBe(200);

    // With a second owner, the first may step down, and then the second is the last.
    const second = await t.services.users.create({ email: 'second@example.com', role: 'owner' });
    const steppedDown = await owner.request('PATCH', `/dashboard/api/users/${owner.userId}`, {
      body: { role: 'admin' },
    });
    expect(steppedDown.status).toBe(200);
    // Now an admin: no longer manages accounts.
    expect((await owner.request('GET', '/dashboard/api/users')).status).toBe(403);
    await expect(t.services.users.delete(second.id)).rejects.toThrow(/last owner/);
    await expect(t.services.users.update(second.id, { role: 'viewer' })).rejects.toThrow(/last owner/);
  });

  it('keeps one owner when two owners are demoted at the same time', async () => {
    const other = await t.services.users.create({ email: 'other@example.com', role: 'owner' });
    const { db, dialect } = t.services.storage;
    // One demotion holds its transaction open after checking the owners and demoting its own;
    // the other starts meanwhile and must see, once it may look, that one owner is left.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let checked = () => {};
    const inside = new Promise<void>((resolve) => {
      checked = resolve;
    });
    const first = db.transaction().execute(async (tx) => {
      expect(await lockOwnerIds(tx, dialect)).toHaveLength(2);
      await updateUser(tx, owner.userId, { role: 'viewer' });
      checked();
      await held;
    });
    await inside;
    // Settled at once into a value, so its refusal is never an unhandled rejection meanwhile.
    const second = t.services.users.update(other.id, { role: 'viewer' }).then(
      () => 'demoted',
      (error: Error) => error.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    await first;
    expect(await second).toMatch(/last owner account/);
    expect((await t.services.users.list()).filter((u) => u.role === 'owner').map((u) => u.id)).toEqual([
      other.id,
    ]);
  });

  it('a new password ends the sessions of the account, but the caller keeps its own', async () => {
    const admin = await signIn(t, { role: 'admin' });
    const adminElsewhere = await signInAs(t, admin.email, admin.password);
    const reset = await owner.request('PATCH', `/dashboard/api/users/${admin.userId}`, {
      body: { password: 'a fresh passphrase' },
    });
    expect(reset.status).toBe(200);
    for (const session of [admin, adminElsewhere]) {
      expect((await session.request('GET', '/dashboard/api/session')).status).toBe(401);
    }
    await signInAs(t, admin.email, 'a fresh passphrase');

    const ownerElsewhere = await signInAs(t, owner.email, owner.password);
    const own = await owner.request('PATCH', `/dashboard/api/users/${owner.userId}`, {
      body: { password: 'my own new passphrase' },
    });
    expect(own.status).toBe(200);
    expect((await owner.request('GET', '/dashboard/api/session')).status).toBe(200);
    expect((await ownerElsewhere.request('GET', '/dashboard/api/session')).status).toBe(401);
    const short = await owner.request('PATCH', `/dashboard/api/users/${owner.userId}`, {
      body: { password: 'short' },
    });
    expect(short.status).toBe(400);
    expect(await error(short)).toMatch(/password must be at least 12 characters/);
  });

  it('makes one-time sign-in links that set up a new account', async () => {
    const invited = (await (
      await owner.request('POST', '/dashboard/api/users', {
        body: { email: 'new@example.com', role: 'viewer' },
      })
    ).json()) as UserBody;
    expect(invited.hasPassword).toBe(false);
    const made = await owner.request('POST', `/dashboard/api/users/${invited.id}/sign-in-link`);
    expect(made.status).toBe(201);
    const { url, expiresAt } = (await made.json()) as { url: string; expiresAt: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:0\/sign-in\/link#token=dwl_[\w-]{43}$/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(24 * 3600 * 1000 - 60_000);
    const token = url.split('#token=')[1] ?? '';
    // Only the hash is stored.
    const rows = await t.services.storage.db.selectFrom('sign_in_links').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(token);
    expect((await owner.request('POST', '/dashboard/api/users/usr_nope/sign-in-link')).status).toBe(404);

    const redeem = (body: Record<string, string>) =>
      fetch(`${t.baseUrl}/dashboard/api/sign-in-links/redeem`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const withoutPassword = await redeem({ token, email: 'new@example.com' });
    expect(withoutPassword.status).toBe(400);
    expect(await error(withoutPassword)).toMatch(/give the email and the password/);
    // The refused redemption left the link unused.
    const used = await redeem({ token, email: 'new@example.com', password: 'my first passphrase' });
    expect(used.status).toBe(200);
    expect(await used.json()).toMatchObject({
      user: { id: invited.id, email: 'new@example.com', role: 'viewer' },
    });
    expect(used.headers.get('set-cookie')).toMatch(/^docwright_session=dws_/);
    const again = await redeem({ token, email: 'new@example.com', password: 'my first passphrase' });
    expect(again.status).toBe(401);
    expect(await error(again)).toMatch(/used already, has expired/);
    expect((await redeem({ token: 'dwl_nope' })).status).toBe(401);
    await signInAs(t, 'new@example.com', 'my first passphrase');
  });

  it('a link for an account with a password signs in, may set a new one, and expires after 24 hours', async () => {
    await t.close();
    let now = Date.parse('2026-03-02T09:00:00.000Z');
    t = await startTestApp({ clock: () => new Date(now) });
    const ada = await signIn(t, { role: 'admin', email: 'ada@example.com', password: 'the old passphrase' });
    const redeem = (body: Record<string, string>) =>
      fetch(`${t.baseUrl}/dashboard/api/sign-in-links/redeem`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    const first = await t.services.signInLinks.create(ada.userId);
    const otherEmail = await redeem({ token: first.token, email: 'bob@example.com' });
    expect(otherEmail.status).toBe(400);
    expect(await error(otherEmail)).toBe('This sign-in link is for another email address');
    const reset = await redeem({
      token: first.token,
      email: 'ADA@example.com',
      password: 'the new passphrase',
    });
    expect(reset.status).toBe(200);
    // The new password ended the sessions opened with the old one.
    expect((await ada.request('GET', '/dashboard/api/session')).status).toBe(401);
    await signInAs(t, 'ada@example.com', 'the new passphrase');

    const plain = await t.services.signInLinks.create(ada.userId);
    expect((await redeem({ token: plain.token })).status).toBe(200);
    expect((await t.services.users.verifyCredentials('ada@example.com', 'the new passphrase'))?.id).toBe(
      ada.userId,
    );

    const late = await t.services.signInLinks.create(ada.userId);
    now += 24 * 3600 * 1000 - 1000;
    const soon = await t.services.signInLinks.create(ada.userId);
    now += 2000;
    expect((await redeem({ token: late.token })).status).toBe(401);
    expect((await redeem({ token: soon.token })).status).toBe(200);
  });
});

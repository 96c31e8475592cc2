import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { signInAs } from '../../helpers/dashboard-session.ts';
import { testBackend } from '../../helpers/storage.ts';
import { fetchInPage, launchChromium, openDashboard, signInThroughForm } from './browser.ts';

describe(`dashboard sign-in in Chromium (${testBackend})`, () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const account = async (role: 'owner' | 'admin' | 'viewer' = 'owner') => {
    const email = `${role}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const password = 'a long enough password';
    const user = await t.services.users.create({ email, password, role });
    return { ...user, password };
  };

  it('signs in with the email and password form, comes back to the page asked for, and signs out', async () => {
    const me = await account();
    const { page, context, errors } = await openDashboard(browser, t);
    await page.goto(`/projects/${t.project.id}/settings`);
    await page.waitForURL(/\/sign-in\?next=/);
    // What a password manager looks for.
    expect(await page.locator('form input[type=email][autocomplete=username]').count()).toBe(1);
    expect(await page.locator('form input[type=password][autocomplete=current-password]').count()).toBe(1);

    await page.locator('input[type=email]').fill(me.email);
    await page.locator('input[type=password]').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /email or password/i })
      .waitFor();

    await page.locator('input[type=password]').fill(me.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`**/projects/${t.project.id}/settings`);
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'docwright_session')).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
    });

    await page.getByRole('button', { name: /account menu/ }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL('**/sign-in');
    expect((await fetchInPage(page, 'GET', '/dashboard/api/session', { csrf: false })).status).toBe(401);
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  });

  it('signs out everywhere: the other browser is sent to sign-in at its next request', async () => {
    const me = await account('viewer');
    const first = await openDashboard(browser, t);
    const second = await openDashboard(browser, t);
    await signInThroughForm(first.page, me.email, me.password);
    await signInThroughForm(second.page, me.email, me.password);

    await first.page.getByRole('button', { name: /account menu/ }).click();
    await first.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await first.page.waitForURL('**/sign-in');

    // Its next request (the settings it has not loaded yet) is refused, and it asks to sign in again.
    // (Opened by address: a link in its navigation may already be gone if a background refresh
    // was refused first.)
    await second.page.goto(`/projects/${t.project.id}/settings`);
    await second.page.waitForURL(/\/sign-in\?next=%2Fprojects%2F[^%]+%2Fsettings/);
    await second.page.getByRole('heading', { name: 'Sign in to Docwright' }).waitFor();
    await first.context.close();
    await second.context.close();
  });

  it('redeems a one-time link: sets the email and password, signs in, and takes the token out of the address', async () => {
    const fresh = await t.services.users.create({ email: 'first@example.com', role: 'owner' });
    const link = await t.services.signInLinks.create(fresh.id);
    const { page, context } = await openDashboard(browser, t);
    await page.goto(`/sign-in/link#token=${link.token}`);
    await page.getByRole('heading', { name: 'Set your email and password' }).waitFor();
    expect(page.url()).not.toContain(link.token);

    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('New password').fill('short');
    await page.getByLabel('Repeat the password').fill('short');
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.getByText('Use at least 12 characters.').waitFor();

    await page.getByLabel('New password').fill('the new owner password');
    await page.getByLabel('Repeat the password').fill('the new owner password');
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.waitForURL(`**/projects/${t.project.id}/jobs`);
    await page.getByRole('button', { name: /owner@example\.com/ }).waitFor();
    await context.close();

    // The password works from now on, and the link does not work twice.
    const session = await signInAs(t, 'owner@example.com', 'the new owner password');
    expect(session.csrfToken).toEqual(expect.any(String));
    const again = await openDashboard(browser, t);
    await again.page.goto(`/sign-in/link#token=${link.token}`);
    await again.page.getByLabel('Email').fill('owner@example.com');
    await again.page.getByLabel('New password').fill('yet another password');
    await again.page.getByLabel('Repeat the password').fill('yet another password');
    await again.page.getByRole('button', { name: 'Save and sign in' }).click();
    await again.page.getByRole('alert').filter({ hasText: /link/i }).waitFor();
    expect(again.page.url()).toContain('/sign-in/link');
    await again.context.close();
  });

  it('refuses a state change without the CSRF token, even from the signed-in page', async () => {
    const me = await account('admin');
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, me.email, me.password);
    const url = `/dashboard/api/projects/${t.project.id}/settings`;
    const forged = await fetchInPage(page, 'PATCH', url, { body: { agent: { draft: false } }, csrf: false });
    expect(forged.status).toBe(403);
    expect(forged.body).toMatchObject({ error: expect.stringMatching(/CSRF/i) });
    const real = await fetchInPage(page, 'PATCH', url, { body: { agent: { draft: false } } });
    expect(real.status).toBe(200);
    await context.close();
  });
});

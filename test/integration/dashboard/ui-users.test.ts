import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { signInAs } from '../../helpers/dashboard-session.ts';
import { testBackend } from '../../helpers/storage.ts';
import { inPage, launchChromium, openDashboard, signInThroughForm } from './browser.ts';

const PASSWORD = 'a long enough password';

describe(`dashboard users in Chromium (${testBackend})`, () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchChromium();
    await t.services.users.create({ email: 'owner@example.com', password: PASSWORD, role: 'owner' });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('adds an account without a password and hands it a sign-in link, with which it signs in as a viewer', async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'owner@example.com', PASSWORD);
    await page.getByRole('navigation').getByRole('link', { name: 'Users' }).click();
    await page.getByRole('button', { name: 'Add user' }).click();
    const add = page.getByRole('dialog', { name: 'Add a user' });
    await add.getByLabel('Email').fill('new@example.com');
    expect(await add.getByLabel('Role').inputValue()).toBe('viewer');
    await add.getByRole('button', { name: 'Add user' }).click();

    const linkDialog = page.getByRole('dialog', { name: 'One-time sign-in link' });
    await linkDialog.getByText('new@example.com has no password yet').waitFor();
    await linkDialog.getByRole('button', { name: 'Make the link' }).click();
    await linkDialog.getByRole('button', { name: 'Copy the sign-in link' }).click();
    const url = await inPage<string>(page, 'navigator.clipboard.readText()');
    expect(url).toMatch(/\/sign-in\/link#token=dwl_/);
    await linkDialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('row').filter({ hasText: 'new@example.com' }).getByText('no password yet').waitFor();

    const invited = await openDashboard(browser, t);
    await invited.page.goto(`/sign-in/link${new URL(url).hash}`);
    await invited.page.getByLabel('Email').fill('new@example.com');
    await invited.page.getByLabel('New password').fill('the invited password');
    await invited.page.getByLabel('Repeat the password').fill('the invited password');
    await invited.page.getByRole('button', { name: 'Save and sign in' }).click();
    await invited.page.getByRole('button', { name: /new@example\.com/ }).waitFor();
    // A viewer is not offered the accounts page, and is told so if it goes there.
    expect(await invited.page.getByRole('navigation').getByRole('link', { name: 'Users' }).count()).toBe(0);
    await invited.page.goto('/users');
    await invited.page.getByText('Only owners manage accounts').waitFor();
    await invited.context.close();
    await context.close();
  });

  it('changes a role, resets a password, refuses to demote the last owner, and deletes after asking', async () => {
    const other = await t.services.users.create({
      email: 'other@example.com',
      password: PASSWORD,
      role: 'viewer',
    });
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'owner@example.com', PASSWORD);
    await page.goto('/users');

    await page.getByLabel('Role of other@example.com').selectOption('admin');
    await page.getByText('other@example.com is now admin').waitFor();
    expect((await t.services.users.get(other.id)).role).toBe('admin');

    await page.getByRole('button', { name: 'Reset password of other@example.com' }).click();
    const reset = page.getByRole('dialog', { name: /Reset the password/ });
    await reset.getByLabel('New password').fill('a brand new password');
    await reset.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Changed the password of other@example.com').waitFor();
    expect((await signInAs(t, 'other@example.com', 'a brand new password')).csrfToken).toEqual(
      expect.any(String),
    );

    await page.getByLabel('Role of owner@example.com').selectOption('viewer');
    await page.getByRole('alert').filter({ hasText: /owner/i }).waitFor();
    expect((await t.services.users.find('owner@example.com')).role).toBe('owner');

    await page.getByRole('button', { name: 'Delete other@example.com' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete other@example.com?' });
    await confirm.getByRole('button', { name: 'Delete user' }).click();
    await page.getByRole('row').filter({ hasText: 'other@example.com' }).waitFor({ state: 'detached' });
    await expect(t.services.users.get(other.id)).rejects.toThrow();
    await context.close();
  });

  it('changes its own password from the account menu', async () => {
    await t.services.users.create({ email: 'self@example.com', password: PASSWORD, role: 'admin' });
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'self@example.com', PASSWORD);
    await page.getByRole('button', { name: /account menu/ }).click();
    await page.getByRole('button', { name: 'Change password' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change your password' });
    await dialog.getByLabel('Current password').fill('not it at all');
    await dialog.getByLabel('New password').fill('my own new password');
    await dialog.getByRole('button', { name: 'Change password' }).click();
    await dialog.getByRole('alert').waitFor();
    await dialog.getByLabel('Current password').fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Change password' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await signInAs(t, 'self@example.com', 'my own new password')).csrfToken).toEqual(
      expect.any(String),
    );
    await context.close();
  });
});

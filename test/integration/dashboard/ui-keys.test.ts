import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/domain/clock.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import { fetchInPage, inPage, launchChromium, openDashboard, signInThroughForm } from './browser.ts';

const PASSWORD = 'a long enough password';
const DAY = 24 * 3600 * 1000;

describe(`dashboard API keys in Chromium (${testBackend})`, () => {
  let t: TestApp;
  let browser: Browser;
  // The server's clock, moved forward to let a key expire.
  let offset = 0;
  const clock: Clock = () => new Date(Date.now() + offset);
  beforeAll(async () => {
    t = await startTestApp({ clock });
    browser = await launchChromium();
    await t.services.users.create({ email: 'admin@example.com', password: PASSWORD, role: 'admin' });
    await t.services.users.create({ email: 'viewer@example.com', password: PASSWORD, role: 'viewer' });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const keysPage = (page: Page) => page.goto(`/projects/${t.project.id}/keys`);
  const clipboard = (page: Page) => inPage<string>(page, 'navigator.clipboard.readText()');

  async function createKey(
    page: Page,
    options: { name: string; scope: string; expires: string; ips?: string },
  ) {
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create an API key' });
    await dialog.getByLabel('Name').fill(options.name);
    await dialog.getByLabel('Scope').selectOption({ label: options.scope });
    expect(await dialog.getByLabel('Expires').inputValue()).toBe('90');
    await dialog.getByLabel('Expires').selectOption({ label: options.expires });
    if (options.ips) await dialog.getByLabel(/Allowed IP addresses/).fill(options.ips);
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('region', { name: 'New API key' });
    await shown.waitFor();
    expect(await shown.textContent()).toMatch(/shown only once/);
    await shown.getByRole('button', { name: 'Copy the new key' }).click();
    const key = await clipboard(page);
    expect(key).toMatch(/^dw_[A-Za-z0-9]{38}$/);
    expect(await shown.getByTestId('new-key').textContent()).toBe(key);
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    await shown.waitFor({ state: 'detached' });
    // Shown once: gone from the page for good.
    expect(await page.content()).not.toContain(key);
    return key;
  }

  it('shows the project id with a copy button', async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'viewer@example.com', PASSWORD);
    await keysPage(page);
    expect(await page.getByTestId('project-id').textContent()).toBe(t.project.id);
    await page.getByRole('button', { name: 'Copy the project id' }).click();
    expect(await clipboard(page)).toBe(t.project.id);
    await context.close();
  });

  it('creates a read-only key shown once, which the API then takes for reads and refuses for writes', async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    await keysPage(page);
    const key = await createKey(page, { name: 'CI reader', scope: 'Read-only', expires: 'In 30 days' });
    const row = page.getByRole('row').filter({ hasText: 'CI reader' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Read-only');
    expect(await row.textContent()).toContain(key.slice(-4));

    expect((await t.request('GET', `/v2/agent/${t.project.id}/jobs`, { key })).status).toBe(200);
    const write = await t.request('POST', `/v2/agent/${t.project.id}/job`, {
      key,
      body: { prompt: 'Add a page' },
    });
    expect(write.status).toBe(403);
    const info = (await t.services.keys.list(t.project.id)).find((k) => k.name === 'CI reader');
    expect(info?.expiresAt && Date.parse(info.expiresAt) - Date.now()).toBeGreaterThan(29 * DAY);
    await context.close();
  });

  it('limits a key to the addresses given, and revokes a key after asking', async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    await keysPage(page);
    const elsewhere = await createKey(page, {
      name: 'office only',
      scope: 'Admin',
      expires: 'Never',
      ips: '203.0.113.0/24',
    });
    expect((await t.request('GET', `/v2/agent/${t.project.id}/jobs`, { key: elsewhere })).status).toBe(403);

    const key = await createKey(page, { name: 'to revoke', scope: 'Admin', expires: 'In 90 days' });
    expect((await t.request('GET', `/v2/agent/${t.project.id}/jobs`, { key })).status).toBe(200);
    await page.getByRole('button', { name: 'Revoke to revoke' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke to revoke?' });
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await page.getByRole('row').filter({ hasText: 'to revoke' }).getByText('revoked').waitFor();
    expect((await t.request('GET', `/v2/agent/${t.project.id}/jobs`, { key })).status).toBe(401);
    await context.close();
  });

  it('refuses an expired key, and lists it as expired', async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    await keysPage(page);
    const key = await createKey(page, { name: 'a week', scope: 'Ingestion', expires: 'In 7 days' });
    const event = {
      events: [{ timestamp: new Date().toISOString(), path: '/a', userAgent: 'curl/8', ip: '203.0.113.9' }],
    };
    const send = () => t.request('POST', `/v1/analytics/${t.project.id}/events`, { key, body: event });
    expect((await send()).status).toBe(202);
    await context.close();

    offset += 8 * DAY;
    const expired = await send();
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({ error: expect.stringMatching(/expired/) });

    // The session ended too (24 hours unused): sign in again to see the list.
    const again = await openDashboard(browser, t);
    // The browser's clock agrees with the server's, as it would.
    await again.page.clock.setFixedTime(new Date(Date.now() + offset));
    await signInThroughForm(again.page, 'admin@example.com', PASSWORD);
    await keysPage(again.page);
    await again.page.getByRole('row').filter({ hasText: 'a week' }).getByText('expired').waitFor();
    await again.context.close();
  });

  it('gives a viewer no create button, and the server refuses the keys endpoints anyway', async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'viewer@example.com', PASSWORD);
    await keysPage(page);
    await page.getByText("Only admins see this project's keys").waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    const url = `/dashboard/api/projects/${t.project.id}/keys`;
    expect((await fetchInPage(page, 'GET', url)).status).toBe(403);
    const create = await fetchInPage(page, 'POST', url, { body: { name: 'mine', scope: 'admin' } });
    expect(create.status).toBe(403);
    await context.close();
  });
});

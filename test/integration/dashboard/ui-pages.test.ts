import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_LOAD_BUDGET_BYTES } from '../../../bench/dashboard/bundle.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import {
  expectAccessible,
  inPage,
  LOOK_TIMEOUT_MS,
  LOOKS,
  launchChromium,
  openDashboard,
  saveScreenshot,
  signInThroughForm,
} from './browser.ts';

const PASSWORD = 'a long enough password';

/**
 * Every page, on a laptop and a phone, light and dark: no serious or critical accessibility
 * violation (axe-core), no console error, and a screenshot for people to look at.
 */
describe(`dashboard pages in Chromium (${testBackend})`, () => {
  let t: TestApp;
  let browser: Browser;
  let owner: { email: string };
  beforeAll(async () => {
    // Webhook endpoints need the secret box for their signing secrets.
    t = await startTestApp({
      env: { DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=' },
    });
    browser = await launchChromium();
    owner = await t.services.users.create({ email: 'owner@example.com', password: PASSWORD, role: 'owner' });
    await t.services.users.create({ email: 'viewer@example.com', password: PASSWORD, role: 'viewer' });
    await t.services.projects.create({
      name: 'Acme API docs',
      repository: 'https://example.com/acme/api-docs.git',
    });
    // Enough data for the pages to show what they look like in use.
    await t.services.keys.create(t.project.id, {
      name: 'docs server',
      scope: 'ingest',
      expiresInDays: null,
      allowedIps: ['203.0.113.0/24'],
    });
    const old = await t.services.keys.create(t.project.id, { name: 'old CI', scope: 'read' });
    await t.services.keys.revoke(old.info.id);
    await t.services.analytics.updateSettings(t.project.id, { allowedOrigins: ['https://docs.example.com'] });
    await t.services.webhooks.create(t.project.id, {
      url: 'https://hooks.example.com/docwright/a-rather-long-path-that-must-wrap',
      events: ['job.completed', 'job.failed'],
    });
    await t.services.automations.create(t.project.id, {
      name: 'API reference follows the API',
      trigger: { kind: 'code_change', provider: 'github', repository: 'acme/api', paths: ['src/api/**'] },
      instructions: 'Update the API reference for what the pull request changed.',
    });
    await t.services.automations.create(t.project.id, {
      name: 'Weekly link check',
      trigger: { kind: 'schedule', cron: '0 9 * * 1', timezone: 'Europe/Paris' },
      instructions: 'Find broken links, outdated versions and pages no navigation reaches.',
      enabled: false,
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const pages = () => [
    { name: 'projects', path: '/projects', heading: 'Projects' },
    { name: 'keys', path: `/projects/${t.project.id}/keys`, heading: 'API keys' },
    { name: 'webhooks', path: `/projects/${t.project.id}/webhooks`, heading: 'Webhooks' },
    { name: 'automations', path: `/projects/${t.project.id}/automations`, heading: 'Automations' },
    { name: 'settings', path: `/projects/${t.project.id}/settings`, heading: 'Settings' },
    { name: 'users', path: '/users', heading: 'Users' },
    { name: 'jobs', path: `/projects/${t.project.id}/jobs`, heading: 'Jobs' },
    { name: 'analytics', path: `/projects/${t.project.id}/analytics`, heading: 'Analytics' },
    { name: 'not-found', path: '/no/such/page', heading: 'Page not found' },
  ];

  /** Waits for the page's heading and for its data (no spinner left). */
  async function settle(page: Page, heading: string) {
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    // Polled from here: a predicate evaluated in the page would need eval, which its CSP refuses.
    await expect.poll(() => page.locator('.state--loading').count(), { timeout: 10_000 }).toBe(0);
  }

  for (const { device, viewport, scheme } of LOOKS) {
    it(`every page on a ${device}, ${scheme}`, { timeout: LOOK_TIMEOUT_MS }, async () => {
      const { page, context, errors } = await openDashboard(browser, t, { viewport, colorScheme: scheme });
      const shot = (name: string) => saveScreenshot(page, `${name}-${device}-${scheme}`);

      await page.goto('/sign-in');
      await settle(page, 'Sign in to Docwright');
      await expectAccessible(page, `sign-in (${device}, ${scheme})`);
      await shot('sign-in');
      await page.goto('/sign-in/link#token=dwl_example');
      await settle(page, 'Set your email and password');
      await expectAccessible(page, `sign-in link (${device}, ${scheme})`);
      await shot('sign-in-link');

      await signInThroughForm(page, owner.email, PASSWORD);
      for (const { name, path, heading } of pages()) {
        await page.goto(path);
        await settle(page, heading);
        // No page is wider than the screen: tables scroll inside themselves.
        expect(await inPage<number>(page, 'document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(
          viewport.width,
        );
        await expectAccessible(page, `${name} (${device}, ${scheme})`);
        await shot(name);
      }

      if (device === 'phone') {
        // Escape closes the open menu and gives focus back to its button.
        const menu = page.getByRole('button', { name: 'Menu', exact: true });
        await menu.click();
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'Settings' })
          .waitFor();
        await page.keyboard.press('Escape');
        await page.getByRole('navigation', { name: 'Main' }).waitFor({ state: 'hidden' });
        expect(await inPage(page, "document.activeElement?.getAttribute('aria-controls')")).toBe(
          'navigation',
        );
        await page.getByRole('button', { name: 'Menu', exact: true }).click();
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'Settings' })
          .waitFor();
        await expectAccessible(page, `open menu (${scheme})`);
        await shot('menu');
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
        await settle(page, 'Settings');
      }

      // A new key, shown once.
      await page.goto(`/projects/${t.project.id}/keys`);
      await settle(page, 'API keys');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('dialog').getByLabel('Name').fill(`screenshot ${device} ${scheme}`);
      await page.getByRole('dialog').getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('region', { name: 'New API key' }).waitFor();
      await expectAccessible(page, `new key (${device}, ${scheme})`);
      await shot('keys-new-key');

      // A dialog, open.
      await page.goto(`/projects/${t.project.id}/keys`);
      await settle(page, 'API keys');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('dialog', { name: 'Create an API key' }).waitFor();
      await expectAccessible(page, `create-key dialog (${device}, ${scheme})`);
      await shot('keys-create-dialog');
      await page.keyboard.press('Escape');
      await page
        .getByRole('dialog')
        .waitFor({ state: 'detached' })
        .catch(() => {});

      // Only the expected refusal of the signed-out session check, nothing else.
      expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
      await context.close();
    });
  }

  it("puts each page's main button at the end of its title's row on a laptop, whatever the description's length", async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, owner.email, PASSWORD);
    for (const [path, heading, button] of [
      ['/projects', 'Projects', 'New project'],
      [`/projects/${t.project.id}/keys`, 'API keys', 'Create key'],
      [`/projects/${t.project.id}/webhooks`, 'Webhooks', 'Add endpoint'],
      [`/projects/${t.project.id}/automations`, 'Automations', 'New automation'],
      ['/users', 'Users', 'Add user'],
    ] as const) {
      await page.goto(path);
      await settle(page, heading);
      const header = await page.locator('.page__header').boundingBox();
      const text = await page.locator('.page__header > :first-child').boundingBox();
      const action = await page.locator('.page__header').getByRole('button', { name: button }).boundingBox();
      if (!header || !text || !action) throw new Error(`${heading}: no header or button`);
      // At the right end of the header, and beside the title and description, not under them.
      expect(Math.abs(header.x + header.width - (action.x + action.width)), heading).toBeLessThanOrEqual(1);
      expect(action.y, heading).toBeLessThan(text.y + text.height);
      expect(action.x, heading).toBeGreaterThan(text.x + text.width);
    }
    await context.close();
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`shows a placeholder as an example, not a value: lighter than a hint, in italics, still readable (${scheme})`, async () => {
      const { page, context } = await openDashboard(browser, t, { colorScheme: scheme });
      await signInThroughForm(page, owner.email, PASSWORD);
      await page.goto(`/projects/${t.project.id}/jobs`);
      await settle(page, 'Jobs');
      const prompt = page.getByLabel('What should the agent do?');
      expect(await prompt.getAttribute('placeholder')).not.toBe('');
      const colours = await prompt.evaluate((element) => {
        // In the page (this file's Node types know no DOM).
        type Style = { color: string; backgroundColor: string; fontStyle: string };
        const page = globalThis as unknown as {
          getComputedStyle(e: unknown, pseudo?: string): Style;
          document: { querySelector(selector: string): unknown };
        };
        const placeholder = page.getComputedStyle(element, '::placeholder');
        const own = page.getComputedStyle(element);
        const hint = page.getComputedStyle(page.document.querySelector('.field__hint'));
        return {
          placeholder: placeholder.color,
          italic: placeholder.fontStyle,
          value: own.color,
          background: own.backgroundColor,
          hint: hint.color,
        };
      });
      const ratio = (colour: string) => contrast(colour, colours.background);
      expect(colours.italic).toBe('italic');
      expect(ratio(colours.placeholder)).toBeGreaterThanOrEqual(4.5);
      expect(ratio(colours.placeholder)).toBeLessThan(ratio(colours.hint) - 0.5);
      expect(ratio(colours.placeholder)).toBeLessThan(ratio(colours.value) / 2);
      await context.close();
    });
  }

  it('is usable by keyboard: skip link, navigation, and a dialog that returns focus', async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, owner.email, PASSWORD);
    await page.goto(`/projects/${t.project.id}/keys`);
    await settle(page, 'API keys');
    await page.keyboard.press('Tab');
    expect(await inPage(page, 'document.activeElement?.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await inPage(page, 'document.activeElement?.id')).toBe('main');

    const create = page.getByRole('button', { name: 'Create key' });
    await create.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Create an API key' }).waitFor();
    // Focus moves into the dialog, to its first field (the name).
    expect(await inPage(page, 'document.activeElement?.tagName')).toBe('INPUT');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect(await inPage(page, 'document.activeElement?.textContent')).toBe('Create key');

    // The account menu opens from the keyboard, and Escape closes it back onto its button.
    const account = page.getByRole('button', { name: /account menu/ });
    await account.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out everywhere' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Sign out everywhere' }).waitFor({ state: 'hidden' });
    expect(await inPage(page, "document.activeElement?.getAttribute('aria-expanded')")).toBe('false');
    await context.close();
  });

  it('remembers the theme chosen with the toggle over the system preference', async () => {
    const { page, context } = await openDashboard(browser, t, { colorScheme: 'light' });
    await signInThroughForm(page, owner.email, PASSWORD);
    const background = () => inPage<string>(page, 'getComputedStyle(document.body).backgroundColor');
    const light = await background();
    await page.getByRole('button', { name: 'Switch to the dark theme' }).click();
    expect(await inPage(page, 'document.documentElement.dataset.theme')).toBe('dark');
    expect(await background()).not.toBe(light);
    await page.reload();
    await page.getByRole('button', { name: 'Switch to the light theme' }).waitFor();
    expect(await background()).not.toBe(light);
    await context.close();
  });

  it('takes an old review link to the job page', async () => {
    const job = await t.services.jobs.create(await t.services.projects.get(t.project.id), 'Add a page');
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, owner.email, PASSWORD);
    await page.goto(`/review/${job.id}`);
    await page.waitForURL(`**/projects/${t.project.id}/jobs/${job.id}`);
    await context.close();
  });

  it(`loads at most ${FIRST_LOAD_BUDGET_BYTES / 1024} KB of JavaScript (gzipped) on the first page`, async () => {
    const { page, context } = await openDashboard(browser, t);
    const scripts: Buffer[] = [];
    page.on('response', async (response) => {
      if (response.request().resourceType() === 'script') scripts.push(await response.body());
    });
    await page.goto('/sign-in');
    await settle(page, 'Sign in to Docwright');
    await page.waitForLoadState('networkidle');
    const gzipped = scripts.reduce((sum, body) => sum + gzipSync(body, { level: 9 }).length, 0);
    console.log(`First page load: ${scripts.length} scripts, ${(gzipped / 1024).toFixed(1)} KB gzipped`);
    expect(scripts.length).toBeGreaterThan(0);
    expect(gzipped).toBeLessThanOrEqual(FIRST_LOAD_BUDGET_BYTES);
    await context.close();
  });
});

/** WCAG's contrast ratio of two `rgb(…)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (colour: string) => {
    const [r = 0, g = 0, bl = 0] = (colour.match(/[\d.]+/g) ?? []).map(Number).map((c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}

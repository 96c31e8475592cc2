import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createRepository, tempDir } from '../../helpers/git-repos.ts';
import { testBackend } from '../../helpers/storage.ts';
import {
  expectAccessible,
  fetchInPage,
  inPage,
  LAPTOP,
  LOOK_TIMEOUT_MS,
  launchChromium,
  openDashboard,
  PHONE,
  SCREENSHOT_DIR,
  saveScreenshot,
  signInThroughForm,
} from './browser.ts';

const PASSWORD = 'a long enough password';

describe(`connected repositories on the Settings page, in Chromium (${testBackend})`, () => {
  let t: TestApp;
  let browser: Browser;
  let cleanup: () => void;
  /** Under the test server's DOCWRIGHT_LOCAL_REPOSITORY_ROOTS (the system's temporary directory). */
  let api: string;
  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchChromium();
    const dir = tempDir();
    cleanup = dir.cleanup;
    api = path.join(dir.dir, 'api');
    createRepository(api, { 'src/limits.ts': 'export const RETRIES = 3;\n' }, 'trunk');
    await t.services.users.create({ email: 'admin@example.com', password: PASSWORD, role: 'admin' });
    await t.services.users.create({ email: 'viewer@example.com', password: PASSWORD, role: 'viewer' });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    cleanup?.();
  });

  const settingsPath = () => `/projects/${t.project.id}/settings`;
  const listed = async () =>
    (
      (await (await t.request('GET', `/v2/agent/${t.project.id}/context`)).json()) as {
        repositories: unknown[];
      }
    ).repositories;
  const section = (page: Page) => page.getByRole('region', { name: 'Connected repositories' });

  it("connects repositories with the server's checks and warnings, and removes one after confirmation", async () => {
    const { page, context, errors } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    await page.goto(settingsPath());
    const region = section(page);
    await region.getByText('No repositories connected').waitFor();
    const form = region.getByRole('form', { name: 'Connect a repository' });
    expect(await form.getByLabel('Branch').inputValue()).toBe('main');

    // The server's refusals, in its words: the branch, the name rule, a path outside the allowed roots.
    await form.getByLabel('Name').fill('api');
    await form.getByLabel('Repository').fill(api);
    await form.getByRole('button', { name: 'Connect' }).click();
    await form
      .getByRole('alert')
      .filter({ hasText: 'has no branch "main"; its branches include trunk' })
      .waitFor();
    await form.getByLabel('Name').fill('API Code');
    await form.getByLabel('Branch').fill('trunk');
    await form.getByRole('button', { name: 'Connect' }).click();
    await form
      .getByRole('alert')
      .filter({ hasText: 'name: "API Code" is not a connected repository name' })
      .waitFor();
    await form.getByLabel('Name').fill('other');
    await form.getByLabel('Repository').fill('/srv/elsewhere/api');
    await form.getByRole('button', { name: 'Connect' }).click();
    await form
      .getByRole('alert')
      .filter({ hasText: /^repository: a path on this server/ })
      .waitFor();
    expect(await listed()).toEqual([]);

    await form.getByLabel('Name').fill('api');
    await form.getByLabel('Repository').fill(api);
    await form.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('status').getByText('Connected api').waitFor();
    const table = region.getByRole('table', { name: 'Repositories the agent reads' });
    await table.getByRole('row', { name: new RegExp(`api ${api} trunk`) }).waitFor();
    // The form is cleared for the next one.
    expect(await form.getByLabel('Name').inputValue()).toBe('');
    expect(await form.getByLabel('Branch').inputValue()).toBe('main');

    // No network here: a remote that cannot be asked is connected, and the warning is shown.
    await form.getByLabel('Name').fill('sdk');
    await form.getByLabel('Repository').fill('https://git.invalid/acme/sdk.git');
    await form.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('status').getByText('Connected sdk').waitFor();
    await page
      .getByRole('status')
      .getByText(/^Could not check https:\/\/git\.invalid\/acme\/sdk\.git now/)
      .waitFor();
    await table.getByRole('row', { name: /sdk https:\/\/git\.invalid\/acme\/sdk\.git main/ }).waitFor();
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'settings-connected-repositories-warning.png') });

    // A taken name: 409, said in the form.
    await form.getByLabel('Name').fill('api');
    await form.getByLabel('Repository').fill(api);
    await form.getByLabel('Branch').fill('trunk');
    await form.getByRole('button', { name: 'Connect' }).click();
    await form.getByRole('alert').filter({ hasText: '"api" is already connected to this project' }).waitFor();

    // Removing asks first; cancelling keeps it.
    await table.getByRole('button', { name: 'Remove sdk' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove this connected repository?' });
    await dialog.getByText('https://git.invalid/acme/sdk.git').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await listed()).toHaveLength(2);
    await table.getByRole('button', { name: 'Remove sdk' }).click();
    await dialog.getByRole('button', { name: 'Remove repository' }).click();
    await page.getByRole('status').getByText('Removed sdk').waitFor();
    await table.getByRole('row', { name: /sdk/ }).waitFor({ state: 'detached' });
    expect(await listed()).toEqual([
      { name: 'api', repository: api, ref: 'trunk', createdAt: expect.any(String) },
    ]);
    expect(errors.filter((e) => !/status of (400|401|409)/.test(e))).toEqual([]);
    await context.close();
  });

  it('shows a viewer the connected repositories, with no way to change them', async () => {
    await t.services.contextRepositories
      .add(t.project.id, { name: 'api', repository: api, ref: 'trunk' })
      .catch(
        () => {}, // connected by the test above
      );
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'viewer@example.com', PASSWORD);
    await page.goto(settingsPath());
    const region = section(page);
    await region
      .getByRole('table', { name: 'Repositories the agent reads' })
      .getByRole('row', { name: /api/ })
      .waitFor();
    expect(await region.getByRole('form').count()).toBe(0);
    expect(await region.getByRole('button').count()).toBe(0);
    const refused = await fetchInPage(page, 'DELETE', `/dashboard/api/v2/agent/${t.project.id}/context/api`);
    expect(refused.status).toBe(403);
    expect(await listed()).toHaveLength(1);
    await context.close();
  });

  for (const [device, viewport] of [
    ['laptop', LAPTOP],
    ['phone', PHONE],
  ] as const) {
    it(`looks right on a ${device}: accessible, within the screen`, {
      timeout: LOOK_TIMEOUT_MS,
    }, async () => {
      for (const [name, repository] of [
        ['api', api],
        ['sdk.js', 'https://github.com/acme/a-rather-long-sdk-repository-name-that-must-wrap.git'],
      ] as const) {
        // Straight into storage: a remote is not asked here, and the look is what is tested.
        await t.services.storage.db
          .insertInto('context_repositories')
          .values({
            project_id: t.project.id,
            name,
            repository,
            ref: name === 'api' ? 'trunk' : 'main',
            created_at: new Date().toISOString(),
          })
          .onConflict((c) => c.doNothing())
          .execute();
      }
      const { page, context } = await openDashboard(browser, t, { viewport });
      await signInThroughForm(page, 'admin@example.com', PASSWORD);
      await page.goto(settingsPath());
      await section(page)
        .getByRole('row', { name: /sdk\.js/ })
        .waitFor();
      await expect.poll(() => page.locator('.state--loading').count()).toBe(0);
      expect(await inPage<number>(page, 'document.documentElement.scrollWidth')).toBeLessThanOrEqual(
        viewport.width,
      );
      await expectAccessible(page, `settings with connected repositories (${device})`);
      await saveScreenshot(page, `settings-connected-repositories-${device}`);
      // The section alone, at full size: the page is long.
      await section(page).screenshot({
        path: path.join(SCREENSHOT_DIR, `settings-connected-repositories-section-${device}.png`),
      });
      await section(page).getByRole('button', { name: 'Remove sdk.js' }).click();
      await page.getByRole('dialog', { name: 'Remove this connected repository?' }).waitFor();
      await expectAccessible(page, `remove dialog (${device})`);
      // What is on the screen: the dialog over the page.
      await page.screenshot({
        path: path.join(SCREENSHOT_DIR, `settings-connected-repositories-remove-${device}.png`),
      });
      await context.close();
    });
  }
});

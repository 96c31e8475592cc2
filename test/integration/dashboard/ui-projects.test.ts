import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createRepository, tempDir } from '../../helpers/git-repos.ts';
import { testBackend } from '../../helpers/storage.ts';
import { inPage, launchChromium, openDashboard, PHONE, signInThroughForm } from './browser.ts';

const PASSWORD = 'a long enough password';

describe(`dashboard projects in Chromium (${testBackend})`, () => {
  let t: TestApp;
  let browser: Browser;
  let dir: { dir: string; cleanup: () => void };
  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchChromium();
    dir = tempDir();
    await t.services.users.create({ email: 'owner@example.com', password: PASSWORD, role: 'owner' });
    await t.services.users.create({ email: 'admin@example.com', password: PASSWORD, role: 'admin' });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    dir?.cleanup();
  });

  it('creates a project once its repository is checked, shows why a bad one is refused, switches and deletes', async () => {
    const repo = path.join(dir.dir, 'handbook');
    createRepository(repo, { 'index.md': '# Handbook\n' });
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'owner@example.com', PASSWORD);
    await page.goto('/projects');
    await page.getByRole('button', { name: 'New project' }).click();
    const dialog = page.getByRole('dialog', { name: 'New project' });
    await dialog.getByLabel('Name').fill('Handbook');
    await dialog.getByLabel('Repository').fill(path.join(dir.dir, 'no-such-repository'));
    await dialog.getByRole('button', { name: 'Create project' }).click();
    // The server's own words, in the dialog, which stays open.
    const refusal = dialog.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/no-such-repository/);
    expect((await t.services.projects.list()).map((p) => p.name)).toEqual(['Test docs']);

    await dialog.getByLabel('Repository').fill(repo);
    await dialog.getByLabel('Base branch').fill('no-such-branch');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await dialog
      .getByRole('alert')
      .filter({ hasText: /no-such-branch/ })
      .waitFor();

    await dialog.getByLabel('Base branch').fill('main');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/\/projects\/prj_[^/]+\/settings$/);
    const created = (await t.services.projects.list()).find((p) => p.name === 'Handbook');
    expect(created).toMatchObject({ repository: repo, baseBranch: 'main' });
    expect(page.url()).toContain(`/projects/${created?.id}/settings`);
    // A repository on this machine needs no code host: its settings say so instead of asking for a token.
    await page.getByText('The repository is on this machine').waitFor();
    expect(await page.getByLabel(/Access token/).count()).toBe(0);

    // The switcher keeps the section and changes the project.
    await page.getByLabel('Project', { exact: true }).selectOption({ label: 'Test docs' });
    await page.waitForURL(`**/projects/${t.project.id}/settings`);

    await page.goto('/projects');
    await page.getByRole('button', { name: 'Delete Handbook' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Handbook?' });
    const remove = confirm.getByRole('button', { name: 'Delete project' });
    expect(await remove.isDisabled()).toBe(true);
    await confirm.getByLabel(/Type Handbook to confirm/).fill('Handbook');
    await remove.click();
    await confirm.waitFor({ state: 'hidden' });
    await page.getByRole('cell', { name: /Handbook/ }).waitFor({ state: 'detached' });
    expect((await t.services.projects.list()).map((p) => p.name)).toEqual(['Test docs']);
    await context.close();
  });

  it("shows each project's id, with a button that copies it, on a laptop and a phone", async () => {
    for (const viewport of [undefined, PHONE]) {
      const { page, context } = await openDashboard(browser, t, viewport ? { viewport } : {});
      await signInThroughForm(page, 'admin@example.com', PASSWORD);
      await page.goto('/projects');
      const row = page.locator('tr', { has: page.getByRole('link', { name: 'Test docs' }) });
      expect(await row.getByTestId('project-id').textContent()).toBe(t.project.id);
      await row.getByRole('button', { name: 'Copy the project id of Test docs' }).click();
      expect(await inPage(page, 'navigator.clipboard.readText()')).toBe(t.project.id);
      // The id is one word: on a phone the button goes under it rather than the id breaking.
      const id = await row.getByTestId('project-id').boundingBox();
      expect(id?.height).toBeLessThan(30);
      await context.close();
    }
  });

  it('offers neither create nor delete to an admin, and the server refuses them anyway', async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    await page.goto('/projects');
    await page.getByRole('link', { name: 'Test docs' }).waitFor();
    expect(await page.getByRole('button', { name: 'New project' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
    // Nor is Users in the navigation.
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Users' }).count()).toBe(0);
    await context.close();
  });
});

import { pino } from 'pino';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../../../src/app/services.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import { PromptScriptedAgent } from '../../helpers/test-agent.ts';
import {
  expectAccessible,
  fetchInPage,
  inPage,
  launchChromium,
  openDashboard,
  saveScreenshot,
  signInThroughForm,
} from './browser.ts';

const PASSWORD = 'a long enough password';

describe(`dashboard automations in Chromium (${testBackend})`, () => {
  let t: TestApp;
  let browser: Browser;
  let worker: Worker;
  beforeAll(async () => {
    t = await startTestApp({
      env: {
        DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=',
        DOCWRIGHT_POLL_INTERVAL_MS: '50',
        DOCWRIGHT_PUBLIC_URL: 'https://docwright.example.com',
      },
      agent: new PromptScriptedAgent(),
    });
    // Runs' jobs are run in this process, as the worker of `docwright serve` would.
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    browser = await launchChromium();
    await t.services.users.create({ email: 'admin@example.com', password: PASSWORD, role: 'admin' });
    await t.services.users.create({ email: 'viewer@example.com', password: PASSWORD, role: 'viewer' });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await t?.close();
  });

  const automationsPage = (page: Page) => page.goto(`/projects/${t.project.id}/automations`);
  const clipboard = (page: Page) => inPage<string>(page, 'navigator.clipboard.readText()');

  it('creates a code-change automation showing its hook URL and secret once', async () => {
    const { page, context, errors } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    await automationsPage(page);
    await page.getByRole('heading', { level: 1, name: 'Automations' }).waitFor();
    await page.getByText('No automations yet').waitFor();

    await page.getByRole('button', { name: 'New automation' }).click();
    const dialog = page.getByRole('dialog', { name: 'New automation' });
    await dialog.getByLabel('Name').fill('API reference');
    await dialog.getByLabel('Repository').fill('acme/api');
    await dialog.getByLabel('Paths (optional)').fill('src/api/**\nopenapi.yaml');
    await dialog
      .getByLabel('Instructions')
      .fill('Update the API reference for what the pull request changed.');
    await dialog.getByLabel('Open pull requests as drafts').uncheck();
    await expectAccessible(page, 'automations: new automation dialog');
    await saveScreenshot(page, 'automations-new-dialog');
    await dialog.getByRole('button', { name: 'Create automation' }).click();

    const shown = page.getByRole('region', { name: 'New webhook secret' });
    await shown.waitFor();
    expect(await shown.getByTestId('hook-url').textContent()).toBe(
      `https://docwright.example.com/v1/hooks/github/${t.project.id}`,
    );
    await expectAccessible(page, 'automations: new webhook secret');
    await saveScreenshot(page, 'automations-new-secret');
    await shown.getByRole('button', { name: 'Copy the webhook secret' }).click();
    const secret = await clipboard(page);
    const [stored] = await t.services.automations.codeChangeAutomations(t.project.id, 'github');
    expect(stored?.secret).toBe(secret);
    expect(stored?.automation).toMatchObject({
      name: 'API reference',
      draft: false,
      trigger: { repository: 'acme/api', paths: ['src/api/**', 'openapi.yaml'], baseBranch: null },
    });
    await shown.getByRole('button', { name: 'I have added it' }).click();
    await shown.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);
    await page.getByRole('row').filter({ hasText: 'Pull request merged in GitHub acme/api' }).waitFor();

    // Rotating: asked first, the new secret shown once, the old one still accepted for 24 hours.
    await page.getByRole('button', { name: 'Rotate secret of API reference' }).click();
    const confirm = page.getByRole('dialog', { name: 'Rotate the webhook secret?' });
    await confirm.getByText('For 24 hours webhooks signed with the current secret').waitFor();
    await expectAccessible(page, 'automations: rotate secret dialog');
    await confirm.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = page.getByRole('region', { name: 'New webhook secret' });
    await rotated.getByText('Webhooks signed with the old secret are accepted until').waitFor();
    await expectAccessible(page, 'automations: rotated webhook secret');
    await saveScreenshot(page, 'automations-rotated-secret');
    const newSecret = (await rotated.getByTestId('hook-secret').textContent()) ?? '';
    expect(newSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newSecret).not.toBe(secret);
    const accepted = await t.services.automations.codeChangeAutomations(t.project.id, 'github');
    expect(accepted.map((a) => a.secret)).toEqual([newSecret, secret]);
    await rotated.getByRole('button', { name: 'I have changed it' }).click();
    await rotated.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(newSecret);
    expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
    await context.close();
  });

  it('runs automations now and lists their runs: completed with a PR, no change needed, over the daily limit', async () => {
    const make = (name: string, instructions: string, maxRunsPerDay = 500) =>
      t.services.automations.create(t.project.id, {
        name,
        trigger: { kind: 'manual' },
        instructions,
        maxRunsPerDay,
      });
    await make('Changelog', 'pr Write the changelog entry');
    await make('Link check', 'Find broken links', 1);
    const { page, context, errors } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    await automationsPage(page);

    await page.getByRole('button', { name: 'Run now: Changelog' }).click();
    const run = page.getByRole('dialog', { name: 'Run Changelog now' });
    await run.getByLabel('Extra context (optional)').fill('Release 2.4');
    await run.getByRole('button', { name: 'Run now' }).click();
    await run.waitFor({ state: 'detached' });
    const runs = page.getByRole('table', { name: 'Runs' });
    await runs
      .getByRole('row')
      .filter({ hasText: 'completed' })
      .getByRole('link', { name: 'Pull request' })
      .waitFor();

    await page.getByRole('button', { name: 'Run now: Link check' }).click();
    await page
      .getByRole('dialog', { name: 'Run Link check now' })
      .getByRole('button', { name: 'Run now' })
      .click();
    await page.getByRole('heading', { name: 'Runs of Link check' }).waitFor();
    await runs
      .getByRole('row')
      .filter({ hasText: 'no change needed' })
      .filter({ hasText: 'did: Find broken links' })
      .waitFor();
    // The second run in 24 hours is refused: the dialog says why, and the list shows it.
    await page.getByRole('button', { name: 'Run now: Link check' }).click();
    const refused = page.getByRole('dialog', { name: 'Run Link check now' });
    await refused.getByRole('button', { name: 'Run now' }).click();
    await refused.getByRole('alert').filter({ hasText: 'daily limit' }).waitFor();
    await refused.getByRole('button', { name: 'Cancel' }).click();
    await runs.getByRole('row').filter({ hasText: 'over the daily limit' }).waitFor();
    await expectAccessible(page, 'automations: runs');
    await saveScreenshot(page, 'automations-runs');

    // Disable, edit, delete.
    await page.getByRole('button', { name: 'Disable Link check' }).click();
    await page.getByRole('button', { name: 'Enable Link check' }).waitFor();
    expect(await page.getByRole('button', { name: 'Run now: Link check' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Edit Changelog' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Changelog' });
    await edit.getByLabel('Name').fill('Changelog entries');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('row').filter({ hasText: 'Changelog entries' }).waitFor();
    await page.getByRole('button', { name: 'Delete Link check' }).click();
    await page
      .getByRole('dialog', { name: 'Delete this automation?' })
      .getByRole('button', { name: 'Delete automation' })
      .click();
    await page.getByRole('row').filter({ hasText: 'Link check' }).waitFor({ state: 'detached' });
    expect((await t.services.automations.list(t.project.id)).map((a) => a.name)).toEqual([
      'API reference',
      'Changelog entries',
    ]);
    // 429 on the refused run is the only failed request besides the session check before signing in.
    expect(errors.filter((e) => !/status of 401/.test(e) && !/status of 429/.test(e))).toEqual([]);
    await context.close();
  });

  it('lets a viewer read automations and runs, with no buttons that change them; the server refuses anyway', async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'viewer@example.com', PASSWORD);
    await automationsPage(page);
    await page.getByRole('row').filter({ hasText: 'API reference' }).waitFor();
    expect(await page.getByRole('button', { name: 'New automation' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Delete|Edit|Disable|Run) / }).count()).toBe(0);
    await page.getByRole('button', { name: 'Runs of API reference' }).click();
    await page.getByText('No runs yet').waitFor();
    const [automation] = await t.services.automations.list(t.project.id);
    const url = `/dashboard/api/v2/agent/${t.project.id}/automations/${automation?.id}`;
    expect((await fetchInPage(page, 'POST', `${url}/trigger`)).status).toBe(403);
    expect((await fetchInPage(page, 'DELETE', url)).status).toBe(403);
    await context.close();
  });
});

import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import { fetchInPage, launchChromium, openDashboard, signInThroughForm } from './browser.ts';

const PASSWORD = 'a long enough password';
const TOKEN = 'ghp_thisIsTheSecretTokenNeverShownBack123';

describe(`dashboard settings in Chromium (${testBackend})`, () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestApp({ env: { DOCWRIGHT_SECRET_KEY: 'a passphrase for the test suite' } });
    browser = await launchChromium();
    await t.services.users.create({ email: 'admin@example.com', password: PASSWORD, role: 'admin' });
    await t.services.users.create({ email: 'viewer@example.com', password: PASSWORD, role: 'viewer' });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('round-trips the agent and analytics settings; the token is stored but never shown back', async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    await page.goto(`/projects/${t.project.id}/settings`);
    const agent = page.getByRole('region', { name: 'Agent' });
    await agent.getByLabel('Model').fill('openai:gpt-5');
    await agent.getByLabel('Open pull requests as drafts').uncheck();
    expect(await agent.getByLabel('Let the agent read web pages (fetch_url)').isChecked()).toBe(false);
    await agent.getByLabel('Let the agent read web pages (fetch_url)').check();
    await agent.getByLabel('Code host', { exact: true }).selectOption('github');
    await agent.getByLabel('Repository on the code host (optional)').fill('acme/docs');
    await agent.getByLabel(/Access token/).fill(TOKEN);
    await agent.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved the agent settings').waitFor();
    expect(await agent.getByLabel(/Access token/).inputValue()).toBe('');

    const analytics = page.getByRole('region', { name: 'Analytics' });
    await analytics
      .getByLabel('Allowed origins for the tracker')
      .fill('https://docs.example.com\nhttps://www.example.com');
    await analytics.getByLabel('Count AI crawlers as AI').check();
    await analytics.getByLabel('Visitor ids reset').selectOption('never');
    await analytics.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved the analytics settings').waitFor();

    await page.reload();
    await agent.getByLabel('Model').waitFor();
    expect(await agent.getByLabel('Model').inputValue()).toBe('openai:gpt-5');
    expect(await agent.getByLabel('Open pull requests as drafts').isChecked()).toBe(false);
    expect(await agent.getByLabel('Let the agent read web pages (fetch_url)').isChecked()).toBe(true);
    expect(await agent.getByLabel('Code host', { exact: true }).inputValue()).toBe('github');
    expect(await agent.getByLabel(/Access token/).inputValue()).toBe('');
    expect(await agent.getByText('stored', { exact: true }).count()).toBe(1);
    expect(await analytics.getByLabel('Allowed origins for the tracker').inputValue()).toBe(
      'https://docs.example.com\nhttps://www.example.com',
    );
    expect(await analytics.getByLabel('Count AI crawlers as AI').isChecked()).toBe(true);
    expect(await analytics.getByLabel('Visitor ids reset').inputValue()).toBe('never');
    expect(await page.content()).not.toContain(TOKEN);

    // The dashboard's numbers are the API's: the same settings through a key, and no token anywhere.
    const shown = await fetchInPage(page, 'GET', `/dashboard/api/projects/${t.project.id}/settings`);
    expect(JSON.stringify(shown.body)).not.toContain(TOKEN);
    expect(shown.body).toMatchObject({
      agent: {
        model: 'openai:gpt-5',
        draft: false,
        webResearch: true,
        codeHost: { kind: 'github', repository: 'acme/docs', credentials: 'stored' },
      },
    });
    const api = await t.request('GET', `/v1/analytics/${t.project.id}/settings`);
    expect(await api.json()).toMatchObject({
      allowedOrigins: ['https://docs.example.com', 'https://www.example.com'],
      countAiCrawlersAsAi: true,
      saltRotation: 'never',
    });
    const stored = await t.services.storage.db.selectFrom('projects').select('settings').execute();
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
    await context.close();
  });

  it("lets an admin rename the project but not move it: the repository is the owner's", async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    await page.goto(`/projects/${t.project.id}/settings`);
    const repository = page.getByRole('region', { name: 'Repository' });
    const field = repository.getByLabel('Repository', { exact: true });
    await field.waitFor();
    expect(await field.getAttribute('readonly')).not.toBeNull();
    await repository.getByText('Only an owner can change the repository.').waitFor();
    expect(await repository.getByLabel('Project name').isEditable()).toBe(true);
    await context.close();
  });

  it("shows a bad value refused with the server's message", async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    await page.goto(`/projects/${t.project.id}/settings`);
    const agent = page.getByRole('region', { name: 'Agent' });
    await agent.getByLabel('Model').fill('not a model');
    await agent.getByRole('button', { name: 'Save' }).click();
    await agent
      .getByRole('alert')
      .filter({ hasText: /provider:model-id/ })
      .waitFor();
    await context.close();
  });

  it('shows a viewer the settings, read-only, with no way to save', async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'viewer@example.com', PASSWORD);
    await page.goto(`/projects/${t.project.id}/settings`);
    await page.getByRole('region', { name: 'Server' }).waitFor();
    expect(await page.getByLabel('Model').isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    const refused = await fetchInPage(page, 'PATCH', `/dashboard/api/projects/${t.project.id}/settings`, {
      body: { agent: { draft: true } },
    });
    expect(refused.status).toBe(403);
    await context.close();
  });
});

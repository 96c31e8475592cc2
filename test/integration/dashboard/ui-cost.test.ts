import { pino } from 'pino';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../../../src/app/services.ts';
import type { JobView } from '../../../src/domain/jobs/job-view.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import { PromptScriptedAgent } from '../../helpers/test-agent.ts';
import { eventually } from '../../helpers/webhook-receiver.ts';
import {
  expectAccessible,
  launchChromium,
  openDashboard,
  saveScreenshot,
  signInThroughForm,
} from './browser.ts';

const PASSWORD = 'a long enough password';
const MODEL = 'openai:gpt-test';
/**
 * The test agent reports 10 input and 1 output tokens for a first turn; at these prices (USD per
 * million tokens) that is 10 × 0.1 + 1 × 0.4 = $1.40.
 */
const PRICES = { [MODEL]: { input: 100_000, output: 400_000 } };

/**
 * Cost in the dashboard, against a real server and worker: the job list's and the job page's
 * estimated cost (unknown for a model without a price), the settings page's spend this month
 * against a budget set there, and a new job refused once it is spent. Axe and screenshots.
 */
describe(`cost and budget in the dashboard, in Chromium (${testBackend})`, () => {
  let t: TestApp;
  let browser: Browser;
  let worker: Worker;
  let priced: JobView;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        DOCWRIGHT_MODEL: MODEL,
        DOCWRIGHT_MODEL_PRICES: JSON.stringify(PRICES),
        DOCWRIGHT_POLL_INTERVAL_MS: '50',
      },
      agent: new PromptScriptedAgent(),
    });
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    browser = await launchChromium();
    await t.services.users.create({ email: 'admin@example.com', password: PASSWORD, role: 'admin' });

    const run = async (prompt: string) => {
      const created = (await (
        await t.request('POST', `/v2/agent/${t.project.id}/job`, { body: { prompt } })
      ).json()) as JobView;
      return eventually(async () => {
        const job = (await (
          await t.request('GET', `/v2/agent/${t.project.id}/job/${created.id}`)
        ).json()) as JobView;
        return job.status === 'completed' ? job : undefined;
      }, 15_000);
    };
    // One job on a model without a price, then one on the priced default.
    await t.services.projectSettings.update(t.project.id, { model: 'openai-compatible:local-model' });
    await run('Check the links on the quickstart');
    await t.services.projectSettings.update(t.project.id, { model: null });
    priced = await run('Add a page about rate limits');
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await browser?.close();
    await t?.close();
  });

  it('shows tokens and estimated cost on the job list and the job page', async () => {
    expect(priced.usage).toEqual({ inputTokens: 10, outputTokens: 1, costUsd: 1.4, unpricedTurns: 0 });
    const { page, context, errors } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    // The sign-in page's own session check answers 401 before signing in; only later errors count.
    errors.length = 0;
    await page.goto(`/projects/${t.project.id}/jobs`);
    const costs = page.getByTestId('job-list-cost');
    await costs.first().waitFor();
    // Newest first: the priced job, then the one whose model has no price.
    expect(await costs.allTextContents()).toEqual(['$1.4010 in · 1 out', 'unknown10 in · 1 out']);
    await expectAccessible(page, 'job list with costs');
    await saveScreenshot(page, 'cost-job-list');

    await page.goto(`/projects/${t.project.id}/jobs/${priced.id}`);
    await page.getByTestId('job-cost').getByText('$1.40').waitFor();
    expect(await page.getByTestId('job-usage').textContent()).toBe('10 input · 1 output');
    expect(await page.getByTestId('turn-usage').textContent()).toBe(
      '10 input · 1 output tokens · about $1.40',
    );
    await expectAccessible(page, 'job page with cost');
    await saveScreenshot(page, 'cost-job-page');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows this month's spend against a budget set in Settings, and refuses a new job once it is spent", async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    await page.goto(`/projects/${t.project.id}/settings`);
    const section = page.getByRole('region', { name: 'Cost and budget' });
    const month = new Date().toISOString().slice(0, 7);
    const spend = section.getByTestId('monthly-spend');
    await spend.waitFor();
    expect(await spend.textContent()).toBe(
      `$1.40 spent in ${month} (UTC), no budget set. Not counted: 1 turn(s) on models without a price.`,
    );

    await section.getByLabel('Monthly budget (USD)').fill('lots');
    await section.getByRole('button', { name: 'Save' }).click();
    await section.getByText('A number of US dollars, 0 or more; empty for no budget.').waitFor();

    await section.getByLabel('Monthly budget (USD)').fill('1');
    await section.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved the monthly budget').waitFor();
    await section.getByText(/The budget is spent: new jobs and follow-ups are refused until/).waitFor();
    expect(await section.getByRole('meter').getAttribute('aria-label')).toBe(
      'Spent this month: $1.40 of $1.00',
    );
    await expectAccessible(page, 'settings with a spent budget');
    await saveScreenshot(page, 'cost-settings-budget-spent');

    await page.goto(`/projects/${t.project.id}/jobs`);
    await page.getByLabel('What should the agent do?').fill('Add another page');
    await page.getByRole('button', { name: 'Start job' }).click();
    await page.getByText(/^Monthly budget of \$1\.00 for this project is spent \(\$1\.40 used in/).waitFor();
    await saveScreenshot(page, 'cost-new-job-refused');

    // Raised again: the page says so and no longer warns.
    await page.goto(`/projects/${t.project.id}/settings`);
    await section.getByLabel('Monthly budget (USD)').fill('25');
    await section.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved the monthly budget').waitFor();
    await section.getByText(`$1.40 spent in ${month} (UTC) of a $25.00 budget.`, { exact: false }).waitFor();
    expect(await section.getByText(/The budget is spent/).count()).toBe(0);
    await context.close();
  });
});

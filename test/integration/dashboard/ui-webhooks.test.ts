import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import { eventually, startWebhookReceiver } from '../../helpers/webhook-receiver.ts';
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

describe(`dashboard webhooks in Chromium (${testBackend})`, () => {
  let t: TestApp;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    t = await startTestApp({
      env: {
        DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=',
        DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: 'true',
        DOCWRIGHT_WEBHOOKS_RETRY_BASE_SECONDS: '60',
        DOCWRIGHT_POLL_INTERVAL_MS: '50',
      },
    });
    // This process sends the deliveries, as the worker of `docwright serve` would.
    t.services.webhookDispatcher.start();
    // The receiver refuses the first delivery, so the log shows a failure before the re-send.
    receiver = await startWebhookReceiver({ answer: (_d, received) => (received.length === 0 ? 500 : 200) });
    browser = await launchChromium();
    await t.services.users.create({ email: 'admin@example.com', password: PASSWORD, role: 'admin' });
    await t.services.users.create({ email: 'viewer@example.com', password: PASSWORD, role: 'viewer' });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.services.webhookDispatcher.stop();
    await receiver?.close();
    await t?.close();
  });

  const webhooksPage = (page: Page) => page.goto(`/projects/${t.project.id}/webhooks`);
  const clipboard = (page: Page) => inPage<string>(page, 'navigator.clipboard.readText()');

  it('adds an endpoint with its secret shown once, sends a test, re-sends it from the log, deletes it', async () => {
    const { page, context, errors } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    await webhooksPage(page);
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No endpoints yet').waitFor();

    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a webhook endpoint' });
    await dialog.getByLabel('URL').fill(receiver.url());
    await dialog.getByLabel(/job\.archived/).uncheck();
    await expectAccessible(page, 'webhooks: add dialog');
    await saveScreenshot(page, 'webhooks-add-dialog');
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    const shown = page.getByRole('region', { name: 'New signing secret' });
    await shown.waitFor();
    await expectAccessible(page, 'webhooks: new secret');
    await saveScreenshot(page, 'webhooks-new-secret');
    await shown.getByRole('button', { name: 'Copy the signing secret' }).click();
    const secret = await clipboard(page);
    expect(secret).toMatch(/^whsec_/);
    receiver.verifyWith(secret);
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    await shown.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);
    const [endpoint] = await t.services.webhooks.list(t.project.id);
    expect(endpoint?.events).not.toContain('job.archived');
    expect(endpoint?.events).toContain('job.completed');

    // The test event is refused once (500): the log says so, and a re-send delivers it.
    await page.getByRole('button', { name: `Send test to ${receiver.url()}` }).click();
    const log = page.getByRole('table', { name: 'Deliveries' });
    await log.getByRole('row').filter({ hasText: 'webhook.test' }).filter({ hasText: '500' }).waitFor();
    await page.getByRole('button', { name: /^Re-send webhook\.test delivery/ }).click();
    await log.getByRole('row').filter({ hasText: 'succeeded' }).waitFor();
    expect(receiver.received.map((r) => r.answered)).toEqual([500, 200]);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    await expectAccessible(page, 'webhooks: delivery log');
    await saveScreenshot(page, 'webhooks-log');

    await page.getByRole('button', { name: `Delete ${receiver.url()}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    await confirm.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText('No endpoints yet').waitFor();
    expect(await t.services.webhooks.list(t.project.id)).toEqual([]);
    // Only the session check before signing in was refused (401): nothing else failed.
    expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
    await context.close();
  });

  it('edits an endpoint (URL, events, pause) and rotates its secret: confirmed, shown once, with the overlap note', async () => {
    const original = await t.services.webhooks.create(t.project.id, { url: receiver.url('/before') });
    const { page, context, errors } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    await webhooksPage(page);

    await page.getByRole('button', { name: `Edit ${receiver.url('/before')}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit webhook endpoint' });
    await dialog.getByLabel('URL').fill(receiver.url('/after'));
    await dialog.getByLabel(/job\.failed/).uncheck();
    await dialog.getByLabel(/Receive new events/).uncheck();
    await expectAccessible(page, 'webhooks: edit dialog');
    await saveScreenshot(page, 'webhooks-edit-dialog');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('row').filter({ hasText: '/after' }).filter({ hasText: 'paused' }).waitFor();
    const edited = (await t.services.webhooks.list(t.project.id)).find((w) => w.id === original.id);
    expect(edited).toMatchObject({ id: original.id, url: receiver.url('/after'), enabled: false });
    expect(edited?.events).not.toContain('job.failed');
    expect(edited?.events).toContain('job.completed');

    await page.getByRole('button', { name: `Rotate secret of ${receiver.url('/after')}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await confirm.getByText(/For 24 hours each delivery is signed with both/).waitFor();
    await expectAccessible(page, 'webhooks: rotate confirmation');
    await saveScreenshot(page, 'webhooks-rotate-confirm');
    await confirm.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByRole('region', { name: 'New signing secret' });
    await shown.getByText(/carries two signatures/).waitFor();
    await page.getByRole('row').filter({ hasText: 'Old secret also signs until' }).waitFor();
    await expectAccessible(page, 'webhooks: rotated secret');
    await saveScreenshot(page, 'webhooks-rotated-secret');
    await shown.getByRole('button', { name: 'Copy the signing secret' }).click();
    const secret = await clipboard(page);
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(original.secret);
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    await shown.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);

    // Deliveries now carry both signatures: a receiver with either secret verifies.
    receiver.verifyWith(secret, original.secret);
    const before = receiver.received.length;
    await t.services.webhooks.test(t.project.id, original.id);
    const delivery = await eventually(() => receiver.received[before]);
    expect(delivery).toMatchObject({ path: '/after', v1Count: 2, signedWith: [secret, original.secret] });
    await t.services.webhooks.delete(t.project.id, original.id);
    expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
    await context.close();
  });

  it('shows the server refusal of a bad URL in the form', async () => {
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'admin@example.com', PASSWORD);
    await webhooksPage(page);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a webhook endpoint' });
    await dialog.getByLabel('URL').fill('https://user:pw@example.com/hook');
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'user name or password' }).waitFor();
    await context.close();
  });

  it('lets a viewer read the endpoints and log, with no buttons that change them; the server refuses anyway', async () => {
    const endpoint = await t.services.webhooks.create(t.project.id, {
      url: 'https://hooks.example.com/viewer',
    });
    const { page, context } = await openDashboard(browser, t);
    await signInThroughForm(page, 'viewer@example.com', PASSWORD);
    await webhooksPage(page);
    await page.getByRole('row').filter({ hasText: 'hooks.example.com/viewer' }).waitFor();
    expect(await page.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Delete / }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Send test to/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Deliveries of https://hooks.example.com/viewer' }).click();
    await page.getByText('Nothing delivered yet').waitFor();
    const url = `/dashboard/api/v2/agent/${t.project.id}/webhooks`;
    expect((await fetchInPage(page, 'POST', url, { body: { url: 'https://x.example.com/' } })).status).toBe(
      403,
    );
    expect((await fetchInPage(page, 'DELETE', `${url}/${endpoint.id}`)).status).toBe(403);
    await context.close();
  });
});

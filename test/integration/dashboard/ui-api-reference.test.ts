import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import {
  inPage,
  LAPTOP,
  LOOK_TIMEOUT_MS,
  launchChromium,
  openDashboard,
  PHONE,
  saveScreenshot,
} from './browser.ts';

describe(`the API reference at /docs in Chromium (${testBackend})`, () => {
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

  it('is sent with a strict policy and frame protection, on the page and everything it loads', async () => {
    for (const path of [
      '/docs',
      '/docs/',
      '/docs/static/swagger-ui-bundle.js',
      '/docs/static/theme/docwright.js',
      '/docs/json',
    ]) {
      const response = await fetch(`${t.baseUrl}${path}`);
      expect(response.status, path).toBe(200);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).toContain("style-src 'self'");
      expect(csp, path).not.toContain('unsafe-inline');
      expect(csp, path).not.toContain('unsafe-eval');
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('referrer-policy'), path).toBe('no-referrer');
      // Read to the end: a response left unread holds its connection, and the server's close waits for it.
      await response.arrayBuffer();
    }
  });

  it.each([
    ['laptop', LAPTOP],
    ['phone', PHONE],
  ])(
    'shows Docwright, not Swagger, and works with no policy violation (%s)',
    async (device, viewport) => {
      const { page, context, errors } = await openDashboard(browser, t, { viewport });
      // Violations are also console errors; the event names the directive.
      // (A string: this file's Node types know no DOM.)
      await page.addInitScript(`document.addEventListener('securitypolicyviolation', (event) =>
        console.error('CSP violation: ' + event.violatedDirective + ' ' + event.blockedURI));`);
      await page.goto('/docs');
      expect(await page.title()).toBe('Docwright API reference');
      const topbar = page.locator('#swagger-ui .topbar-wrapper');
      await topbar.getByText('Docwright', { exact: true }).waitFor();
      // The Swagger logo (an inline SVG, or an image of one) is gone from the top bar.
      expect(await topbar.locator('a.link svg, a.link img[src^="data:"]').count()).toBe(0);
      expect(await topbar.locator('a.link img').getAttribute('src')).toMatch(
        /\/docs\/static\/theme\/docwright\.svg$/,
      );
      expect(await inPage<string>(page, 'document.querySelector("link[rel=icon]").href')).toMatch(
        /\/docs\/static\/theme\/docwright\.svg$/,
      );

      // The document is loaded and its operations open.
      await page
        .getByRole('heading', { name: /Docwright API/ })
        .first()
        .waitFor();
      const health = page.locator('.opblock-summary', { hasText: '/health' }).first();
      await health.click();
      await page.getByRole('button', { name: 'Try it out' }).first().waitFor();
      await saveScreenshot(page, `api-reference-${device}`);

      expect(errors).toEqual([]);
      await context.close();
    },
    LOOK_TIMEOUT_MS,
  );
});

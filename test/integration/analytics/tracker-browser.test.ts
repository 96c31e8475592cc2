import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackend } from '../../helpers/storage.ts';
import { type AnalyticsTestApp, startAnalyticsApp } from './analytics-app.ts';

const CHROMIUM = '/usr/bin/chromium';
const DESKTOP_CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** A docs site on its own origin: two pages and client-side navigation, like a SPA docs theme. */
function docsSite(trackerUrl: string, projectId: string): Server {
  return createServer((request, response) => {
    const page = `<!doctype html><html><head><title>Docs</title>
<script defer src="${trackerUrl}/script.js" data-project="${projectId}"></script></head>
<body><h1>Docs ${request.url}</h1>
<a id="guide" href="/guide/">Guide</a>
<script>
  document.getElementById('guide').addEventListener('click', (event) => {
    event.preventDefault();
    history.pushState({}, '', '/guide/');
  });
</script></body></html>`;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe(`browser tracker in headless Chromium on ${testBackend}`, () => {
  let t: AnalyticsTestApp;
  let site: Server;
  let siteUrl: string;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium`);
    t = await startAnalyticsApp();
    site = docsSite(t.baseUrl, t.project.id);
    siteUrl = await listen(site);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (site) await new Promise((resolve) => site.close(resolve));
    await t?.close();
  });

  const views = async () => {
    const res = await t.request('GET', `/v1/analytics/${t.project.id}/views`);
    const body = (await res.json()) as { views: Array<{ path: string; human: number }> };
    return Object.fromEntries(body.views.map((r) => [r.path, r.human]));
  };

  it('counts the first page and each client-side navigation, from an allowed origin only', async () => {
    await t.request('PATCH', `/v1/analytics/${t.project.id}/settings`, {
      body: { allowedOrigins: [siteUrl] },
    });
    const context = await browser.newContext({ userAgent: DESKTOP_CHROME });
    const page = await context.newPage();
    await page.goto(`${siteUrl}/`);
    await expect.poll(views, { timeout: 15_000 }).toEqual({ '/': 1 });

    await page.click('#guide'); // history.pushState
    await expect.poll(views, { timeout: 15_000 }).toEqual({ '/': 1, '/guide': 1 });
    await page.goBack(); // popstate
    await expect.poll(views, { timeout: 15_000 }).toEqual({ '/': 2, '/guide': 1 });

    // Cookieless: nothing stored in the browser.
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length)).toBe(0);

    // One person (same IP and browser): one visitor.
    const visitors = await (await t.request('GET', `/v1/analytics/${t.project.id}/visitors`)).json();
    expect((visitors as { totals: unknown }).totals).toEqual({
      human: 1,
      ai: 0,
      total: 1,
      aiAssistant: 0,
      aiSearch: 0,
      aiTraining: 0,
      aiOther: 0,
    });
    await context.close();
  });

  it('refuses views from a page on an origin that is not allowed', async () => {
    const before = await views();
    const context = await browser.newContext({ userAgent: DESKTOP_CHROME });
    const page = await context.newPage();
    // The page must send its beacon, and the server must refuse it.
    const refused = page.waitForResponse((r) => r.url().endsWith('/collect'), { timeout: 15_000 });
    // Same site, other origin: localhost instead of 127.0.0.1.
    await page.goto(siteUrl.replace('127.0.0.1', 'localhost'));
    const response = await refused;
    expect(response.status()).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await views()).toEqual(before);

    // The same page, once its origin is allowed, is counted: it was the origin that was refused.
    await t.request('PATCH', `/v1/analytics/${t.project.id}/settings`, {
      body: { allowedOrigins: [siteUrl.replace('127.0.0.1', 'localhost')] },
    });
    const accepted = page.waitForResponse((r) => r.url().endsWith('/collect'), { timeout: 15_000 });
    await page.reload();
    expect((await accepted).status()).toBe(202);
    await expect.poll(views, { timeout: 15_000 }).toEqual({ ...before, '/': (before['/'] ?? 0) + 1 });
    await context.close();
  });
});

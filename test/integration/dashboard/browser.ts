import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';

const CHROMIUM = '/usr/bin/chromium';

/** Debian's Chromium, headless, as the rest of the suite drives it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  return chromium.launch({
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
}

export const LAPTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface Look {
  device: 'laptop' | 'phone';
  viewport: { width: number; height: number };
  scheme: 'light' | 'dark';
}

/**
 * What a page's look is checked on (axe, fitting the screen, screenshots): laptop and phone,
 * light and dark, on SQLite; on PostgreSQL the laptop in light only. How a page looks does not
 * depend on the main database, and these are the suite's slowest tests (about 10–30 s each on
 * a loaded 2-core machine); every flow of the pages, and every API they call, still runs on both.
 */
export const LOOKS: readonly Look[] = (
  [
    { device: 'laptop', viewport: LAPTOP, scheme: 'light' },
    { device: 'laptop', viewport: LAPTOP, scheme: 'dark' },
    { device: 'phone', viewport: PHONE, scheme: 'light' },
    { device: 'phone', viewport: PHONE, scheme: 'dark' },
  ] as const
).filter((_look, i) => testBackend === 'sqlite' || i === 0);

/** A look test's timeout: a page or two, axe and a screenshot, on the slowest CI machine. */
export const LOOK_TIMEOUT_MS = 90_000;

export interface DashboardPage {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions (CSP violations show up here too). */
  errors: string[];
}

/** A fresh browser profile on the dashboard, allowed to use the clipboard. */
export async function openDashboard(
  browser: Browser,
  t: TestApp,
  options: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {},
): Promise<DashboardPage> {
  const context = await browser.newContext({
    baseURL: t.baseUrl,
    viewport: options.viewport ?? LAPTOP,
    colorScheme: options.colorScheme ?? 'light',
    // Fixed, so screenshots and dates read the same on every machine.
    locale: 'en-GB',
    timezoneId: 'UTC',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
  // Well inside the test's own timeout, so a step that hangs says which it was.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  return { context, page, errors };
}

/** Evaluates an expression in the page (a string: this file's Node types know no DOM). */
export const inPage = <T>(page: Page, expression: string): Promise<T> => page.evaluate<T>(expression);

/** Signs in through the form, as a person (or a password manager) would. */
export async function signInThroughForm(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/sign-in');
  await page.locator('input[type=email]').fill(email);
  await page.locator('input[type=password]').fill(password);
  await page.locator('button[type=submit]').click();
  await page.getByRole('button', { name: /account menu/ }).waitFor();
}

/** The CSRF token and a same-origin fetch from inside the page, as the dashboard's own code sends them. */
export async function fetchInPage(
  page: Page,
  method: string,
  url: string,
  options: { body?: unknown; csrf?: boolean } = {},
): Promise<{ status: number; body: unknown }> {
  return page.evaluate(
    async ({ method, url, body, csrf }) => {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (csrf) {
        const session = (await fetch('/dashboard/api/session').then((r) => r.json())) as {
          csrfToken: string;
        };
        headers['x-csrf-token'] = session.csrfToken;
      }
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(url, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    { method, url, body: options.body, csrf: options.csrf ?? true },
  );
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

/**
 * Runs axe-core on the page (WCAG 2 A and AA rules and best practices) and fails on any
 * serious or critical violation. The script goes in through the DevTools protocol, which the
 * page's Content Security Policy does not apply to.
 */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(() => {
    // In the page: the DOM's globals, which this file's (Node) types do not know.
    const page = globalThis as unknown as {
      axe: { run: (context: unknown, options: unknown) => Promise<unknown> };
      document: unknown;
    };
    return page.axe.run(page.document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
  })) as AxeResult;
  const serious = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious, `axe on ${where}`).toEqual([]);
}

export const SCREENSHOT_DIR = path.resolve(
  import.meta.dirname,
  '../../../test-results/dashboard-screenshots',
  testBackend,
);
let announced = false;

/** Saves a full-page screenshot under test-results/dashboard-screenshots/<backend>/ for people to look at. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  if (!announced) {
    announced = true;
    console.log(`Dashboard screenshots: ${SCREENSHOT_DIR}`);
  }
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import crawlerUserAgents from 'crawler-user-agents';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';
import {
  expectAccessible,
  inPage,
  LAPTOP,
  LOOK_TIMEOUT_MS,
  LOOKS,
  launchChromium,
  PHONE,
  saveScreenshot,
  signInThroughForm,
} from './browser.ts';

const PASSWORD = 'a long enough password';
const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const CLAUDE_UA = 'Claude-User (claude-code/2.1.158; +https://support.anthropic.com/)';
const CHATGPT_UA =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot';
const GPTBOT_UA =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot';
// The viewer is in Berlin (UTC+01:00 in March before the 30th): the page asks for Berlin's days.
const ZONE = 'Europe/Berlin';
const FROM = '2025-03-01';
const TO = '2025-03-07';
const QUERY = { dateFrom: '2025-03-01T00:00:00+01:00', dateTo: '2025-03-08T00:00:00+01:00' };
/** A page whose path must wrap on a phone: after its slashes and hyphens, never inside a word. */
const LONG_PATH = '/reference/api/authentication-and-authorization-with-personal-access-tokens';

/**
 * Evaluated in the page: the cells of the page's tables with a line that ends inside a word: a
 * line may end after a space, a slash or a hyphen (or before a space), nowhere else ("page" then
 * "-0" is a broken word too). Each character's box says its line.
 */
const MID_WORD_BREAKS = `(() => {
  const breakAfter = /[\\s\\/\\-\\u2010-\\u2014]/u;
  const broken = [];
  for (const cell of document.querySelectorAll('main td, main th')) {
    const chars = [];
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.data.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getClientRects()[0];
        if (box) chars.push({ ch: node.data[i], top: box.top });
      }
    }
    for (let i = 1; i < chars.length; i++) {
      const before = chars[i - 1];
      const after = chars[i];
      if (after.top > before.top + 2 && !breakAfter.test(before.ch) && !/\\s/.test(after.ch)) {
        broken.push(cell.textContent.trim() + ' (between ' + before.ch + ' and ' + after.ch + ')');
        break;
      }
    }
  }
  return broken;
})()`;

/** What the tests read of the page's elements (this file's Node types know no DOM). */
interface DomNode {
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<DomNode>;
}

interface Counts {
  human: number;
  ai: number;
  total: number;
  aiAssistant: number;
  aiSearch: number;
  aiTraining: number;
  aiOther: number;
}
interface PageRow extends Counts {
  path: string;
}

/**
 * Traffic sent through the ingestion API shows on the analytics page with the numbers of the
 * export API, for the viewer's own days; the chart, the table, the breakdown and the install
 * guide are there, accessible, on a laptop and a phone, light and dark.
 */
describe(`the analytics page in Chromium (${testBackend})`, () => {
  let t: TestApp;
  let browser: Browser;
  const owner = { email: 'analyst@example.com' };

  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchChromium();
    await t.services.users.create({ email: owner.email, password: PASSWORD, role: 'admin' });
    await ingest(t, trafficEvents());
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open(
    viewport = LAPTOP,
    colorScheme: 'light' | 'dark' = 'light',
  ): Promise<{ context: BrowserContext; page: Page; errors: string[]; requests: URL[] }> {
    const context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport,
      colorScheme,
      locale: 'en-GB',
      timezoneId: ZONE,
    });
    context.setDefaultTimeout(10_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    const page = await context.newPage();
    const errors: string[] = [];
    const requests: URL[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('response', (response) => {
      if (response.status() >= 400 && response.status() !== 401)
        errors.push(`${response.status()} ${response.url()}`);
    });
    page.on('request', (request) => {
      if (request.url().includes('/dashboard/api/v1/analytics/')) requests.push(new URL(request.url()));
    });
    await signInThroughForm(page, owner.email, PASSWORD);
    return { context, page, errors, requests };
  }

  const analyticsUrl = (extra = '') => `/projects/${t.project.id}/analytics?from=${FROM}&to=${TO}${extra}`;
  const api = async <T>(report: string, query: Record<string, string> = {}): Promise<T> => {
    const response = await t.request(
      'GET',
      `/v1/analytics/${t.project.id}/${report}?${new URLSearchParams({ ...QUERY, ...query })}`,
    );
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };

  async function ready(page: Page) {
    await page.locator('[data-testid=traffic-chart][data-ready=true]').waitFor();
    await page.locator('[data-testid=top-pages][data-ready=true] tbody tr').first().waitFor();
    await page.locator('[data-testid=breakdown]').waitFor();
  }

  /** The rows of the table under `selector`, as text per cell. */
  const tableRows = (page: Page, selector: string) =>
    page
      .locator(`${selector} tbody tr`)
      .evaluateAll((rows) =>
        (rows as unknown as DomNode[]).map((row) =>
          Array.from(row.querySelectorAll('td'), (cell) => cell.textContent?.trim() ?? ''),
        ),
      );
  const number = (text: string) => Number(text.replace(/[^\d]/g, ''));
  /** The top pages' rows as the page shows them, by column name. */
  const topPages = (page: Page) =>
    page.locator('[data-testid=top-pages] table').evaluate((table) => {
      const node = table as unknown as DomNode;
      const headers = Array.from(node.querySelectorAll('thead th'), (th) => th.textContent?.trim() ?? '');
      return Array.from(node.querySelectorAll('tbody tr'), (row) =>
        Object.fromEntries(
          Array.from(row.querySelectorAll('td'), (cell, i) => [
            headers[i] ?? '',
            cell.textContent?.trim() ?? '',
          ]),
        ),
      );
    });
  /**
   * An API row as the page shows it with the default setting (crawlers not counted as AI): the
   * crawlers' columns after Total, and no assistants' column (it equals AI).
   */
  const shownRow = (row: PageRow) => ({
    Page: row.path,
    Human: String(row.human),
    AI: String(row.ai),
    Total: String(row.total),
    'Search crawlers': String(row.aiSearch),
    'Training crawlers': String(row.aiTraining),
    'Other crawlers': String(row.aiOther),
  });
  /** The numbers of a totals card, by their data-count names. */
  const shownTotals = async (page: Page, testId: string) => {
    const shown = await page
      .locator(`[data-testid=${testId}] [data-count]`)
      .evaluateAll((cells) =>
        Object.fromEntries(
          (cells as unknown as DomNode[]).map((c) => [c.getAttribute('data-count'), c.textContent ?? '']),
        ),
      );
    return Object.fromEntries(Object.entries(shown).map(([k, v]) => [k, number(v as string)]));
  };
  /** A totals card as the page shows the API's counts with the default setting: crawlers apart. */
  const defaultTotals = (c: Counts) => ({
    total: c.total,
    human: c.human,
    ai: c.ai,
    aiCrawlers: c.aiSearch + c.aiTraining + c.aiOther,
    aiSearch: c.aiSearch,
    aiTraining: c.aiTraining,
    aiOther: c.aiOther,
  });

  it("shows the export API's numbers for the viewer's days: totals, top pages with paging, chart data, breakdown", async () => {
    const { page, context, errors, requests } = await open();
    await page.goto(analyticsUrl());
    await ready(page);

    // The page asked for Berlin's days, with Berlin's offset at each end.
    const asked = requests.find((url) => url.pathname.endsWith('/visitors'));
    expect(asked?.searchParams.get('dateFrom')).toBe(QUERY.dateFrom);
    expect(asked?.searchParams.get('dateTo')).toBe(QUERY.dateTo);
    expect(await page.locator('.range__zone').textContent()).toContain('Europe/Berlin (UTC+01:00)');

    // Totals equal the API's.
    const visitors = await api<{ totals: Counts; visitors: PageRow[]; hasMore: boolean }>('visitors', {
      limit: '25',
    });
    const views = await api<{ totals: Counts; views: PageRow[] }>('views', { limit: '25' });
    expect(visitors.totals.total).toBeGreaterThan(0);
    for (const [testId, totals] of [
      ['total-visitors', visitors.totals],
      ['total-views', views.totals],
    ] as const) {
      expect(await shownTotals(page, testId), testId).toEqual(defaultTotals(totals));
      // With the default setting every AI view is an assistant's: AI needs no split of its own.
      expect(totals.aiAssistant, testId).toBe(totals.ai);
    }

    // The first page of top pages equals the API's first 25 rows, in order.
    expect(await topPages(page)).toEqual(visitors.visitors.map(shownRow));
    expect(visitors.hasMore).toBe(true);

    // The next page equals offset 25.
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(/page=2/);
    await page.locator('[data-testid=top-pages][data-ready=true]').waitFor();
    const second = await api<{ visitors: PageRow[] }>('visitors', { limit: '25', offset: '25' });
    const secondRows = await tableRows(page, '[data-testid=top-pages]');
    expect(secondRows.map((r) => r[0])).toEqual(second.visitors.map((r) => r.path));
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);

    // Views: the same table by views.
    await page.getByRole('radio', { name: 'Views' }).check();
    await page.waitForURL(/measure=views/);
    await page.locator('[data-testid=top-pages][data-ready=true] tbody tr').first().waitFor();
    expect((await tableRows(page, '[data-testid=top-pages]')).map((r) => number(r[3] ?? ''))).toEqual(
      views.views.map((r) => r.total),
    );

    // The chart's table alternative holds the time series' numbers (views, as chosen).
    const series = await api<{ interval: string; points: { start: string; views: Counts }[] }>('timeseries', {
      interval: 'day',
    });
    expect(series.interval).toBe('day');
    await page.getByText('Show the numbers as a table').click();
    const points = await tableRows(page, '[data-testid=traffic-chart]');
    expect(points.map((r) => [number(r[1] ?? ''), number(r[2] ?? ''), number(r[3] ?? '')])).toEqual(
      series.points.map((p) => [p.views.human, p.views.ai, p.views.total]),
    );
    expect(await page.locator('[data-testid=traffic-chart] canvas').count()).toBeGreaterThan(0);

    // The breakdown names the agents the API names.
    const breakdown = await api<{ agents: { agent: string; visitors: number }[] }>('breakdown');
    const agents = (await tableRows(page, '[data-testid=breakdown] .breakdown__agents')).map((r) => r[0]);
    expect(agents.sort()).toEqual(breakdown.agents.map((a) => a.agent).sort());
    expect(agents).toContain('Claude Code');
    // …and the operators the API names, with the same visitors.
    const { operators } = await api<{ operators: { operator: string; visitors: number }[] }>('breakdown');
    const operatorRows = await tableRows(page, '[data-testid=breakdown] .breakdown__operators');
    expect(operatorRows.map((r) => [r[0], number(r[1] ?? '')])).toEqual(
      operators.map((o) => [o.operator, o.visitors]),
    );
    expect(operators.map((o) => o.operator)).toContain('Anthropic');

    // The install guide has this project's values.
    const guide = await page.locator('.install').textContent();
    expect(guide).toContain(`/script.js" data-project="${t.project.id}"></script>`);
    expect(guide).toContain(`/v1/analytics/${t.project.id}/events`);
    expect(guide).toContain(`analytics import --project ${t.project.id}`);
    // Only the signed-out session check of the sign-in page was refused.
    expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
    await context.close();
  });

  it('counts verified agents only when asked: the totals, pages and operators of verifiedOnly=true', async () => {
    const { page, context, errors, requests } = await open();
    await page.goto(analyticsUrl());
    await ready(page);
    const all = await api<{ totals: Counts }>('visitors', { limit: '25' });
    const verified = await api<{ totals: Counts; visitors: PageRow[] }>('visitors', {
      limit: '25',
      verifiedOnly: 'true',
    });
    // The claimed agents (ChatGPT-User and half the GPTBots, from addresses OpenAI does not publish) leave.
    expect(verified.totals.ai).toBeLessThan(all.totals.ai);
    expect(verified.totals.aiTraining).toBeLessThan(all.totals.aiTraining);
    expect(verified.totals.aiTraining).toBeGreaterThan(0);

    await page.getByLabel('Verified agents only').check();
    await page.waitForURL(/verified=1/);
    await page.locator('[data-testid=top-pages][data-ready=true] tbody tr').first().waitFor();
    await page
      .locator('[data-testid=total-visitors] [data-count=ai]')
      .filter({ hasText: String(verified.totals.ai) })
      .waitFor();
    // The reports ask in parallel: the breakdown's request may leave after the totals are drawn.
    await expect
      .poll(() =>
        requests
          .filter((u) => u.searchParams.get('verifiedOnly') === 'true')
          .map((u) => u.pathname.split('/').at(-1)),
      )
      .toEqual(expect.arrayContaining(['visitors', 'timeseries', 'breakdown']));
    expect(await shownTotals(page, 'total-visitors')).toEqual(defaultTotals(verified.totals));
    expect(await topPages(page)).toEqual(verified.visitors.map(shownRow));
    const { operators } = await api<{ operators: { operator: string; visitors: number }[] }>('breakdown', {
      verifiedOnly: 'true',
    });
    await page.locator('[data-testid=breakdown]').waitFor();
    await page.getByText('Verified agents only: an agent whose address').waitFor();
    const operatorRows = await tableRows(page, '[data-testid=breakdown] .breakdown__operators');
    expect(operatorRows.map((r) => [r[0], number(r[1] ?? '')])).toEqual(
      operators.map((o) => [o.operator, o.visitors]),
    );
    await expectAccessible(page, 'analytics, verified agents only');
    await saveScreenshot(page, 'analytics-verified-only-laptop-light');

    // Unticked, the address loses the choice and the numbers are all views' again.
    await page.getByLabel('Verified agents only').uncheck();
    await page.waitForURL((url) => !url.searchParams.has('verified'));
    await page
      .locator('[data-testid=total-visitors] [data-count=ai]')
      .filter({ hasText: String(all.totals.ai) })
      .waitFor();
    expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
    await context.close();
  }, 60_000);

  it('chooses days: a preset counts from the viewer’s today, a custom range is checked', async () => {
    const { page, context, requests } = await open();
    await page.goto(`/projects/${t.project.id}/analytics`);
    await page.locator('[data-testid=traffic-chart][data-ready=true]').waitFor();
    await page.getByLabel('Dates', { exact: true }).selectOption('7d');
    await page.waitForURL(/range=7d/);
    const sevenDays = requests.filter((url) => url.pathname.endsWith('/timeseries')).at(-1);
    const from = sevenDays?.searchParams.get('dateFrom') ?? '';
    const to = sevenDays?.searchParams.get('dateTo') ?? '';
    // Midnight in Berlin, seven days apart (a daylight-saving change may shift the offset by an hour).
    expect(from).toMatch(/T00:00:00\+0[12]:00$/);
    expect(to).toMatch(/T00:00:00\+0[12]:00$/);
    expect(Math.round((Date.parse(to) - Date.parse(from)) / 3_600_000 / 24)).toBe(7);

    // Custom: an end before the start is refused in words; a good range goes into the address.
    await page.getByLabel('Dates', { exact: true }).selectOption('custom');
    await page.getByLabel('From').fill('2025-03-05');
    await page.getByLabel('To (included)').fill('2025-03-02');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('alert').filter({ hasText: 'The end date is before the start date' }).waitFor();
    await page.getByLabel('To (included)').fill('2025-03-06');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/from=2025-03-05&to=2025-03-06/);
    // Two days: hourly points, shown in the viewer's time zone.
    await page.locator('[data-testid=traffic-chart][data-ready=true]').waitFor();
    expect(await page.locator('[data-testid=traffic-chart] figcaption').textContent()).toContain('per hour');
    await context.close();
  });

  it('shows ten operators and ten agents, and all of them on asking', async () => {
    // A day of its own: an example of every AI crawler crawler-user-agents lists, so dozens of
    // operators and agents read the docs.
    const day = '2025-05-01';
    const examples = (crawlerUserAgents as ReadonlyArray<{ instances: string[]; tags?: string[] }>)
      .filter((crawler) => crawler.tags?.includes('ai-crawler'))
      .flatMap((crawler) => crawler.instances.slice(0, 1));
    await ingest(
      t,
      examples.map((userAgent, i) => ({
        timestamp: `${day}T12:00:00Z`,
        path: '/guide/page-1',
        userAgent,
        ip: `198.51.100.${i % 250}`,
        id: `operators-${i}`,
      })),
    );
    const response = await t.request(
      'GET',
      `/v1/analytics/${t.project.id}/breakdown?dateFrom=${day}T00:00:00%2B02:00&dateTo=2025-05-02T00:00:00%2B02:00`,
    );
    const { operators, agents } = (await response.json()) as {
      operators: { operator: string; visitors: number }[];
      agents: { agent: string }[];
    };
    expect(operators.length).toBeGreaterThan(20);
    expect(agents.length).toBeGreaterThan(20);

    const { page, context, errors } = await open();
    await page.goto(`/projects/${t.project.id}/analytics?from=${day}&to=${day}`);
    await page.locator('[data-testid=breakdown]').waitFor();
    const operatorsTable = '[data-testid=breakdown] .breakdown__operators';
    const shownOperators = async () =>
      (await tableRows(page, operatorsTable)).map((r) => [r[0], number(r[1] ?? '')]);
    const expected = operators.map((o) => [o.operator, o.visitors]);
    expect(await shownOperators()).toEqual(expected.slice(0, 10));
    expect(await tableRows(page, '[data-testid=breakdown] .breakdown__agents')).toHaveLength(10);

    await page.getByRole('button', { name: `Show all ${operators.length} operators` }).click();
    expect(await shownOperators()).toEqual(expected);
    await page.getByRole('button', { name: `Show all ${agents.length} agents` }).click();
    expect(await tableRows(page, '[data-testid=breakdown] .breakdown__agents')).toHaveLength(agents.length);
    await page.getByRole('button', { name: 'Show fewer operators' }).click();
    expect(await shownOperators()).toEqual(expected.slice(0, 10));
    await expectAccessible(page, 'analytics, every operator');
    expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
    await context.close();
  }, 60_000);

  it('says so when the days have no traffic', async () => {
    const { page, context } = await open();
    await page.goto(`/projects/${t.project.id}/analytics?from=2024-01-01&to=2024-01-02`);
    await page.getByText('No traffic on these days').waitFor();
    await page.locator('[data-testid=traffic-chart][data-ready=true]').waitFor();
    await context.close();
  });

  /** The numbers of the parts that add up to `name` in a totals card. */
  const partsOf = async (page: Page, testId: string, name: string) =>
    (
      await page
        .locator(`[data-testid=${testId}] [data-sum-of=${name}] [data-count]`)
        .evaluateAll((cells) => (cells as unknown as DomNode[]).map((c) => c.textContent ?? ''))
    ).map(number);
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const patchSettings = async (body: Record<string, unknown>) => {
    const response = await t.request('PATCH', `/v1/analytics/${t.project.id}/settings`, { body });
    expect(response.status).toBe(200);
  };

  it('puts the parts of a number beside it only when they add up to it: crawlers apart, or AI by purpose', async () => {
    const { page, context, errors } = await open();
    try {
      await page.goto(analyticsUrl());
      await ready(page);
      for (const testId of ['total-visitors', 'total-views']) {
        const shown = await shownTotals(page, testId);
        // The test's people and agents never share an address: human and AI add up to the total.
        expect((shown.human ?? 0) + (shown.ai ?? 0), testId).toBe(shown.total);
        // AI is assistants only: no purposes under it; the crawlers have their own total, and parts.
        expect(await partsOf(page, testId, 'ai'), testId).toEqual([]);
        expect(shown.aiCrawlers, testId).toBeGreaterThan(0);
        expect(sum(await partsOf(page, testId, 'aiCrawlers')), testId).toBe(shown.aiCrawlers);
      }
      expect(await page.getByText('AI crawlers, not counted in AI').count()).toBe(2);

      // Counted as AI (the project's setting), the crawlers are parts of AI.
      await patchSettings({ countAiCrawlersAsAi: true });
      await page.reload();
      await ready(page);
      await page.locator('[data-testid=total-visitors] [data-sum-of=ai]').waitFor();
      const api = await t.request(
        'GET',
        `/v1/analytics/${t.project.id}/visitors?${new URLSearchParams({ ...QUERY, limit: '25' })}`,
      );
      const counted = (await api.json()) as { totals: Counts; visitors: PageRow[] };
      for (const testId of ['total-visitors', 'total-views']) {
        const shown = await shownTotals(page, testId);
        expect(shown.aiCrawlers, testId).toBeUndefined();
        expect(shown.ai, testId).toBeGreaterThan(0);
        expect(sum(await partsOf(page, testId, 'ai')), testId).toBe(shown.ai);
      }
      expect(await shownTotals(page, 'total-visitors')).toEqual({
        total: counted.totals.total,
        human: counted.totals.human,
        ai: counted.totals.ai,
        aiAssistant: counted.totals.aiAssistant,
        aiSearch: counted.totals.aiSearch,
        aiTraining: counted.totals.aiTraining,
        aiOther: counted.totals.aiOther,
      });
      // The top pages too: AI, then its four purposes, which add up to it.
      const rows = await topPages(page);
      expect(rows.map((r) => r.Page)).toEqual(counted.visitors.map((r) => r.path));
      for (const row of rows) {
        const parts = ['AI assistants', 'AI search', 'AI training', 'Other AI'].map((h) =>
          number(row[h] ?? ''),
        );
        expect(sum(parts), row.Page).toBe(number(row.AI ?? ''));
      }
      expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
    } finally {
      await patchSettings({ countAiCrawlersAsAi: false });
      await context.close();
    }
  }, 60_000);

  it('says that a visitor counts once per day when the days span several (the salt rotation)', async () => {
    const { page, context } = await open();
    try {
      await page.goto(analyticsUrl());
      await ready(page);
      const note = page.getByTestId('visitor-count-note');
      expect(await note.textContent()).toMatch(
        /^A visitor counts once per UTC day: .*visitor-days, not people\.$/,
      );
      // Visitor ids that never rotate: a visitor is one over any range, and the page says nothing.
      await patchSettings({ saltRotation: 'never' });
      await page.reload();
      await ready(page);
      await page.locator('[data-testid=total-visitors] [data-count=total]').waitFor();
      expect(await note.count()).toBe(0);
      await patchSettings({ saltRotation: 'weekly' });
      await page.reload();
      await ready(page);
      expect(await note.textContent()).toContain('once per week (Monday to Sunday, UTC)');
    } finally {
      await patchSettings({ saltRotation: null });
      await context.close();
    }
  });

  it('starts the chart at the range’s start, with empty days before the first with data', async () => {
    const { page, context } = await open();
    // Four days before the first view (in Berlin: the last day of February holds one at 00:30).
    await page.goto(`/projects/${t.project.id}/analytics?from=2025-02-24&to=2025-03-07`);
    await page.locator('[data-testid=traffic-chart][data-ready=true]').waitFor();
    await page.getByText('Show the numbers as a table').click();
    const points = await tableRows(page, '[data-testid=traffic-chart]');
    // One point per UTC day from 23:00 UTC on 23 February (Berlin's midnight) to 7 March.
    expect(points).toHaveLength(13);
    expect(points[0]?.[0]).toBe('23 Feb 2025');
    expect(points.slice(0, 5).map((r) => number(r[3] ?? ''))).toEqual([0, 0, 0, 0, 0]);
    expect(number(points[5]?.[3] ?? '')).toBeGreaterThan(0);
    await context.close();
  });

  it("gives an ingestion example that, run as copied, shows in the default days' numbers", async () => {
    const { page, context, errors } = await open();
    // The default range: the last 30 days, up to today.
    await page.goto(`/projects/${t.project.id}/analytics`);
    await page.locator('[data-testid=total-views] [data-count=total]').waitFor();
    const before = (await shownTotals(page, 'total-views')).total ?? Number.NaN;
    await page.getByRole('button', { name: 'Copy the ingestion example' }).click();
    const copied = await inPage<string>(page, 'navigator.clipboard.readText()');
    // It names the server's public URL; this test's server listens on a port of its own.
    const command = copied.replace(/^curl -X POST "[^"]*?\/v1\//, `curl -sS -X POST "${t.baseUrl}/v1/`);
    expect(command).toContain(`${t.baseUrl}/v1/analytics/${t.project.id}/events`);
    // Not execFileSync: the server answering curl runs in this process.
    const { stdout } = await promisify(execFile)('bash', ['-c', command], {
      env: { PATH: process.env.PATH ?? '', DOCWRIGHT_INGEST_KEY: t.key },
      timeout: 20_000,
    });
    expect(JSON.parse(stdout)).toMatchObject({ accepted: 1, rejected: [] });
    await page.reload();
    await expect
      .poll(async () => (await shownTotals(page, 'total-views')).total, { timeout: 10_000 })
      .toBe(before + 1);
    expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
    await context.close();
  });

  it('lays its tables out on a phone without cutting a column off or breaking a word', async () => {
    const { page, context } = await open(PHONE);
    await page.goto(analyticsUrl());
    await ready(page);
    await page.getByText('Show the numbers as a table').click();
    await page.locator('[data-testid=traffic-chart] tbody tr').first().waitFor();
    // Every table fits its box: no column is beyond the edge, to be found by scrolling.
    const overflowing = await inPage<string[]>(
      page,
      `Array.from(document.querySelectorAll('main .table-wrap'))
        .filter((box) => box.scrollWidth > box.clientWidth + 1)
        .map((box) => box.getAttribute('aria-label') + ': ' + box.scrollWidth + ' > ' + box.clientWidth)`,
    );
    // No line of a cell ends inside a word (after a slash, a hyphen or a space is fine).
    const brokenWords = await inPage<string[]>(page, MID_WORD_BREAKS);
    expect({ overflowing, brokenWords }).toEqual({ overflowing: [], brokenWords: [] });
    expect(await page.locator('main .table-wrap').count()).toBeGreaterThanOrEqual(5);
    // The long path is there, whole.
    await page.locator('[data-testid=top-pages] td', { hasText: LONG_PATH }).waitFor();
    await context.close();
  });

  for (const { device, viewport, scheme } of LOOKS) {
    it(`is accessible and fits the screen on a ${device}, ${scheme}`, {
      timeout: LOOK_TIMEOUT_MS,
    }, async () => {
      const { page, context, errors } = await open(viewport, scheme);
      await page.goto(analyticsUrl());
      await ready(page);
      expect(await inPage<number>(page, 'document.documentElement.scrollWidth')).toBeLessThanOrEqual(
        viewport.width,
      );
      await expectAccessible(page, `analytics (${device}, ${scheme})`);
      await saveScreenshot(page, `analytics-data-${device}-${scheme}`);
      expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
      await context.close();
    });
  }
});

interface IngestEvent {
  timestamp: string;
  path: string;
  userAgent: string;
  ip: string;
  id: string;
}

/**
 * Seven days of traffic: 30 pages read by people from many addresses, two AI agents, and a
 * few views just inside and just outside Berlin's days (which UTC days would count otherwise).
 */
function trafficEvents(): IngestEvent[] {
  const events: IngestEvent[] = [];
  let n = 0;
  const add = (timestamp: string, path: string, userAgent: string, ip: string) =>
    events.push({ timestamp, path, userAgent, ip, id: `e${n++}` });
  for (let day = 1; day <= 7; day++) {
    const date = `2025-03-0${day}`;
    for (let page = 0; page < 30; page++) {
      const readers = 1 + ((page * 7 + day) % 5);
      for (let r = 0; r < readers; r++) {
        add(
          `${date}T${String(8 + (r % 10)).padStart(2, '0')}:15:00Z`,
          `/guide/page-${page}`,
          BROWSER_UA,
          `203.0.113.${(page + r * 3) % 200}`,
        );
      }
    }
    for (let r = 0; r < 4; r++) add(`${date}T09:45:00Z`, LONG_PATH, BROWSER_UA, `203.0.113.${210 + r}`);
    add(`${date}T12:00:00Z`, '/quickstart.md', CLAUDE_UA, `198.51.100.${day}`);
    add(`${date}T13:00:00Z`, '/quickstart', CHATGPT_UA, `198.51.100.${50 + day}`);
    // GPTBot once from OpenAI's published addresses (gptbot.json) and once from elsewhere.
    add(`${date}T14:00:00Z`, '/guide/page-1', GPTBOT_UA, `20.171.206.${day}`);
    add(`${date}T14:30:00Z`, '/guide/page-2', GPTBOT_UA, `198.51.100.${100 + day}`);
  }
  // 23:30 UTC on 28 February is 00:30 on 1 March in Berlin: inside. 23:30 UTC on 7 March is
  // 00:30 on 8 March in Berlin: outside.
  add('2025-02-28T23:30:00Z', '/edge-inside', BROWSER_UA, '192.0.2.1');
  add('2025-03-07T23:30:00Z', '/edge-outside', BROWSER_UA, '192.0.2.2');
  return events;
}

async function ingest(t: TestApp, events: IngestEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 500) {
    const response = await t.request('POST', `/v1/analytics/${t.project.id}/events`, {
      body: { events: events.slice(i, i + 500) },
    });
    expect(response.status).toBe(202);
    const result = (await response.json()) as { rejected: unknown[] };
    expect(result.rejected).toEqual([]);
  }
}

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
  const pageRow = ([path, human, ai, total, aiAssistant, aiSearch, aiTraining, aiOther]: string[]) => ({
    path,
    ...Object.fromEntries(
      Object.entries({ human, ai, total, aiAssistant, aiSearch, aiTraining, aiOther }).map(([k, v]) => [
        k,
        number(v ?? ''),
      ]),
    ),
  });
  /** The numbers of a totals card, by their data-count names. */
  const shownTotals = async (page: Page, testId: string) => {
    const shown = await page
      .locator(`[data-testid=${testId}] [data-count]`)
      .evaluateAll((cells) =>
        Object.fromEntries(cells.map((c) => [c.getAttribute('data-count'), c.textContent ?? ''])),
      );
    return Object.fromEntries(Object.entries(shown).map(([k, v]) => [k, number(v as string)]));
  };

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
      expect(await shownTotals(page, testId), testId).toEqual(totals);
    }

    // The first page of top pages equals the API's first 25 rows, in order.
    const rows = (await tableRows(page, '[data-testid=top-pages]')).map(pageRow);
    expect(rows).toEqual(visitors.visitors);
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
    expect(await shownTotals(page, 'total-visitors')).toEqual(verified.totals);
    expect((await tableRows(page, '[data-testid=top-pages]')).map(pageRow)).toEqual(verified.visitors);
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

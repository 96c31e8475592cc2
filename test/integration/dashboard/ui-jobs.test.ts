import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentationAgent } from '../../../src/app/create-agent.ts';
import { createWorker } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import type { JobView } from '../../../src/domain/jobs/job-view.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { git } from '../../helpers/git-repos.ts';
import {
  type ScriptedOpenAIServer,
  type ScriptedReply,
  type ScriptStep,
  startScriptedOpenAIServer,
} from '../../helpers/scripted-openai-server.ts';
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

const EXAMPLE_SITE = fileURLToPath(new URL('../../../examples/docs-site', import.meta.url));
const PASSWORD = 'a long enough password';
const PUBLIC_URL = 'http://docwright.test';
const PAGE_TEXT = 'You can make 100 requests per minute.';
const RATE_LIMITS_PAGE = `---\ntitle: Rate limits\ndescription: How many requests you can make.\n---\n\n${PAGE_TEXT}\n`;

/** The model's side of a turn that adds a page and links it; `delayMs` slows each chunk of its first reply. */
const addPage = (page: string, delayMs = 0, summary = `Added ${page}.mdx and linked it.`): ScriptStep[] => [
  {
    text: 'Let me look at the navigation first.',
    toolCalls: [{ name: 'read_file', arguments: { path: 'docs.json' } }],
    chunkDelayMs: delayMs,
  },
  { toolCalls: [{ name: 'write_file', arguments: { path: `${page}.mdx`, content: RATE_LIMITS_PAGE } }] },
  {
    toolCalls: [
      {
        name: 'edit_file',
        arguments: {
          path: 'docs.json',
          old_string: '"guides/webhooks"',
          new_string: `"guides/webhooks", "${page}"`,
        },
      },
    ],
  },
  { toolCalls: [{ name: 'validate', arguments: {} }] },
  {
    toolCalls: [
      {
        name: 'finish',
        arguments: { summary, pull_request_title: `Add ${page}` },
      },
    ],
  },
];

/**
 * The jobs pages against a real server, worker, local repository and the scripted model: a job
 * started from the prompt box turns completed with its review link without a reload, its
 * follow-up, review and merge, archive; the list's filters and live statuses; the stream's
 * resume and the polling fallback; what a viewer does not see; accessibility and screenshots.
 */
describe(`the jobs pages in Chromium (${testBackend})`, () => {
  let t: TestApp;
  let browser: Browser;
  let model: ScriptedOpenAIServer;
  let worker: Worker;
  let repo: string;
  let dataDir: string;
  let projectId: string;
  let apiKey: string;
  const admin = { email: 'admin@example.com' };
  const viewer = { email: 'viewer@example.com' };

  beforeAll(async () => {
    model = await startScriptedOpenAIServer([], { apiKey: 'sk-test-key' });
    repo = mkdtempSync(path.join(tmpdir(), 'docwright-ui-jobs-repo-'));
    cpSync(EXAMPLE_SITE, repo, { recursive: true });
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'add', '--all');
    git(repo, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '-m', 'Docs');
    const env = {
      DOCWRIGHT_MODEL: 'openai-compatible:test-model',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
      DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: 'sk-test-key',
      DOCWRIGHT_MODEL_MAX_RETRIES: '0',
      DOCWRIGHT_POLL_INTERVAL_MS: '50',
      DOCWRIGHT_PUBLIC_URL: PUBLIC_URL,
    };
    dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-ui-jobs-data-'));
    const config = loadConfig({ ...env, DOCWRIGHT_DATA_DIR: dataDir });
    const agent = createDocumentationAgent(config, pino({ level: 'silent' }), { secretBox: null });
    t = await startTestApp({ env, agent });
    const project = await t.services.projects.create({ name: 'Local docs', repository: repo });
    projectId = project.id;
    apiKey = (await t.services.keys.create(project.id, 'ui')).key;
    await t.services.users.create({ email: admin.email, password: PASSWORD, role: 'admin' });
    await t.services.users.create({ email: viewer.email, password: PASSWORD, role: 'viewer' });
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await t?.close();
    await model?.close();
    for (const dir of [repo, dataDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function open(
    who: { email: string },
    viewport = LAPTOP,
    colorScheme: 'light' | 'dark' = 'light',
    baseURL = t.baseUrl,
  ): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({
      baseURL,
      viewport,
      colorScheme,
      locale: 'en-GB',
      timezoneId: 'UTC',
    });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 401/.test(message.text())) errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(String(error)));
    await signInThroughForm(page, who.email, PASSWORD);
    return { context, page, errors };
  }

  const jobsUrl = () => `/projects/${projectId}/jobs`;
  const jobUrl = (jobId: string) => `/projects/${projectId}/jobs/${jobId}`;
  const summary = (page: Page, status: string) =>
    page.locator(`[data-testid=job-summary][data-status=${status}]`).waitFor();
  /** A job created through the public API with an admin key, as a script would. */
  async function createJob(prompt: string): Promise<JobView> {
    const response = await t.request('POST', `/v2/agent/${projectId}/job`, { key: apiKey, body: { prompt } });
    expect(response.status).toBe(201);
    return (await response.json()) as JobView;
  }
  async function waitForJob(jobId: string, status: JobView['status']): Promise<JobView> {
    let job: JobView | null = null;
    await expect
      .poll(
        async () => {
          job = (await (
            await t.request('GET', `/v2/agent/${projectId}/job/${jobId}`, { key: apiKey })
          ).json()) as JobView;
          return job.status;
        },
        { timeout: 20_000, interval: 50 },
      )
      .toBe(status);
    return job as unknown as JobView;
  }

  let finished: JobView | null = null;
  /** A completed job that changed files (made once, for the tests that only look at one). */
  async function completedJobWithChanges(): Promise<JobView> {
    if (!finished) {
      // A plan the agent left part-done, so the looks below cover every status of a step.
      model.push(
        {
          toolCalls: [
            {
              name: 'update_plan',
              arguments: {
                items: [
                  { title: 'Read the navigation', status: 'done' },
                  { title: 'Write the sixth limits page', status: 'in_progress' },
                  { title: 'Link it in docs.json', status: 'pending' },
                ],
              },
            },
          ],
        },
        ...addPage('guides/limits-six'),
      );
      finished = await waitForJob((await createJob('Add a sixth limits page')).id, 'completed');
      expect(finished.prLink).not.toBeNull();
    }
    return finished;
  }

  // A whole job's life in the browser, three turns: 15–17 s on a quiet machine, so a slow one
  // needs more than the default 30 s.
  it('starts a job from the prompt box and follows it to completed, with its review, without a reload; follow-up, merge, archive', {
    timeout: 90_000,
  }, async () => {
    const { page, context, errors } = await open(admin);
    const streams: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/events')) streams.push(request.url());
    });
    model.push(...addPage('guides/rate-limits', 200));

    await page.goto(jobsUrl());
    await page.getByLabel('What should the agent do?').fill('Add a page about rate limits');
    await page.getByRole('button', { name: 'Start job' }).click();
    await page.waitForURL(/\/jobs\/job_/);
    const jobId = new URL(page.url()).pathname.split('/').at(-1) as string;
    // Marks this document: a reload would lose the mark.
    await inPage(page, 'window.__sameDocument = true');
    await page.getByText('The agent is working…').waitFor();

    await summary(page, 'completed');
    expect(await inPage(page, 'window.__sameDocument')).toBe(true);
    expect(streams.length).toBeGreaterThan(0);
    expect(await page.getByTestId('pr-link').getAttribute('data-href')).toBe(`${PUBLIC_URL}/review/${jobId}`);

    // The conversation: the prompt, the agent's words, its tool steps, the summary, the usage.
    const turn = page.locator('[data-turn="1"][data-turn-status=succeeded]');
    await turn.waitFor();
    expect(await turn.locator('.tool__name').allTextContents()).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'validate',
      'finish',
    ]);
    await turn.getByText('Let me look at the navigation first.').waitFor();
    await turn.getByText('Added guides/rate-limits.mdx and linked it.').first().waitFor();
    expect(await turn.getByTestId('turn-usage').textContent()).toMatch(
      /^[\d,]+ input · [\d,]+ output tokens · (cost unknown|about \$[\d.]+)$/,
    );
    await turn.locator('.tool__summary', { hasText: 'write_file' }).click();
    await turn
      .getByRole('region', { name: 'Input of write_file' })
      .getByText('guides/rate-limits.mdx')
      .waitFor();

    // The changes: the new page's lines, added and numbered.
    const changes = page.getByTestId('changes');
    await page.locator('[data-testid=changes][data-state=open]').waitFor();
    const added = changes.locator('.diff__line--add', { hasText: PAGE_TEXT });
    await added.waitFor();
    expect(await added.locator('.diff__num').nth(1).textContent()).toBe('6');
    await expectAccessible(page, 'job page, completed');
    await saveScreenshot(page, 'job-completed-laptop-light');

    // A follow-up continues the same branch.
    model.push(
      {
        toolCalls: [{ name: 'read_file', arguments: { path: 'guides/rate-limits.mdx' } }],
        chunkDelayMs: 500,
      },
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: {
              path: 'guides/rate-limits.mdx',
              old_string: '100 requests',
              new_string: '120 requests',
            },
          },
        ],
      },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Raised the documented limit to 120.' } }] },
    );
    await page.getByLabel('Follow-up').fill('The limit is 120, not 100');
    await page.getByRole('button', { name: 'Send follow-up' }).click();
    await page.locator('[data-turn="2"]').getByText('The limit is 120, not 100').waitFor();
    await page.locator('[data-turn="2"][data-turn-status=succeeded]').waitFor();
    await summary(page, 'completed');
    await changes.locator('.diff__line--add', { hasText: '120 requests per minute' }).waitFor();
    expect(await inPage(page, 'window.__sameDocument')).toBe(true);

    // Review and merge, here: the repository is on this machine.
    const mergeButton = page.getByRole('button', { name: 'Merge into main' });
    await mergeButton.click();
    const dialog = page.getByRole('dialog', { name: 'Merge into main?' });
    // Merging is what the page offers: its confirmation is the primary button, not a red warning.
    const confirm = dialog.getByRole('button', { name: 'Merge' });
    const background = (button: typeof confirm) =>
      button.evaluate((element) => {
        // In the page (this file's Node types know no DOM).
        const page = globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } };
        return page.getComputedStyle(element).backgroundColor;
      });
    const primary = await background(mergeButton);
    expect(primary).toMatch(/^rgb/);
    expect(await background(confirm)).toBe(primary);
    expect(await confirm.getAttribute('class')).not.toContain('danger');
    await confirm.click();
    await page.locator('[data-testid=changes][data-state=merged]').waitFor();
    expect(await page.getByTestId('pr-link').textContent()).toBe('Merged: see the changes below');
    expect(git(repo, 'show', 'main:guides/rate-limits.mdx')).toContain('120 requests per minute');
    expect(await page.getByRole('button', { name: /Merge into/ }).count()).toBe(0);

    // Archive: no more follow-ups.
    await page.getByRole('button', { name: 'Archive job' }).click();
    await page
      .getByRole('dialog', { name: 'Archive this job?' })
      .getByRole('button', { name: 'Archive' })
      .click();
    await summary(page, 'archived');
    await page.getByText('This job is archived: it takes no more messages.').waitFor();
    expect(await page.getByLabel('Follow-up').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Archive job' }).count()).toBe(0);
    expect((await waitForJob(jobId, 'archived')).archivedAt).not.toBeNull();

    // The list: the job, found by its prompt, filtered by status.
    await page.getByRole('link', { name: '← All jobs' }).click();
    const row = page.locator(`a[data-job-id="${jobId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toBe('Add a page about rate limits');
    // Merged, the list says so rather than "local review".
    const listed = page.locator('tr', { has: row });
    await listed.locator('.review-merged', { hasText: 'merged' }).waitFor();
    expect(await listed.textContent()).not.toContain('local review');
    await page.getByLabel('Search prompts').fill('120, NOT');
    await page.waitForURL(/q=120/);
    await row.waitFor();
    await page.getByLabel('Search prompts').fill('nothing like this');
    await page.getByText('No job matches').waitFor();
    await page.getByLabel('Search prompts').fill('');
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No job matches').waitFor();
    await page.getByLabel('Status').selectOption('archived');
    await row.waitFor();
    expect(await inPage(page, 'window.__sameDocument')).toBe(true);

    // Old review links, and /jobs/{id}, land on the job's page.
    await page.goto(`/review/${jobId}`);
    await page.waitForURL(`**${jobUrl(jobId)}`);
    await summary(page, 'archived');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("renders the Markdown of the agent's summary, safely: no raw HTML, only http(s) and mailto links, no image loaded", async () => {
    const markdown = [
      '**Rate limits** are in `guides/limits-md.mdx`.',
      '',
      '- 100 requests a minute',
      '- [The API](https://example.com/api) or [write to us](mailto:docs@example.com)',
      '',
      '[Run this](javascript:window.__pwned=1), [this](data:text/html,hi) and [that](/projects)',
      '',
      '![tracking pixel](https://tracker.example/pixel.png)',
      '',
      '# A heading',
      '',
      '<img src=x onerror="window.__pwned=2"> <b>bold?</b>',
    ].join('\n');
    model.push(...addPage('guides/limits-md', 0, markdown));
    const job = await createJob('Add a Markdown limits page');
    await waitForJob(job.id, 'completed');
    const { page, context, errors } = await open(admin);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(jobUrl(job.id));
    const summaryBox = page.locator('[data-turn="1"] .turn__summary');
    await summaryBox.locator('strong', { hasText: 'Rate limits' }).waitFor();
    expect(await summaryBox.locator('code').textContent()).toBe('guides/limits-md.mdx');
    expect(await summaryBox.locator('li').count()).toBe(2);
    expect(
      await summaryBox
        .locator('a')
        .evaluateAll((links) =>
          (links as unknown as { getAttribute(name: string): string | null }[]).map((a) =>
            a.getAttribute('href'),
          ),
        ),
    ).toEqual(['https://example.com/api', 'mailto:docs@example.com']);
    // No element the text asked for: no image, no raw HTML, no heading in the page's outline.
    expect(await summaryBox.locator('img, script, b, h1, h2, h3').count()).toBe(0);
    const text = (await summaryBox.textContent()) ?? '';
    expect(text).not.toContain('**');
    expect(text).toContain('Run this, this and that');
    expect(text).toContain('[image: tracking pixel]');
    expect(text).toContain('<img src=x onerror="window.__pwned=2"> <b>bold?</b>');
    await summaryBox.locator('strong', { hasText: 'A heading' }).waitFor();
    expect(await inPage(page, 'typeof window.__pwned')).toBe('undefined');
    expect(requested.filter((url) => url.includes('tracker.example'))).toEqual([]);
    await expectAccessible(page, 'job page, Markdown summary');
    await saveScreenshot(page, 'job-markdown-summary-laptop-light');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows the agent's plan live as a checklist, after a reload too, and where it was set in the conversation", {
    timeout: 90_000,
  }, async () => {
    const plan = (read: string, write: string, link: string) => ({
      toolCalls: [
        {
          name: 'update_plan',
          arguments: {
            items: [
              { title: 'Read the navigation', status: read },
              { title: 'Write the rate limits page', status: write },
              { title: 'Link it in docs.json', status: link },
            ],
          },
        },
      ],
    });
    // The model holds its answers back at two points, so the page is looked at while the agent works.
    const held = [Promise.withResolvers<void>(), Promise.withResolvers<void>()] as const;
    const [read, write, link, , finish] = addPage('guides/limits-plan') as [
      ScriptStep,
      ScriptStep,
      ScriptStep,
      ScriptStep,
      ScriptStep,
    ];
    model.push(
      plan('in_progress', 'pending', 'pending'),
      read,
      async () => {
        await held[0].promise;
        return plan('done', 'in_progress', 'pending');
      },
      async () => {
        await held[1].promise;
        return write as ScriptedReply;
      },
      link,
      plan('done', 'done', 'done'),
      finish,
    );
    const { page, context, errors } = await open(admin);
    const job = await createJob('Add a page about limits, with a plan');
    await page.goto(jobUrl(job.id));
    const card = page.getByTestId('plan');
    const steps = () =>
      card
        .getByRole('list', { name: "The agent's plan" })
        .getByRole('listitem')
        .evaluateAll((items) =>
          (items as unknown as { dataset: { status: string }; innerText: string }[]).map(
            (item) => `${item.dataset.status}: ${item.innerText.replace(/\s+/g, ' ')}`,
          ),
        );

    // Each status is said in words, not only by colour or mark.
    await expect
      .poll(steps, { timeout: 20_000 })
      .toEqual([
        'in_progress: Read the navigation In progress',
        'pending: Write the rate limits page Pending',
        'pending: Link it in docs.json Pending',
      ]);
    expect(await card.getByRole('heading', { name: 'Plan' }).count()).toBe(1);
    expect(await card.getByTestId('plan-progress').textContent()).toBe('0 of 3 done');
    // A reload mid-turn shows the plan again, from the stream's replay.
    await page.reload();
    await expect
      .poll(steps)
      .toEqual([
        'in_progress: Read the navigation In progress',
        'pending: Write the rate limits page Pending',
        'pending: Link it in docs.json Pending',
      ]);
    await inPage(page, 'window.__sameDocument = true');

    held[0].resolve();
    await expect
      .poll(steps)
      .toEqual([
        'done: Read the navigation Done',
        'in_progress: Write the rate limits page In progress',
        'pending: Link it in docs.json Pending',
      ]);
    expect(await card.getByTestId('plan-progress').textContent()).toBe('1 of 3 done');
    // The running turn shows its plan once, where it was last set, folded to one line.
    const turn = page.locator('[data-turn="1"]');
    await expect.poll(() => turn.locator('.plan-entry').count()).toBe(1);
    expect(await turn.locator('.plan-entry summary').innerText()).toMatch(
      /^Plan\s+1 of 3 done\s+now: Write the rate limits page$/,
    );
    await expectAccessible(page, 'job page, plan, working');
    await saveScreenshot(page, 'job-plan-working-laptop-light');
    const phone = await context.newPage();
    await phone.setViewportSize(PHONE);
    await phone.goto(jobUrl(job.id));
    await phone.getByTestId('plan').getByText('Write the rate limits page').waitFor();
    expect(await inPage<number>(phone, 'document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      PHONE.width,
    );
    await saveScreenshot(phone, 'job-plan-working-phone-light');
    await phone.close();

    held[1].resolve();
    await summary(page, 'completed');
    await page.locator('[data-turn="1"][data-turn-status=succeeded]').waitFor();
    await expect
      .poll(steps)
      .toEqual([
        'done: Read the navigation Done',
        'done: Write the rate limits page Done',
        'done: Link it in docs.json Done',
      ]);
    expect(await inPage(page, 'window.__sameDocument')).toBe(true);
    // Stored, the turn keeps its last plan only, between the steps where it was set.
    const entries = await turn
      .locator('.agent > *')
      .evaluateAll((nodes) =>
        (nodes as unknown as { className: string; innerText: string }[]).map((n) =>
          n.className.includes('plan-entry') ? 'plan' : (n.innerText.split('\n')[0] ?? ''),
        ),
      );
    expect(entries.filter((entry) => entry === 'plan')).toHaveLength(1);
    expect(entries.slice(entries.indexOf('plan') - 1, entries.indexOf('plan') + 2)).toEqual([
      'edit_file',
      'plan',
      'finish',
    ]);
    await turn.locator('.plan-entry summary').click();
    expect(
      await turn.locator('.plan-entry').getByRole('list', { name: 'Plan' }).getByRole('listitem').count(),
    ).toBe(3);
    await expectAccessible(page, 'job page, plan, completed');
    await inPage(page, 'window.scrollTo(0, 0)');
    await saveScreenshot(page, 'job-plan-completed-laptop-light');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("changes a working job's status in the list without a reload", async () => {
    // Signed in first, so the job is still working when the page opens.
    const { page, context } = await open(admin);
    model.push(...addPage('guides/limits-two', 400));
    const job = await createJob('Add a second limits page');
    await page.goto(jobsUrl());
    const status = page
      .locator('tr', { has: page.locator(`a[data-job-id="${job.id}"]`) })
      .locator('[data-status]');
    await status.and(page.locator('[data-status=active]')).waitFor();
    await inPage(page, 'window.__sameDocument = true');
    await status.and(page.locator('[data-status=completed]')).waitFor({ timeout: 20_000 });
    expect(await inPage(page, 'window.__sameDocument')).toBe(true);
    await context.close();
  });

  it('resumes the event stream after the last event it saw (Last-Event-ID) when the stream breaks', async () => {
    // Between the browser and the server, a proxy that ends the first event stream after its
    // first real event, as a restarting proxy or a dropped connection would.
    const proxy = await startStreamBreakingProxy(t.baseUrl);
    try {
      const { page, context, errors } = await open(admin, LAPTOP, 'light', proxy.url);
      model.push(...addPage('guides/limits-three', 400));
      const job = await createJob('Add a third limits page');
      await page.goto(jobUrl(job.id));
      await summary(page, 'completed');
      const [broken, resumed] = proxy.streams;
      expect(broken?.lastEventId).toBeUndefined();
      const lastSeen = broken?.ids.at(-1);
      expect(Number(lastSeen)).toBeGreaterThan(0);
      // EventSource reconnected by itself and said where it was; the server went on from there.
      expect(resumed?.lastEventId).toBe(lastSeen);
      expect(resumed?.ids.length).toBeGreaterThan(0);
      for (const id of resumed?.ids ?? []) expect(Number(id)).toBeGreaterThan(Number(lastSeen));
      await page.locator('[data-turn="1"][data-turn-status=succeeded] .tool__name').first().waitFor();
      expect(errors).toEqual([]);
      await context.close();
    } finally {
      await proxy.close();
    }
  });

  it('falls back to polling when the stream is refused, and still shows the job finish', async () => {
    const { page, context } = await open(admin);
    model.push(...addPage('guides/limits-four', 400));
    const job = await createJob('Add a fourth limits page');
    await page.route('**/events*', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":"no streams here"}' }),
    );
    await page.goto(jobUrl(job.id));
    await page.getByText('Updating every 2 s').waitFor();
    await summary(page, 'completed');
    await page.locator('[data-turn="1"][data-turn-status=succeeded]').waitFor();
    await context.close();
  });

  it('shows a viewer the jobs, their conversation and changes, and no control that writes', async () => {
    model.push(...addPage('guides/limits-five'));
    const job = await createJob('Add a fifth limits page');
    await waitForJob(job.id, 'completed');
    const { page, context, errors } = await open(viewer);
    await page.goto(jobsUrl());
    await page.locator(`a[data-job-id="${job.id}"]`).waitFor();
    expect(await page.getByLabel('What should the agent do?').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Start job' }).count()).toBe(0);

    await page.goto(jobUrl(job.id));
    await summary(page, 'completed');
    await page.getByTestId('changes').locator('.diff__line--add', { hasText: PAGE_TEXT }).waitFor();
    for (const name of ['Send follow-up', 'Archive job', 'Merge into main']) {
      expect(await page.getByRole('button', { name }).count(), name).toBe(0);
    }
    expect(await page.getByLabel('Follow-up').count()).toBe(0);
    // And the server refuses anyway.
    const refused = await page.evaluate(async (url) => {
      const session = (await (await fetch('/dashboard/api/session')).json()) as { csrfToken: string };
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
        body: JSON.stringify({ prompt: 'Let me in' }),
      });
      return response.status;
    }, `/dashboard/api/v2/agent/${projectId}/job/${job.id}/message`);
    expect(refused).toBe(403);
    expect(errors.filter((e) => !/status of 403/.test(e))).toEqual([]);
    await context.close();
  });

  for (const { device, viewport, scheme } of LOOKS) {
    it(`shows the jobs list and a job accessibly, fitting the screen, on a ${device}, ${scheme}`, {
      timeout: LOOK_TIMEOUT_MS,
    }, async () => {
      const done = await completedJobWithChanges();
      const { page, context, errors } = await open(admin, viewport, scheme);
      await page.goto(jobsUrl());
      await page.locator('[data-testid=jobs-list] tbody tr').first().waitFor();
      expect(await inPage<number>(page, 'document.documentElement.scrollWidth')).toBeLessThanOrEqual(
        viewport.width,
      );
      await expectAccessible(page, `jobs (${device}, ${scheme})`);
      await saveScreenshot(page, `jobs-list-${device}-${scheme}`);

      await page.goto(jobUrl(done.id));
      await summary(page, 'completed');
      await page.getByTestId('changes').locator('.diff__line').first().waitFor();
      await page.getByTestId('plan').getByText('Write the sixth limits page').waitFor();
      await page.locator('.plan-entry > .tool__summary').click();
      await page.locator('.tool:not(.plan-entry) > .tool__summary').first().click();
      expect(await inPage<number>(page, 'document.documentElement.scrollWidth')).toBeLessThanOrEqual(
        viewport.width,
      );
      await expectAccessible(page, `job (${device}, ${scheme})`);
      await saveScreenshot(page, `job-${device}-${scheme}`);
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});

interface ProxiedStream {
  /** The Last-Event-ID the browser sent. */
  lastEventId: string | undefined;
  /** The ids of the events passed on to the browser. */
  ids: string[];
}

/**
 * An HTTP proxy to `target` that ends the first job event stream, cleanly, right after the
 * first event with an id above 0 (the stream's first event, id 0, is the job as it is).
 */
async function startStreamBreakingProxy(
  target: string,
): Promise<{ url: string; streams: ProxiedStream[]; close(): Promise<void> }> {
  const streams: ProxiedStream[] = [];
  let broken = false;
  const server = createServer((req, res) => {
    const upstream = httpRequest(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (!/\/events(\?|$)/.test(req.url ?? '') || answer.statusCode !== 200) {
          answer.pipe(res);
          return;
        }
        const stream: ProxiedStream = {
          lastEventId: req.headers['last-event-id'] as string | undefined,
          ids: [],
        };
        streams.push(stream);
        let ended = false;
        answer.on('data', (chunk: Buffer) => {
          // What was still buffered when the stream was cut never reaches the browser.
          if (ended) return;
          const text = chunk.toString('utf8');
          for (const match of text.matchAll(/^id: (\d+)$/gm)) stream.ids.push(match[1] as string);
          res.write(chunk);
          if (!broken && text.endsWith('\n\n') && stream.ids.some((id) => id !== '0')) {
            broken = true;
            ended = true;
            answer.destroy();
            res.end();
          }
        });
        answer.on('end', () => {
          if (!ended) res.end();
        });
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    streams,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

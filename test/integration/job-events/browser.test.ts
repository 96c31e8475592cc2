import { existsSync } from 'node:fs';
import { pino } from 'pino';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../../../src/app/services.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { signIn } from '../../helpers/dashboard-session.ts';
import { testBackend } from '../../helpers/storage.ts';
import { PromptScriptedAgent } from '../../helpers/test-agent.ts';

const CHROMIUM = '/usr/bin/chromium';

interface Seen {
  type: string;
  id: string;
  status?: string;
}

describe(`a browser's EventSource on the job event stream, on ${testBackend}`, () => {
  let browser: Browser;
  let t: TestApp;
  let worker: Worker | null = null;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium`);
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
  });
  afterEach(async () => {
    await worker?.stop();
    worker = null;
    await t?.close();
  });

  it('follows a job with the session cookie, reconnects once with Last-Event-ID after the end, and stops on 204', async () => {
    t = await startTestApp({ agent: new PromptScriptedAgent(), env: { DOCWRIGHT_POLL_INTERVAL_MS: '50' } });
    const viewer = await signIn(t, { role: 'viewer' });
    const job = await t.services.jobs.create(
      await t.services.projects.get(t.project.id),
      'sleep:800 write a page',
    );
    const context = await browser.newContext();
    try {
      const [name, value] = viewer.cookie.split('=') as [string, string];
      await context.addCookies([{ name, value, url: t.baseUrl }]);
      const page = await context.newPage();
      // What the browser sent, as the server received it (allHeaders has those the network stack adds).
      const requests: Promise<{ lastEventId: string | null; status: number | undefined }>[] = [];
      page.on('requestfinished', (request) => {
        if (!request.url().endsWith('/events')) return;
        requests.push(
          Promise.all([request.allHeaders(), request.response()]).then(([headers, response]) => ({
            lastEventId: headers['last-event-id'] ?? null,
            status: response?.status(),
          })),
        );
      });
      await page.goto(`${t.baseUrl}/health`);
      await page.evaluate((url) => {
        const seen: Seen[] = [];
        const w = globalThis as unknown as { seen: Seen[]; source: EventSource };
        w.seen = seen;
        w.source = new EventSource(url);
        for (const type of ['status', 'turn', 'message', 'step', 'pull_request']) {
          w.source.addEventListener(type, (event) => {
            const message = event as unknown as { data: string; lastEventId: string };
            const data = JSON.parse(message.data) as { status?: string };
            seen.push({
              type,
              id: message.lastEventId,
              ...(type === 'status' ? { status: data.status } : {}),
            });
          });
        }
      }, `/dashboard/api/v2/agent/${t.project.id}/job/${job.id}/events`);
      // The page is open and has the job's first events before any work starts.
      await expect
        .poll(() => page.evaluate(() => (globalThis as unknown as { seen: Seen[] }).seen.length))
        .toBe(4);
      worker = createWorker(t.services, pino({ level: 'silent' }));
      worker.start();

      // The server ends the stream after the final status; EventSource reconnects (retry: 2000) with the last
      // id, gets 204 and stops for good (readyState 2, CLOSED).
      await expect
        .poll(
          () => page.evaluate(() => (globalThis as unknown as { source: EventSource }).source.readyState),
          {
            timeout: 10_000,
          },
        )
        .toBe(2);
      const seen = await page.evaluate(() => (globalThis as unknown as { seen: Seen[] }).seen);
      expect(seen.map((s) => (s.type === 'status' ? `status ${s.status}` : s.type))).toEqual([
        'status active',
        'status active',
        'turn',
        'message',
        'turn',
        'status active',
        'step',
        'step',
        'message',
        'message',
        'turn',
        'status completed',
      ]);
      expect(await Promise.all(requests)).toEqual([
        { lastEventId: null, status: 200 },
        { lastEventId: seen.at(-1)?.id, status: 204 },
      ]);
    } finally {
      await context.close();
    }
  });
});

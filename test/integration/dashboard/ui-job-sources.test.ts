import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContextRepositories, createDocumentationAgent } from '../../../src/app/create-agent.ts';
import { createWorker } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import type { JobView } from '../../../src/domain/jobs/job-view.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createRepository, git } from '../../helpers/git-repos.ts';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../helpers/scripted-openai-server.ts';
import { testBackend } from '../../helpers/storage.ts';
import {
  expectAccessible,
  LAPTOP,
  LOOK_TIMEOUT_MS,
  launchChromium,
  openDashboard,
  PHONE,
  saveScreenshot,
  signInThroughForm,
} from './browser.ts';

const EXAMPLE_SITE = fileURLToPath(new URL('../../../examples/docs-site', import.meta.url));
const PASSWORD = 'a long enough password';

/** The job page's Sources: what the agent read in a connected repository to make its change. */
describe(`a job's sources on its page (${testBackend})`, () => {
  let t: TestApp;
  let browser: Browser;
  let model: ScriptedOpenAIServer;
  let worker: Worker;
  let jobId: string;
  let apiSha: string;
  const dirs: string[] = [];

  beforeAll(async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'docwright-ui-sources-'));
    dirs.push(root);
    const docs = path.join(root, 'docs');
    cpSync(EXAMPLE_SITE, docs, { recursive: true });
    git(docs, 'init', '--quiet', '--initial-branch=main');
    git(docs, 'add', '--all');
    git(docs, 'commit', '--quiet', '-m', 'Docs');
    apiSha = createRepository(path.join(root, 'api'), {
      'src/cli/options.ts': "export const retries = { flag: '--retries', default: 3 };\n",
    });
    model = await startScriptedOpenAIServer([
      { toolCalls: [{ name: 'read_file', arguments: { repository: 'api', path: 'src/cli/options.ts' } }] },
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: {
              path: 'quickstart.mdx',
              old_string: "The response holds the new widget's `id`.",
              new_string:
                "The response holds the new widget's `id`. Failed uploads are tried again 3 times (`--retries`).",
            },
          },
        ],
      },
      {
        toolCalls: [
          {
            name: 'finish',
            arguments: { summary: 'Documented --retries.', pull_request_title: 'Document --retries' },
          },
        ],
      },
    ]);
    const settings = {
      DOCWRIGHT_MODEL: 'openai-compatible:test-model',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
      DOCWRIGHT_POLL_INTERVAL_MS: '50',
    };
    const dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-ui-sources-data-'));
    dirs.push(dataDir);
    const config = loadConfig({ ...settings, DOCWRIGHT_DATA_DIR: dataDir });
    const logger = pino({ level: 'silent' });
    t = await startTestApp({
      env: settings,
      agent: createDocumentationAgent(config, logger, {
        secretBox: null,
        context: {
          entries: (projectId) => t.services.contextRepositories.list(projectId),
          files: createContextRepositories(config, logger),
        },
      }),
    });
    const project = await t.services.projects.create({ name: 'Docs', repository: docs });
    await t.services.contextRepositories.add(project.id, { name: 'api', repository: path.join(root, 'api') });
    await t.services.users.create({ email: 'admin@example.com', password: PASSWORD, role: 'admin' });
    worker = createWorker(t.services, logger);
    worker.start();
    const job = await t.services.jobs.create(await t.services.projects.get(project.id), 'Document --retries');
    jobId = job.id;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
      if (((await t.services.jobs.get(project.id, jobId)) as JobView).status !== 'active') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const finished = (await t.services.jobs.get(project.id, jobId)) as JobView;
    if (finished.status !== 'completed') throw new Error(`the job ended ${finished.status}`);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await t?.close();
    await model?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  for (const [device, viewport] of [
    ['laptop', LAPTOP],
    ['phone', PHONE],
  ] as const) {
    it(
      `lists the connected-repository file the change relied on, at its commit (${device})`,
      async () => {
        const { page, context } = await openDashboard(browser, t, { viewport });
        await signInThroughForm(page, 'admin@example.com', PASSWORD);
        await page.goto(`/jobs/${jobId}`);
        const sources = page.getByRole('region', { name: 'Sources' });
        await sources.waitFor();
        expect((await sources.getByRole('listitem').allTextContents()).map((s) => s.trim())).toEqual([
          `api:src/cli/options.ts at ${apiSha.slice(0, 12)}`,
        ]);
        // The step says which repository it read.
        await page.getByText('api:src/cli/options.ts', { exact: true }).first().waitFor();
        expect(await page.locator('.tool__target').allTextContents()).toContain('api:src/cli/options.ts');
        await expectAccessible(page, `job sources (${device})`);
        await saveScreenshot(page, `job-sources-${device}`);
        await context.close();
      },
      LOOK_TIMEOUT_MS,
    );
  }
});

import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createDocumentationAgent } from '../../../src/app/create-agent.ts';
import { createWorker } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import type { JobView } from '../../../src/domain/jobs/job-view.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { git } from '../../helpers/git-repos.ts';
import { armHostileRepository, HOSTILE_ATTRIBUTES } from '../../helpers/hostile-repository.ts';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../helpers/scripted-openai-server.ts';
import { testBackend } from '../../helpers/storage.ts';

const EXAMPLE_SITE = fileURLToPath(new URL('../../../examples/docs-site', import.meta.url));
const PAGE =
  '---\ntitle: Rate limits\ndescription: How many requests you can make.\n---\n\nYou can make 100 requests per minute.\n';

// A bare-repository layout written as plain files, as an agent could: merged, it lies inside
// the repository's working tree, where git must never take it for a repository.
const BARE_LAYOUT = (markers: string) => ({
  'evil/HEAD': 'ref: refs/heads/main\n',
  'evil/config': `[core]\n\tbare = true\n\tfsmonitor = "touch '${markers}/bare-layout.fsmonitor'; echo"\n\thooksPath = hooks\n`,
  'evil/objects/info/alternates': '../../.git/objects\n',
  'evil/refs/heads/main': '0000000000000000000000000000000000000000\n',
});

describe(`a repository that names commands, through a whole job, its review and its merge, on ${testBackend}`, () => {
  let t: TestApp;
  let model: ScriptedOpenAIServer;
  let worker: Worker | null = null;
  const cleanup: string[] = [];

  afterEach(async () => {
    await worker?.stop();
    worker = null;
    await t?.close();
    await model?.close();
    for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('runs none of them: no hook, fsmonitor, filter, diff, merge, pager, editor or transport command', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'docwright-hostile-'));
    cleanup.push(root);
    const repo = path.join(root, 'docs');
    const markers = path.join(root, 'markers');
    cpSync(EXAMPLE_SITE, repo, { recursive: true });
    writeFileSync(path.join(repo, '.gitattributes'), HOSTILE_ATTRIBUTES);
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'add', '--all');
    git(repo, 'commit', '--quiet', '-m', 'Docs with attributes that select drivers');
    const hostile = armHostileRepository(repo, markers);

    const layout = BARE_LAYOUT(markers);
    model = await startScriptedOpenAIServer([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'docs.json' } }] },
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'guides/rate-limits.mdx', content: PAGE } },
          ...Object.entries(layout).map(([file, content]) => ({
            name: 'write_file',
            arguments: { path: file, content },
          })),
        ],
      },
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: {
              path: 'docs.json',
              old_string: '"guides/webhooks"]',
              new_string: '"guides/webhooks", "guides/rate-limits"]',
            },
          },
        ],
      },
      {
        toolCalls: [
          {
            name: 'finish',
            arguments: { summary: 'Added a rate limits page.', pull_request_title: 'Add a rate limits page' },
          },
        ],
      },
      // The second job reads a page and finds nothing to change.
      { toolCalls: [{ name: 'read_file', arguments: { path: 'guides/rate-limits.mdx' } }] },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Nothing to fix.' } }] },
    ]);
    const settings = {
      DOCWRIGHT_MODEL: 'openai-compatible:test-model',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
      DOCWRIGHT_POLL_INTERVAL_MS: '50',
      DOCWRIGHT_PUBLIC_URL: 'http://docwright.test',
    };
    const dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-hostile-data-'));
    cleanup.push(dataDir);
    const config = loadConfig({ ...settings, DOCWRIGHT_DATA_DIR: dataDir });
    t = await startTestApp({
      env: settings,
      agent: createDocumentationAgent(config, pino({ level: 'silent' }), { secretBox: null }),
    });
    const project = await t.services.projects.create({ name: 'Hostile docs', repository: repo });
    const { key } = await t.services.keys.create(project.id, 'e2e');
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    expect(hostile.markers()).toEqual([]);

    // The job: the mirror fetches from the repository, the agent edits, the branch goes back.
    const created = await t.request('POST', `/v2/agent/${project.id}/job`, {
      key,
      body: { prompt: 'Add a page about rate limits' },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as JobView;
    let job: JobView | undefined;
    await expect
      .poll(
        async () => {
          job = (await (
            await t.request('GET', `/v2/agent/${project.id}/job/${id}`, { key })
          ).json()) as JobView;
          return job.status;
        },
        { timeout: 20_000, interval: 50 },
      )
      .toBe('completed');
    const branch = job?.source.ref ?? '';
    expect(git(repo, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`).trim()).toMatch(
      /^[0-9a-f]{40}$/,
    );
    expect(hostile.markers()).toEqual([]);

    // The review: the branch's log, files and diff, read from the repository.
    const review = await fetch(`${t.baseUrl}/review/${id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(review.status).toBe(200);
    expect(await review.text()).toContain('guides/rate-limits.mdx');
    const mirror = await t.request('GET', `/v2/agent/${project.id}/job/${id}`, { key });
    expect(mirror.status).toBe(200);
    expect(hostile.markers()).toEqual([]);

    // Meanwhile the base branch changes the same file elsewhere, so the merge is a real
    // three-way merge of docs.json (its attributes select the hostile merge driver).
    hostile.disarm();
    const docs = path.join(repo, 'docs.json');
    writeFileSync(docs, readFileSync(docs, 'utf8').replace('"Acme Widgets"', '"Acme Widgets Docs"'));
    git(repo, 'commit', '--quiet', '--all', '-m', 'Rename the site');
    hostile.arm();

    // The merge: a temporary worktree, the merge itself, then the person's checkout of main
    // fast-forwarded to it.
    const merged = await fetch(`${t.baseUrl}/review/${id}/merge`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(merged.status).toBe(200);
    expect(hostile.markers()).toEqual([]);
    hostile.disarm();
    const mergedDocs = git(repo, 'show', 'main:docs.json');
    expect(mergedDocs).toContain('"Acme Widgets Docs"');
    expect(mergedDocs).toContain('"guides/rate-limits"');
    expect(readFileSync(path.join(repo, 'guides/rate-limits.mdx'), 'utf8')).toBe(PAGE);
    // The bare layout is on disk now, inside the working tree.
    expect(existsSync(path.join(repo, 'evil', 'config'))).toBe(true);
    hostile.arm();

    // The next job of the project fetches the merged repository, bare layout and all.
    const second = await t.request('POST', `/v2/agent/${project.id}/job`, {
      key,
      body: { prompt: 'Anything to fix?' },
    });
    expect(second.status).toBe(201);
    const secondId = ((await second.json()) as JobView).id;
    await expect
      .poll(
        async () =>
          (
            (await (
              await t.request('GET', `/v2/agent/${project.id}/job/${secondId}`, { key })
            ).json()) as JobView
          ).status,
        { timeout: 20_000, interval: 50 },
      )
      .toBe('completed');
    expect(hostile.markers()).toEqual([]);
  });
});

// Agent benchmark: workspace preparation for a 5,000-file docs repository (cold clone, warm
// mirror with and without a parked working copy to reuse), time from creating a job to the first model request, and the end-to-end
// time of a scripted three-step job, through the real service (HTTP, worker, git, tools,
// the openai-compatible client) with the model replaced by a scripted server.
// Usage: npm run bench:agent -- [--pages 5000] [--runs 7]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createDocumentationAgent } from '../../src/app/create-agent.ts';
import { createWorker, openServices } from '../../src/app/services.ts';
import { loadConfig } from '../../src/config/config.ts';
import { buildHttpApp } from '../../src/http/app.ts';
import { GitWorkspaces } from '../../src/integrations/git/workspaces.ts';
import {
  type RecordedRequest,
  startScriptedOpenAIServer,
} from '../../test/helpers/scripted-openai-server.ts';
import { generateDocsRepository } from './generate-repo.ts';

const { values } = parseArgs({
  options: { pages: { type: 'string', default: '5000' }, runs: { type: 'string', default: '7' } },
});
const pages = Number(values.pages);
const runs = Number(values.runs);
const silent = pino({ level: 'silent' });
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

const root = mkdtempSync(path.join(tmpdir(), 'docwright-bench-agent-'));
console.log(`Generating a ${pages}-page docs repository…`);
const bare = generateDocsRepository(root, pages);

// 1. Workspace preparation: a cold data dir (clone the mirror) vs a warm mirror (new job).
const cold: number[] = [];
const warm: number[] = [];
const warmFresh: number[] = [];
for (let i = 0; i < runs; i++) {
  const dataDir = mkdtempSync(path.join(root, 'data-'));
  const workspaces = new GitWorkspaces({
    dataDir,
    logger: silent,
    author: { name: 'Bench', email: 'b@example.com' },
  });
  const request = (job: string) => ({
    projectId: 'prj_bench',
    jobId: job,
    repository: bare,
    baseBranch: 'main',
    branch: `docwright/${job}`,
    credentials: null,
  });
  let started = performance.now();
  await workspaces.prepare(request(`cold${i}`));
  cold.push(performance.now() - started);
  await workspaces.remove(request(`cold${i}`));
  started = performance.now();
  await workspaces.prepare(request(`warm${i}`));
  warm.push(performance.now() - started);
  await workspaces.remove(request(`warm${i}`));
  // The same, but with no finished job's working copy to reuse: every file is written.
  rmSync(workspaces.poolDir('prj_bench'), { recursive: true, force: true });
  started = performance.now();
  await workspaces.prepare(request(`fresh${i}`));
  warmFresh.push(performance.now() - started);
  await workspaces.remove(request(`fresh${i}`));
  rmSync(dataDir, { recursive: true, force: true });
}

// 2 and 3. Through the service: create → first model request, and a three-step job.
let firstRequestAt = 0;
const model = await startScriptedOpenAIServer([], { apiKey: 'bench' });
const scriptJob = () => {
  model.push(
    (_request: RecordedRequest) => {
      firstRequestAt = performance.now();
      return { toolCalls: [{ name: 'read_file', arguments: { path: 'section-00/page-0000.mdx' } }] };
    },
    {
      toolCalls: [
        {
          name: 'edit_file',
          arguments: {
            path: 'section-00/page-0000.mdx',
            old_string: 'This page documents',
            new_string: 'This page describes',
          },
        },
      ],
    },
    {
      toolCalls: [
        {
          name: 'finish',
          arguments: { summary: 'Reworded the overview.', pull_request_title: 'Reword overview' },
        },
      ],
    },
  );
};
const dataDir = mkdtempSync(path.join(root, 'service-'));
const config = loadConfig({
  DOCWRIGHT_DATA_DIR: dataDir,
  DOCWRIGHT_PORT: '0',
  DOCWRIGHT_LOG_LEVEL: 'silent',
  DOCWRIGHT_MODEL: 'openai-compatible:bench-model',
  DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
  DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: 'bench',
  DOCWRIGHT_RATE_LIMIT: '0',
  DOCWRIGHT_PUBLIC_URL: 'http://127.0.0.1:8080',
});
// BENCH_AGENT_LOG=info prints each turn's phase timings on stderr.
const agentLog = pino(
  { level: process.env.BENCH_AGENT_LOG ?? 'silent' },
  pino.destination({ dest: 2, sync: true }),
);
const services = await openServices(config, silent, {
  agent: createDocumentationAgent(config, agentLog, { secretBox: null }),
});
const app = await buildHttpApp({ services, logger: silent });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
const worker = createWorker(services, silent);
worker.start();
const project = await services.projects.create({ name: 'Bench', repository: bare });
const { key } = await services.keys.create(project.id, 'bench');
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

const toFirstRequest: number[] = [];
const endToEnd: number[] = [];
// The first job warms the mirror (a cold clone); it is not counted.
for (let i = 0; i <= runs; i++) {
  scriptJob();
  firstRequestAt = 0;
  const started = performance.now();
  const response = await fetch(`${baseUrl}/v2/agent/${project.id}/job`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ prompt: `Reword the overview of page 0 (run ${i})` }),
  });
  const { id } = (await response.json()) as { id: string };
  let status = 'active';
  while (status === 'active') {
    await new Promise((r) => setTimeout(r, 5));
    status = (
      (await (await fetch(`${baseUrl}/v2/agent/${project.id}/job/${id}`, { headers })).json()) as {
        status: string;
      }
    ).status;
  }
  if (status !== 'completed') throw new Error(`job ${id} ended ${status}`);
  if (i === 0) continue;
  toFirstRequest.push(firstRequestAt - started);
  endToEnd.push(performance.now() - started);
}
await worker.stop();
await app.close();
await services.close();
await model.close();
rmSync(root, { recursive: true, force: true });

console.log(`\nNode ${process.version}; ${pages}-file repository; ${runs} runs each; medians (min–max)`);
const row = (name: string, xs: number[], goal: string) => ({
  measure: name,
  median: fmt(median(xs)),
  range: `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`,
  goal,
});
console.table([
  row('workspace preparation, cold (clone + worktree)', cold, ''),
  row("workspace preparation, warm (fetch + reuse a finished job's copy)", warm, '< 1000 ms'),
  row('workspace preparation, warm mirror, no copy to reuse (full checkout)', warmFresh, ''),
  row('create → first model request (warm mirror)', toFirstRequest, '< 200 ms'),
  row('scripted three-step job, create → completed', endToEnd, ''),
]);

// Code-change automations: a merged pull request's webhook received → the agent job's first
// model request. Each sample POSTs a signed GitHub `pull_request` (closed, merged) delivery
// for a new pull request to POST /v1/hooks/github/{projectId}; Docwright verifies it, reads
// the pull request's files through the (fake, local) GitHub API, starts the run and its job,
// and the worker prepares the working copy (warm mirror) and asks the scripted model. The
// model answers "no change needed", so each job completes without a pull request and the next
// sample starts a new job. Medians over N samples (after warm-up), on SQLite and PostgreSQL.
//
// One process runs what `docwright serve` runs (HTTP, services, worker). The fake GitHub
// checks every request and response against GitHub's published OpenAPI description, which
// costs a few ms per call: the figure includes that.
//
// Usage: npm run bench:automations-code-change -- [--samples 30] [--pages 500] [--backend sqlite|postgres|both] [--postgres postgres://…]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { pino } from 'pino';
import { createDocumentationAgent } from '../../src/app/create-agent.ts';
import { createWorker, openServices } from '../../src/app/services.ts';
import { loadConfig } from '../../src/config/config.ts';
import { ProjectSettingsService } from '../../src/domain/projects/project-settings.ts';
import { SecretBox } from '../../src/domain/secrets/secret-box.ts';
import { buildHttpApp } from '../../src/http/app.ts';
import { gitHubMergedPayload, sendGitHubHook } from '../../test/helpers/code-change-hooks.ts';
import { startFakeGitHub } from '../../test/helpers/fake-github.ts';
import { startScriptedOpenAIServer } from '../../test/helpers/scripted-openai-server.ts';
import { generateDocsRepository } from '../agent/generate-repo.ts';

const { values } = parseArgs({
  options: {
    samples: { type: 'string', default: '30' },
    pages: { type: 'string', default: '500' },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    backend: { type: 'string', default: 'both' },
  },
});
const samples = Number(values.samples);
const WARM_UP = 2;
const TOKEN = 'ghp_benchToken0123456789';
const SECRET_KEY = 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=';

const root = mkdtempSync(path.join(tmpdir(), 'docwright-bench-automations-'));
generateDocsRepository(root, Number(values.pages));
// The generated working repository, not its bare clone: the project check's
// `git rev-parse --show-toplevel` refuses a bare repository on this machine's git (2.39).
const docsRepository = path.join(root, 'source');
const github = await startFakeGitHub({ repositories: ['acme/docs', 'acme/api'], token: TOKEN });

interface Sample {
  /** Webhook sent → first model request of the job. */
  toFirstRequest: number;
  /** Webhook sent → its 202 answer. */
  answered: number;
  /** The baseline, measured alternately in the same run: a job created directly → its first model request. */
  direct: number;
}

async function run(backend: 'sqlite' | 'postgres'): Promise<Sample[]> {
  const dataDir = mkdtempSync(path.join(root, `data-${backend}-`));
  const schema = `bench_automations_${process.pid}`;
  let firstRequestAt = 0;
  const model = await startScriptedOpenAIServer([], { apiKey: 'bench' });
  const config = loadConfig({
    DOCWRIGHT_DATA_DIR: dataDir,
    DOCWRIGHT_PORT: '0',
    DOCWRIGHT_LOG_LEVEL: 'warn',
    DOCWRIGHT_RATE_LIMIT: '0',
    DOCWRIGHT_SECRET_KEY: SECRET_KEY,
    DOCWRIGHT_MODEL: 'openai-compatible:bench-model',
    DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
    DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: 'bench',
    DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: 'true',
    ...(backend === 'postgres' ? { DATABASE_URL: values.postgres, DOCWRIGHT_DATABASE_SCHEMA: schema } : {}),
  });
  const logger = pino({ level: 'warn' });
  const secretBox = new SecretBox(SECRET_KEY);
  const services = await openServices(config, logger, {
    agent: createDocumentationAgent(config, logger, { secretBox }),
  });
  const app = await buildHttpApp({ services, logger: pino({ level: 'silent' }) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const worker = createWorker(services, logger);
  try {
    const project = await services.projects.create({ name: 'Bench', repository: docsRepository });
    await new ProjectSettingsService(services.storage, secretBox).update(project.id, {
      host: 'github',
      apiUrl: github.baseUrl,
      hostRepository: 'acme/docs',
      credentials: { token: TOKEN },
    });
    const automation = await services.automations.create(project.id, {
      name: 'Follow the API',
      trigger: { kind: 'code_change', provider: 'github', repository: 'acme/api', paths: ['src/**'] },
      instructions: 'Keep the API reference in step with the code.',
    });
    const secret = automation.webhookSecret as string;
    worker.start();
    const completed = async (projectId: string, jobId: string) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const job = await services.jobs.get(projectId, jobId);
        if (job.status === 'completed') return;
        if (job.status !== 'active' || Date.now() > deadline)
          throw new Error(`job ${jobId}: ${job.status} ${job.failureReason ?? ''}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const results: Sample[] = [];
    for (let i = 0; i < samples + WARM_UP; i++) {
      const number = 1000 + i;
      github.pullFiles.set(`acme/api#${number}`, [
        {
          filename: `src/feature-${i}.ts`,
          status: 'modified',
          additions: 2,
          deletions: 1,
          patch: `@@ -1,3 +1,4 @@\n export function feature${i}(\n-  limit: number,\n+  cursor: string,\n+  size = 50,`,
        },
      ]);
      model.push(() => {
        firstRequestAt = performance.now();
        return {
          toolCalls: [
            { name: 'finish', arguments: { summary: 'No change needed: the docs do not cover it.' } },
          ],
        };
      });
      firstRequestAt = 0;
      const payload = gitHubMergedPayload({
        repository: 'acme/api',
        number,
        title: `Feature ${i} takes a cursor`,
        mergeCommitSha: (number * 7919).toString(16).padStart(40, '0'),
        apiUrl: github.baseUrl,
      });
      const started = performance.now();
      const answer = await sendGitHubHook(`${baseUrl}/v1/hooks/github/${project.id}`, {
        event: 'pull_request',
        payload,
        secret,
      });
      const answered = performance.now() - started;
      if (answer.status !== 202)
        throw new Error(`webhook answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      await completed(project.id, (answer.body.runs as { jobId: string }[])[0]?.jobId as string);
      const toFirstRequest = firstRequestAt - started;

      // The baseline: the same agent job without the webhook (no signature, no GitHub API call).
      model.push(() => {
        firstRequestAt = performance.now();
        return { toolCalls: [{ name: 'finish', arguments: { summary: 'No change needed.' } }] };
      });
      const directStart = performance.now();
      const job = await services.jobs.create(
        await services.projects.get(project.id),
        `Feature ${i} takes a cursor`,
      );
      await completed(project.id, job.id);
      const direct = firstRequestAt - directStart;
      // The first samples clone the mirror (cold) and warm caches: not counted.
      if (i >= WARM_UP) results.push({ toFirstRequest, answered, direct });
    }
    if (github.violations.length > 0) throw new Error(`fake GitHub: ${github.violations.join('; ')}`);
    return results;
  } finally {
    await worker.stop();
    await app.close();
    await services.close();
    await model.close();
    if (backend === 'postgres') {
      const client = new pg.Client({ connectionString: values.postgres });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    }
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
};
const backends =
  values.backend === 'both' ? (['sqlite', 'postgres'] as const) : [values.backend as 'sqlite' | 'postgres'];
const rows = [];
try {
  for (const backend of backends) {
    const results = await run(backend);
    const first = results.map((r) => r.toFirstRequest);
    const answered = results.map((r) => r.answered);
    const direct = results.map((r) => r.direct);
    rows.push({
      backend,
      'webhook → first model request, median': `${median(first).toFixed(0)} ms`,
      p95: `${quantile(first, 0.95).toFixed(0)} ms`,
      'webhook → 202, median': `${median(answered).toFixed(0)} ms`,
      'baseline: job created → first model request, median': `${median(direct).toFixed(0)} ms`,
      'ratio of medians': (median(first) / median(direct)).toFixed(2),
      n: results.length,
      goal: '≤ 500 ms median',
    });
  }
} finally {
  await github.close();
  rmSync(root, { recursive: true, force: true });
}
console.log(
  `\nNode ${process.version}; ${values.pages}-page docs repository (warm mirror); ${samples} samples each`,
);
console.table(rows);

// Automation run started → the agent's turn starts (where the documentation agent sends its
// first model request), compared with a plain job created through the API, in one process.
// Each sample: `POST …/automations/{id}/trigger` over HTTP, then the time until the worker
// hands the turn to the agent; the baseline is `POST …/job` the same way. Samples alternate
// between the two so load on the machine hits both alike. Median and p95, SQLite and PostgreSQL.
//
// One process runs what `docwright serve` runs (HTTP API, services, the worker), with an agent
// that records when each turn reaches it and succeeds at once without a pull request (so each
// run completes as "no change needed" and the next run starts a new job, as a code-change
// run with no open pull request does).
//
// Usage: npm run bench:automations -- [--samples 40] [--backend sqlite|postgres|both] [--postgres postgres://…]
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { pino } from 'pino';
import { createWorker, openServices } from '../../src/app/services.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { Agent, AgentTurnInput, AgentTurnResult } from '../../src/domain/agent/agent.ts';
import { buildHttpApp } from '../../src/http/app.ts';

const { values } = parseArgs({
  options: {
    samples: { type: 'string', default: '40' },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    backend: { type: 'string', default: 'both' },
  },
});
const samples = Number(values.samples);

/** Notes when each job's turn reaches the agent; succeeds at once, changing nothing. */
class TimingAgent implements Agent {
  readonly reached = new Map<string, number>();
  async runTurn(input: AgentTurnInput): Promise<AgentTurnResult> {
    this.reached.set(input.job.id, performance.now());
    return {
      outcome: 'succeeded',
      summary: 'No change needed.',
      changedFiles: [],
      prLink: null,
      usage: null,
      messages: [],
    };
  }
}

async function run(backend: 'sqlite' | 'postgres'): Promise<{ automation: number[]; job: number[] }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-bench-automations-'));
  const schema = `bench_automations_${process.pid}`;
  const config = loadConfig({
    DOCWRIGHT_DATA_DIR: dataDir,
    DOCWRIGHT_LOG_LEVEL: 'warn',
    DOCWRIGHT_RATE_LIMIT: '0',
    ...(backend === 'postgres' ? { DATABASE_URL: values.postgres, DOCWRIGHT_DATABASE_SCHEMA: schema } : {}),
  });
  const logger = pino({ level: 'warn' });
  const agent = new TimingAgent();
  const services = await openServices(config, logger, { agent });
  const worker = createWorker(services, logger);
  const app = await buildHttpApp({ services, logger });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  try {
    const project = await services.projects.create({
      name: 'Bench',
      repository: 'https://example.com/d.git',
    });
    const { key } = await services.keys.create(project.id, 'bench');
    const automation = await services.automations.create(project.id, {
      name: 'Bench',
      trigger: { kind: 'manual' },
      instructions: 'Update the documentation for the change.',
      maxRunsPerDay: 100_000,
    });
    worker.start();
    const post = (url: string, body: unknown) =>
      fetch(`${base}${url}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const until = async (jobId: string) => {
      const deadline = Date.now() + 10_000;
      while (!agent.reached.has(jobId)) {
        if (Date.now() > deadline) throw new Error(`job ${jobId}: the turn did not start within 10 s`);
        await new Promise((r) => setTimeout(r, 1));
      }
      return agent.reached.get(jobId) as number;
    };
    const settle = async (jobId: string) => {
      while ((await services.jobs.get(project.id, jobId)).status === 'active')
        await new Promise((r) => setTimeout(r, 2));
    };
    const automationMs: number[] = [];
    const jobMs: number[] = [];
    for (let i = 0; i < samples + 3; i++) {
      let start = performance.now();
      const triggered = (await (
        await post(`/v2/agent/${project.id}/automations/${automation.id}/trigger`, {
          context: `Pull request ${i}`,
        })
      ).json()) as { jobId: string };
      const a = (await until(triggered.jobId)) - start;
      await settle(triggered.jobId);
      start = performance.now();
      const job = (await (
        await post(`/v2/agent/${project.id}/job`, { prompt: `Update page ${i}` })
      ).json()) as {
        id: string;
      };
      const j = (await until(job.id)) - start;
      await settle(job.id);
      // The first few warm up connections and statement caches.
      if (i >= 3) {
        automationMs.push(a);
        jobMs.push(j);
      }
    }
    return { automation: automationMs, job: jobMs };
  } finally {
    await worker.stop();
    await app.close();
    await services.close();
    if (backend === 'postgres') {
      const client = new pg.Client({ connectionString: values.postgres });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const backends =
  values.backend === 'both' ? (['sqlite', 'postgres'] as const) : [values.backend as 'sqlite' | 'postgres'];
for (const backend of backends) {
  const { automation, job } = await run(backend);
  const a = automation.sort((x, y) => x - y);
  const j = job.sort((x, y) => x - y);
  const f = (n: number) => n.toFixed(1);
  console.log(
    `${backend}: automation trigger → turn reaches the agent: median ${f(quantile(a, 0.5))} ms, p95 ${f(quantile(a, 0.95))} ms; ` +
      `plain job (baseline): median ${f(quantile(j, 0.5))} ms, p95 ${f(quantile(j, 0.95))} ms; ratio of medians ${(quantile(a, 0.5) / quantile(j, 0.5)).toFixed(2)} (n=${a.length})`,
  );
}

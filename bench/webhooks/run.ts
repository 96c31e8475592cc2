// Job completed → webhook delivered: how long from the transaction that completes a job (its
// updatedAt, stamped by the worker just before that transaction) until a receiver on this
// machine has the job.completed delivery. Median and p95 over N jobs, run one after another,
// on SQLite and on PostgreSQL.
//
// One process runs what `docwright serve` runs (services, the worker and with it the webhook
// sender), with the prompt-scripted test agent instead of a model (each turn succeeds at
// once), and a local receiver (so DOCWRIGHT_ALLOW_PRIVATE_NETWORKS=true). The
// delivery is written in the completing transaction and that commit wakes the sender in the
// same process; a sender in another process would find it at its next poll (1 s by default).
//
// Usage: npm run bench:webhooks -- [--samples 40] [--backend sqlite|postgres|both] [--postgres postgres://…]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { pino } from 'pino';
import { createWorker, openServices } from '../../src/app/services.ts';
import { loadConfig } from '../../src/config/config.ts';
import { PromptScriptedAgent } from '../../test/helpers/test-agent.ts';
import { startWebhookReceiver } from '../../test/helpers/webhook-receiver.ts';

const { values } = parseArgs({
  options: {
    samples: { type: 'string', default: '40' },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    backend: { type: 'string', default: 'both' },
  },
});
const samples = Number(values.samples);

async function run(backend: 'sqlite' | 'postgres'): Promise<number[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-bench-webhooks-'));
  const schema = `bench_webhooks_${process.pid}`;
  const config = loadConfig({
    DOCWRIGHT_DATA_DIR: dataDir,
    DOCWRIGHT_LOG_LEVEL: 'warn',
    DOCWRIGHT_RATE_LIMIT: '0',
    DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=',
    DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: 'true',
    ...(backend === 'postgres' ? { DATABASE_URL: values.postgres, DOCWRIGHT_DATABASE_SCHEMA: schema } : {}),
  });
  const logger = pino({ level: 'warn' });
  const services = await openServices(config, logger, { agent: new PromptScriptedAgent() });
  const worker = createWorker(services, logger);
  const arrivals = new Map<string, number>();
  const receiver = await startWebhookReceiver({
    answer: (delivery) => {
      const job = delivery.json.data.job as { id: string };
      if (delivery.json.type === 'job.completed') arrivals.set(job.id, Date.now());
      return 200;
    },
  });
  try {
    const projectInfo = await services.projects.create({
      name: 'Bench',
      repository: 'https://example.com/d.git',
    });
    await services.webhooks.create(projectInfo.id, { url: receiver.url(), events: ['job.completed'] });
    const project = await services.projects.get(projectInfo.id);
    worker.start();
    const latencies: number[] = [];
    for (let i = 0; i < samples + 3; i++) {
      const job = await services.jobs.create(project, `page ${i}`);
      const deadline = Date.now() + 10_000;
      while (!arrivals.has(job.id)) {
        if (Date.now() > deadline) throw new Error(`job ${job.id}: no job.completed delivery within 10 s`);
        await new Promise((r) => setTimeout(r, 2));
      }
      const completed = await services.jobs.get(project.id, job.id);
      // The first few warm up connections and statement caches.
      if (i >= 3) latencies.push((arrivals.get(job.id) as number) - Date.parse(completed.updatedAt));
    }
    return latencies;
  } finally {
    await worker.stop();
    await receiver.close();
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
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const backends =
  values.backend === 'both' ? (['sqlite', 'postgres'] as const) : [values.backend as 'sqlite' | 'postgres'];
for (const backend of backends) {
  const sorted = (await run(backend)).sort((a, b) => a - b);
  console.log(
    `${backend}: job completed → job.completed delivered: median ${quantile(sorted, 0.5)} ms, p95 ${quantile(sorted, 0.95)} ms, max ${sorted.at(-1)} ms (n=${sorted.length})`,
  );
}

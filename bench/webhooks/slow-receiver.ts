// Do webhook deliveries to a slow receiver delay the job API? Issue 12's figure: 1,000
// deliveries to a receiver that answers after 200 ms must leave the p99 of GET …/job/{id}
// unchanged within noise.
//
// One process runs what `docwright serve` runs (the HTTP API, the worker and with it the
// webhook sender, one SQLite or PostgreSQL database), and a client in the same process asks
// GET /v2/agent/{projectId}/job/{id} one request after another over keep-alive, in three
// phases of one run: before (no deliveries), during (1,000 job.completed deliveries being
// sent to a receiver on this machine that answers each after 200 ms, at the sender's
// concurrency), and after (none again). It prints p50/p99/max per phase and the ratios
// during/before, so machine load cancels out as far as it can.
//
// Usage: node bench/webhooks/slow-receiver.ts [--deliveries 1000] [--delay-ms 200]
//          [--baseline-seconds 15] [--backend sqlite|postgres] [--postgres postgres://…]
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { pino } from 'pino';
import { createWorker, openServices } from '../../src/app/services.ts';
import { loadConfig } from '../../src/config/config.ts';
import { enqueueWebhookEvents, type WebhookEvent } from '../../src/domain/webhooks/outbox.ts';
import { buildHttpApp } from '../../src/http/app.ts';
import { PromptScriptedAgent } from '../../test/helpers/test-agent.ts';

const { values } = parseArgs({
  options: {
    deliveries: { type: 'string', default: '1000' },
    'delay-ms': { type: 'string', default: '200' },
    'baseline-seconds': { type: 'string', default: '15' },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    backend: { type: 'string', default: 'sqlite' },
  },
});
const deliveries = Number(values.deliveries);
const delayMs = Number(values['delay-ms']);
const baselineMs = Number(values['baseline-seconds']) * 1000;
const backend = values.backend as 'sqlite' | 'postgres';

const dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-bench-slow-receiver-'));
const schema = `bench_slow_receiver_${process.pid}`;
const config = loadConfig({
  DOCWRIGHT_DATA_DIR: dataDir,
  DOCWRIGHT_PORT: '0',
  DOCWRIGHT_LOG_LEVEL: 'warn',
  DOCWRIGHT_RATE_LIMIT: '0',
  DOCWRIGHT_SECRET_KEY: 'base64:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE=',
  DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: 'true',
  ...(backend === 'postgres' ? { DATABASE_URL: values.postgres, DOCWRIGHT_DATABASE_SCHEMA: schema } : {}),
});
const logger = pino({ level: 'warn' });
const services = await openServices(config, logger, { agent: new PromptScriptedAgent() });
const app = await buildHttpApp({ services, logger });
await app.listen({ host: '127.0.0.1', port: 0 });
const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

// The slow receiver: answers 200 after delayMs, counting what it got.
let received = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () =>
    setTimeout(() => {
      received += 1;
      res.writeHead(200).end('ok');
    }, delayMs),
  );
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const worker = createWorker(services, logger);
try {
  const project = await services.projects.create({ name: 'Bench', repository: 'https://example.com/d.git' });
  const { key } = await services.keys.create(project.id, 'bench');
  await services.webhooks.create(project.id, { url: receiverUrl, events: ['job.completed'] });
  // The job the client reads: run to completed by the worker, as in production.
  worker.start();
  const job = await services.jobs.create(await services.projects.get(project.id), 'a page');
  while ((await services.jobs.get(project.id, job.id)).status !== 'completed') await sleep(10);
  await waitFor(() => received >= 1, 10_000);
  received = 0;
  // Only the sender runs from here: the worker has nothing else to do.
  const jobUrl = `${baseUrl}/v2/agent/${project.id}/job/${job.id}`;
  const get = async () => {
    const started = performance.now();
    const response = await fetch(jobUrl, { headers: { authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET job answered ${response.status}`);
    return performance.now() - started;
  };

  const measure = async (until: () => boolean) => {
    const latencies: number[] = [];
    while (!until()) latencies.push(await get());
    return latencies;
  };
  const timed = (ms: number) => {
    const end = Date.now() + ms;
    return () => Date.now() >= end;
  };

  await measure(timed(5000)); // warm up: JIT, connections, statement caches
  const before = await measure(timed(baselineMs));

  // 1,000 job.completed events, written to the outbox in one transaction as the worker would
  // write them (each with the job as GET returns it), then sent by the running sender.
  const view = await services.jobs.get(project.id, job.id);
  const events: WebhookEvent[] = Array.from({ length: deliveries }, () => ({
    projectId: project.id,
    type: 'job.completed',
    data: { job: view },
  }));
  await services.storage.db
    .transaction()
    .execute((tx) => enqueueWebhookEvents(tx, events, new Date().toISOString()));
  const sendStarted = Date.now();
  services.webhookDispatcher.notify();
  const during = await measure(() => received >= deliveries);
  const sendMs = Date.now() - sendStarted;

  const after = await measure(timed(baselineMs));

  const stats = (list: number[]) => {
    const sorted = [...list].sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
    return { n: sorted.length, p50: q(0.5), p99: q(0.99), max: sorted.at(-1) as number };
  };
  const line = (name: string, s: ReturnType<typeof stats>) =>
    `  ${name.padEnd(7)} n=${String(s.n).padStart(6)}  p50 ${s.p50.toFixed(2)} ms  p99 ${s.p99.toFixed(2)} ms  max ${s.max.toFixed(1)} ms`;
  const b = stats(before);
  const d = stats(during);
  const a = stats(after);
  console.log(
    `${backend}: GET …/job/{id}, one client, keep-alive; ${deliveries} deliveries to a receiver answering after ${delayMs} ms, sender concurrency ${config.webhooks.concurrency}`,
  );
  console.log(line('before', b));
  console.log(line('during', d));
  console.log(line('after', a));
  console.log(
    `  during/before: p50 ×${(d.p50 / b.p50).toFixed(2)}, p99 ×${(d.p99 / b.p99).toFixed(2)}; during/after: p50 ×${(d.p50 / a.p50).toFixed(2)}, p99 ×${(d.p99 / a.p99).toFixed(2)}`,
  );
  console.log(
    `  ${deliveries} deliveries took ${(sendMs / 1000).toFixed(1)} s (${((deliveries / sendMs) * 1000).toFixed(1)}/s); load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  await worker.stop();
  await app.close();
  await new Promise<void>((resolve) => {
    receiver.closeAllConnections();
    receiver.close(() => resolve());
  });
  await services.close();
  if (backend === 'postgres') {
    const client = new pg.Client({ connectionString: values.postgres });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  }
  rmSync(dataDir, { recursive: true, force: true });
}

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(check: () => boolean, ms: number) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(5);
  }
}

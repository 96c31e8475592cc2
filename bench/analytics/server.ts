// Benchmark server: the real Docwright HTTP app over a data dir, with analytics options that
// have no environment variable yet (salt rotation, no export rate limit). Prints one JSON line.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { getHeapSpaceStatistics } from 'node:v8';
import { pino } from 'pino';
import { openServices } from '../../src/app/services.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { SaltRotation } from '../../src/domain/analytics/identity.ts';
import { buildHttpApp } from '../../src/http/app.ts';
import { withClickHouse } from './backends/clickhouse-services.ts';
import { openPostgresBenchStore } from './backends/postgres.ts';
import { measurePhaseOnSignal } from './phase-stats.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    rotation: { type: 'string' },
    // The ClickHouse backend (bench/analytics/backends/clickhouse.ts): views there.
    'clickhouse-url': { type: 'string' },
    'clickhouse-database': { type: 'string' },
    // The PostgreSQL backend (bench/analytics/backends/postgres.ts): views in this schema.
    'pg-schema': { type: 'string' },
    // A file to append the process's memory to every 250 ms (one JSON line each), so the bench
    // can say in which phase the resident peak happened and what it was made of.
    'memory-log': { type: 'string' },
  },
});
const memoryLog = values['memory-log'];
/** One line of the memory log: the process's memory now and its resident peak so far. */
function memorySample(): string {
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  // The peak so far: a long synchronous step (the first query's replay) blocks the timer.
  const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
  // The V8 heap's spaces too: a heap grown for short-lived garbage shows as new space.
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics()
      .filter((s) => s.space_size > 0)
      .map((s) => [s.space_name, s.space_size]),
  );
  return `${JSON.stringify({ t: Date.now(), rss, hwm, heapUsed, heapTotal, external, arrayBuffers, spaces })}\n`;
}
if (memoryLog) setInterval(() => appendFileSync(memoryLog, memorySample()), 250).unref();
// BENCH_SERVER_ALLOC_PROF=FILE: a sampling heap profile of everything the server allocates,
// garbage included (what V8's old generation fills with), written to FILE on exit;
// `node bench/analytics/alloc-top.ts FILE` sums it by function.
const allocProfile = process.env.BENCH_SERVER_ALLOC_PROF;
const heapSession = allocProfile ? new Session() : null;
if (heapSession) {
  heapSession.connect();
  await heapSession.post('HeapProfiler.enable');
  await heapSession.post('HeapProfiler.startSampling', {
    samplingInterval: 65_536,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
}
// The phase run.ts marks with SIGUSR2 (its HTTP ingestion), measured alone (phase-stats.ts);
// BENCH_SERVER_PHASE_PROF=FILE: with a CPU profile of it, written to FILE.
measurePhaseOnSignal(process.env.BENCH_SERVER_PHASE_PROF);
const dataDir = values['data-dir'] ?? '';
const config = loadConfig({
  DOCWRIGHT_DATA_DIR: dataDir,
  DOCWRIGHT_PORT: '0',
  DOCWRIGHT_LOG_LEVEL: 'silent',
  // To compare thread counts (0: ingestion prepared on the main thread).
  ...(process.env.DOCWRIGHT_ANALYTICS_PREPARATION_THREADS
    ? { DOCWRIGHT_ANALYTICS_PREPARATION_THREADS: process.env.DOCWRIGHT_ANALYTICS_PREPARATION_THREADS }
    : {}),
  ...(process.env.DOCWRIGHT_ANALYTICS_DURABILITY
    ? { DOCWRIGHT_ANALYTICS_DURABILITY: process.env.DOCWRIGHT_ANALYTICS_DURABILITY }
    : {}),
  // To compare admission limits with `--in-flight` (default 32).
  ...(process.env.DOCWRIGHT_ANALYTICS_INGEST_CONCURRENCY
    ? { DOCWRIGHT_ANALYTICS_INGEST_CONCURRENCY: process.env.DOCWRIGHT_ANALYTICS_INGEST_CONCURRENCY }
    : {}),
});
const logger = pino({ level: 'silent' });
const services = await openServices(config, logger, {
  analytics: { saltRotation: (values.rotation ?? 'never') as SaltRotation, rateLimitPerWindow: 0 },
  // --backend postgres: the views in a PostgreSQL schema of their own (see backends/postgres.ts).
  ...(values['pg-schema'] ? { analyticsStore: await openPostgresBenchStore(values['pg-schema']) } : {}),
});
if (values['clickhouse-url']) {
  await withClickHouse(services, {
    url: values['clickhouse-url'],
    database: values['clickhouse-database'] ?? 'docwright',
  });
}
const main = await services.projects.create({ name: 'bench', repository: 'https://example.com/bench.git' });
const http = await services.projects.create({
  name: 'bench-http',
  repository: 'https://example.com/http.git',
});
const { key } = await services.keys.create(main.id, 'bench');
const { key: httpKey } = await services.keys.create(http.id, 'bench', 'ingest');
const { key: httpAdmin } = await services.keys.create(http.id, 'bench-admin');
const app = await buildHttpApp({ services, logger });
await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address() as AddressInfo;
process.stdout.write(
  `${JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: process.pid, main: main.id, http: http.id, key, httpKey, httpAdmin })}\n`,
);
process.on('SIGTERM', () => {
  app
    .close()
    .then(() => services.close())
    .then(() => {
      // Closing wrote a checkpoint, as the server does every minute: its peak counts too.
      if (memoryLog) appendFileSync(memoryLog, memorySample());
    })
    .then(async () => {
      if (heapSession && allocProfile) {
        const { profile } = await heapSession.post('HeapProfiler.stopSampling');
        writeFileSync(allocProfile, JSON.stringify(profile));
      }
      process.exit(0);
    });
});

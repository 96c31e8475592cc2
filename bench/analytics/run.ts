// Docs analytics benchmark: `npm run bench:analytics [-- --events 1000000] [-- --backend postgres]`.
//
// Generates the data set deterministically, imports it through the log importer (its own
// process, like the CLI), then against a running server (its own process) measures: the first
// query (catching up with the import), visitors export p50/p95 for 1-, 7- and 20-day ranges
// (cold: a different window each time; cached: the same window again), HTTP ingestion rate,
// the server's resident memory, and the same 20-day query as naive SQL over the raw events in
// DuckDB, whose answer must match. Prints every figure. With `--backend postgres` the views go
// to a PostgreSQL schema of their own (backends/postgres.ts), and the naive exact query is also
// timed there (count(DISTINCT …) over the raw views), with the ratio.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { dropPostgresBenchSchema, naivePostgres } from './backends/postgres.ts';
import { apiEvent, type BenchEvent, combinedLine, DAY, generate, jsonLine, START } from './dataset.ts';
import { MemoryPhases } from './memory-phases.ts';
import { cpuMs } from './process-cpu.ts';
import { encodeBodies, sendBatches } from './send-batches.ts';
import { SERVER_NODE_FLAGS } from './server-node-flags.ts';

// Another backend has a runner of its own (bench/analytics/backends/).
const backendAt = process.argv.indexOf('--backend');
const backend =
  backendAt >= 0 ? process.argv[backendAt + 1] : /--backend=(\w+)/.exec(process.argv.join(' '))?.[1];
if (backend === 'clickhouse') {
  await import('./backends/clickhouse.ts');
  process.exit(process.exitCode ?? 0);
}
if (backend !== undefined && backend !== 'embedded' && backend !== 'postgres')
  throw new Error(`Unknown --backend ${backend}: embedded, postgres or clickhouse`);

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'embedded' },
    events: { type: 'string', default: '10000000' },
    visitors: { type: 'string' },
    paths: { type: 'string', default: '5000' },
    days: { type: 'string', default: '30' },
    'http-events': { type: 'string', default: '2000000' },
    'combined-lines': { type: 'string', default: '2000000' },
    rotation: { type: 'string', default: 'never' },
    samples: { type: 'string', default: '15' },
    keep: { type: 'boolean', default: false },
    // Requests in flight in the HTTP phase, as the ClickHouse runner's option.
    'in-flight': { type: 'string', default: '8' },
  },
});
const BACKEND = values.backend ?? 'embedded';
if (BACKEND !== 'embedded' && BACKEND !== 'postgres')
  throw new Error(`--backend: embedded or postgres, not ${BACKEND}`);
/** The views' PostgreSQL schema (--backend postgres), handed to the server and the importer. */
const PG_SCHEMA = BACKEND === 'postgres' ? `dw_bench_${process.pid}_${Date.now().toString(36)}` : null;
const backendArgs = PG_SCHEMA ? ['--pg-schema', PG_SCHEMA] : [];
const EVENTS = Number(values.events);
const VISITORS = Number(values.visitors ?? Math.max(1, Math.round(EVENTS / 10)));
const PATHS = Number(values.paths);
const DAYS = Number(values.days);
const HTTP_EVENTS = Math.min(Number(values['http-events']), EVENTS);
const COMBINED_LINES = Math.min(Number(values['combined-lines']), EVENTS);
const SAMPLES = Number(values.samples);
const IN_FLIGHT = Number(values['in-flight']);
if (!Number.isInteger(IN_FLIGHT) || IN_FLIGHT < 1) throw new Error('--in-flight must be a whole number ≥ 1');
const ROTATION = values.rotation ?? 'never';
const here = path.dirname(new URL(import.meta.url).pathname);
const dir = mkdtempSync(path.join(tmpdir(), 'docwright-bench-analytics-'));
const log = (line: string) => process.stdout.write(`${line}\n`);
const fmt = (n: number) => Math.round(n).toLocaleString('en');

log(`# Docwright analytics benchmark`);
log(`backend: ${BACKEND}${PG_SCHEMA ? ` (schema ${PG_SCHEMA})` : ''}`);
log(
  `data set: ${fmt(EVENTS)} events, ${fmt(VISITORS)} visitors, ${fmt(PATHS)} pages, ${DAYS} days, salt rotation ${ROTATION}; data dir ${dir}`,
);

// 1. Data: JSON lines for the import (CDN export with Accept), CSV for DuckDB, combined log.
let started = performance.now();
const jsonFile = path.join(dir, 'access.jsonl');
const csvFile = path.join(dir, 'events.csv');
const combinedFile = path.join(dir, 'access.log');
await writeLines(
  [jsonFile, csvFile, combinedFile],
  generate({ events: EVENTS, visitors: VISITORS, paths: PATHS, days: DAYS, seed: 1 }),
  (e, i) => [
    jsonLine(e),
    `${e.timestamp},${e.page},${e.ip}|${e.userAgent.length}|${e.userAgent.slice(0, 24)},${e.category}`,
    i < COMBINED_LINES ? combinedLine(e) : null,
  ],
);
log(
  `generated in ${((performance.now() - started) / 1000).toFixed(1)} s (${(statSync(jsonFile).size / 1e9).toFixed(2)} GB of JSON lines)`,
);

// 2. Server. It samples its memory into a file; `phase` marks when each step below began, so
// the memory summary (step 7) can say where the resident peak happened.
const memoryLogFile = path.join(dir, 'server-memory.jsonl');
const memory = new MemoryPhases(memoryLogFile);
const phase = (name: string) => memory.begin(name);
phase('start');
const server = await startServer();
log(`server pid ${server.info.pid} at ${server.info.url}`);

// 3. Log import (JSON lines: the full data set), then a combined-format file into another project.
phase('log import');
const imported = await runImport(server.info.main, jsonFile);
log(
  `log import (JSON lines, full data set): ${fmt(imported.lines)} lines in ${imported.seconds.toFixed(1)} s = ${fmt(imported.linesPerSecond)} lines/s (${fmt(imported.imported)} imported, ${fmt(imported.skipped)} skipped)`,
);
// The combined import is short (~10 s), so one run is at the mercy of this shared machine:
// three runs, each into a project of its own (all new visitors), and their median.
const combinedRates: number[] = [];
for (let run = 1; run <= 3 && COMBINED_LINES > 0; run++) {
  combinedRates.push((await runImport(`bench-combined-${run}`, combinedFile)).linesPerSecond);
}
if (COMBINED_LINES > 0) {
  log(
    `log import (combined format, ${fmt(COMBINED_LINES)} lines into a new project, 3 runs): median ${fmt(percentile(combinedRates, 50))} lines/s (runs: ${combinedRates.map(fmt).join(', ')})`,
  );
  const again = await runImport('bench-combined-1', combinedFile);
  log(
    `re-import of the same combined file: ${fmt(again.imported)} imported, ${fmt(again.duplicates)} duplicates`,
  );
}

// 4. First query: the server catches up with the imported events and builds its index.
phase('first query');
started = performance.now();
await visitors(server.info.main, server.info.key, START, START + 20 * DAY);
log(
  `first query after the import (index built from the log): ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

// 5. Export latency.
phase('exports');
const results: Record<string, { cold: number[]; cached: number[] }> = {};
for (const length of [1, 7, 20]) {
  const starts = Math.max(1, DAYS - length + 1);
  const cold: number[] = [];
  for (let i = 0; i < Math.min(SAMPLES, starts); i++) {
    // A different window each time (never the one the first query used), so none is cached.
    const from = START + ((1 + i * 7) % starts) * DAY;
    cold.push(await timed(() => visitors(server.info.main, server.info.key, from, from + length * DAY, i)));
  }
  const cached: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    cached.push(await timed(() => visitors(server.info.main, server.info.key, START, START + length * DAY)));
  }
  results[`${length}d`] = { cold, cached };
  log(
    `visitors export, ${String(length).padStart(2)}-day range: cold p50 ${ms(percentile(cold, 50))} p95 ${ms(percentile(cold, 95))} (n=${cold.length}); cached p50 ${ms(percentile(cached, 50))} p95 ${ms(percentile(cached, 95))}`,
  );
}

// 5b. A 20-day range in another time zone: clipped edge days take the exact-union path.
const offsetTimes: number[] = [];
// Every window whose clipped last day has data (9 with 30 days), like the whole-day samples.
for (let i = 0; i < Math.min(DAYS - 21, SAMPLES); i++) {
  const day = new Date(START + (2 + i) * DAY).toISOString().slice(0, 10);
  const end = new Date(START + (22 + i) * DAY).toISOString().slice(0, 10);
  const query = `dateFrom=${day}T00:00:00%2B02:00&dateTo=${end}T00:00:00%2B02:00&limit=50`;
  offsetTimes.push(
    await timed(async () => {
      const res = await fetch(`${server.info.url}/v1/analytics/${server.info.main}/visitors?${query}`, {
        headers: { authorization: `Bearer ${server.info.key}` },
      });
      if (res.status !== 200) throw new Error(`visitors answered ${res.status}`);
      await res.arrayBuffer();
    }),
  );
}
log(
  `visitors export, 20-day range at +02:00 (clipped edges): cold p50 ${ms(percentile(offsetTimes, 50))} p95 ${ms(percentile(offsetTimes, 95))} (n=${offsetTimes.length})`,
);

// 6. HTTP ingestion into a second project (its index loaded first, so updates are included).
phase('HTTP ingestion');
await visitors(server.info.http, server.info.httpAdmin, START, START + DAY);
const bodies = encodeBodies(buildBodies(HTTP_EVENTS, 1000));
const target = { url: server.info.url, projectId: server.info.http, key: server.info.httpKey };
// CPU time as well as wall time: the server and this client share the machine's cores.
const serverCpuBefore = cpuMs(server.info.pid);
const clientCpuBefore = process.cpuUsage();
// The server measures this phase alone (phase-stats.ts; BENCH_SERVER_PHASE_PROF: a profile too).
process.kill(server.info.pid, 'SIGUSR2');
started = performance.now();
const accepted = await sendBatches(target, bodies, IN_FLIGHT);
const httpSeconds = (performance.now() - started) / 1000;
process.kill(server.info.pid, 'SIGUSR2');
const clientCpu = process.cpuUsage(clientCpuBefore);
const serverCpuPerEvent = (((cpuMs(server.info.pid) - serverCpuBefore) * 1000) / accepted).toFixed(1);
const clientCpuPerEvent = ((clientCpu.user + clientCpu.system) / accepted).toFixed(1);
log(
  `HTTP ingestion: ${fmt(accepted)} events in ${httpSeconds.toFixed(1)} s = ${fmt(accepted / httpSeconds)} events/s (batches of 1,000, ${IN_FLIGHT} in flight, each 202 after a durable commit); CPU per event: server ${serverCpuPerEvent} µs, this client ${clientCpuPerEvent} µs`,
);
const retried = await sendBatches(target, bodies.slice(0, 20), 4);
log(`retrying 20 batches with the same ids: ${fmt(retried)} accepted (expected 0)`);

// 7. Memory.
phase('after');
const status = readFileSync(`/proc/${server.info.pid}/status`, 'utf8');
const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
log(`server resident memory: ${fmt(kb('VmRSS') / 1024)} MiB now, ${fmt(kb('VmHWM') / 1024)} MiB peak`);
for (const line of memory.summary()) log(line);

// 8. Baseline: naive SQL over the raw events in DuckDB, and the answers compared.
const duck = await duckdbBaseline();
const ours = await visitors(server.info.main, server.info.key, START + 5 * DAY, START + 25 * DAY);
const oursMs = percentile(results['20d']?.cold ?? [], 50);
log(
  `DuckDB baseline (naive SQL over raw events, same 20-day query): p50 ${ms(duck.p50)} (load ${duck.loadSeconds.toFixed(1)} s); Docwright cold p50 ${ms(oursMs)}: ${(duck.p50 / oursMs).toFixed(1)}x faster`,
);
let same = JSON.stringify(duck.answer) === JSON.stringify({ totals: ours.totals, rows: ours.visitors });
log(`answers identical to DuckDB (totals and top 50 rows): ${same ? 'yes' : 'NO'}`);
if (PG_SCHEMA) {
  // The same query as naive SQL in the same engine: count(DISTINCT …) over the raw views.
  const naive = await naivePostgres(PG_SCHEMA, server.info.main, START + 5 * DAY, START + 25 * DAY, 3);
  const naiveMs = percentile(naive.times, 50);
  log(
    `PostgreSQL naive count(DISTINCT …) over raw views (same 20-day query): p50 ${ms(naiveMs)} (n=${naive.times.length}); Docwright cold p50 ${ms(oursMs)}: ${(naiveMs / oursMs).toFixed(1)}x faster`,
  );
  const samePg =
    JSON.stringify(naive.answer) === JSON.stringify({ totals: ours.totals, rows: ours.visitors });
  log(`answers identical to the naive PostgreSQL query: ${samePg ? 'yes' : 'NO'}`);
  same &&= samePg;
}

server.process.kill('SIGTERM');
await once(server.process, 'exit');
// The embedded engine writes a checkpoint every minute and on shutdown: after a large ingestion
// it writes every changed day in one pass, which can raise the peak after the phases above.
const finalPeak = memory.finalPeak();
if (finalPeak !== null) {
  log(
    `server resident memory, peak at exit (the embedded engine checkpoints on shutdown): ${fmt(finalPeak / 2 ** 20)} MiB`,
  );
}
if (!values.keep) {
  rmSync(dir, { recursive: true, force: true });
  if (PG_SCHEMA) await dropPostgresBenchSchema(PG_SCHEMA);
}
if (!same) process.exitCode = 1;

// ---------------------------------------------------------------------------------------------

interface ServerInfo {
  url: string;
  pid: number;
  main: string;
  http: string;
  key: string;
  httpKey: string;
  httpAdmin: string;
}

async function startServer(): Promise<{ process: ChildProcess; info: ServerInfo }> {
  const child = spawn(
    process.execPath,
    [
      ...SERVER_NODE_FLAGS,
      ...(process.env.BENCH_SERVER_PROF
        ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_SERVER_PROF]
        : []),
      path.join(here, 'server.ts'),
      '--data-dir',
      dir,
      '--rotation',
      ROTATION,
      '--memory-log',
      memoryLogFile,
      ...backendArgs,
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  return { process: child, info: JSON.parse(line.toString()) as ServerInfo };
}

async function runImport(
  project: string,
  file: string,
): Promise<{
  lines: number;
  imported: number;
  duplicates: number;
  skipped: number;
  seconds: number;
  linesPerSecond: number;
}> {
  const child = spawn(
    process.execPath,
    [
      path.join(here, 'import.ts'),
      '--data-dir',
      dir,
      '--project',
      project,
      '--file',
      file,
      '--rotation',
      ROTATION,
      ...backendArgs,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`import exited with ${code}`);
  return JSON.parse(out);
}

interface VisitorsReport {
  totals: { human: number; ai: number; total: number };
  visitors: Array<{ path: string; human: number; ai: number; total: number }>;
}

async function visitors(
  project: string,
  key: string,
  from: number,
  to: number,
  bust = 0,
): Promise<VisitorsReport> {
  const query = `dateFrom=${new Date(from).toISOString().slice(0, 10)}&dateTo=${new Date(to).toISOString().slice(0, 10)}&limit=50&offset=${bust % 2}`;
  const res = await fetch(`${server.info.url}/v1/analytics/${project}/visitors?${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (res.status !== 200) throw new Error(`visitors answered ${res.status}: ${await res.text()}`);
  // The baselines count human, ai and total only: the purpose split is left out of the comparison.
  const report = (await res.json()) as VisitorsReport;
  const pick = ({ human, ai, total }: VisitorsReport['totals']) => ({ human, ai, total });
  return {
    totals: pick(report.totals),
    visitors: report.visitors.map((row) => ({ path: row.path, ...pick(row) })),
  };
}

function buildBodies(count: number, batch: number): string[] {
  const bodies: string[] = [];
  let events: unknown[] = [];
  let i = 0;
  for (const e of generate({
    events: count,
    visitors: Math.max(1, Math.round(count / 10)),
    paths: PATHS,
    days: DAYS,
    seed: 2,
  })) {
    events.push(apiEvent(e, `h${i++}`));
    if (events.length === batch) {
      bodies.push(JSON.stringify({ events }));
      events = [];
    }
  }
  if (events.length > 0) bodies.push(JSON.stringify({ events }));
  return bodies;
}

async function duckdbBaseline(): Promise<{ p50: number; loadSeconds: number; answer: unknown }> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const loadStarted = performance.now();
  await connection.run(
    `create table events as select * from read_csv('${csvFile}', header = false, quote = '', columns = {'ts': 'BIGINT', 'path': 'VARCHAR', 'visitor': 'VARCHAR', 'category': 'VARCHAR'})`,
  );
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const from = START + 5 * DAY;
  const to = START + 25 * DAY;
  // The salt rotation makes one person a new visitor each period: so does the baseline.
  const visitor = {
    never: 'visitor',
    daily: `visitor || '@' || (ts // ${DAY})`,
    weekly: `visitor || '@' || ((ts // ${DAY}) - ((ts // ${DAY}) + 3) % 7)`,
    monthly: `visitor || '@' || strftime(epoch_ms(ts), '%Y-%m')`,
  }[ROTATION as 'never' | 'daily' | 'weekly' | 'monthly'];
  const counted = `select path,
      count(distinct ${visitor}) filter (where category = 'human') as human,
      count(distinct ${visitor}) filter (where category = 'ai') as ai,
      count(distinct ${visitor}) as total
    from events where ts >= ${from} and ts < ${to} and category in ('human', 'ai')`;
  const times: number[] = [];
  let answer: unknown = null;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const totals = (
      await connection.runAndReadAll(counted.replace('select path,', 'select'))
    ).getRowObjectsJS();
    const rows = (
      await connection.runAndReadAll(`${counted} group by path order by total desc, path limit 50`)
    ).getRowObjectsJS();
    times.push(performance.now() - t);
    const n = (v: unknown) => Number(v);
    const t0 = totals[0] ?? {};
    answer = {
      totals: { human: n(t0.human), ai: n(t0.ai), total: n(t0.total) },
      rows: rows.map((r) => ({ path: String(r.path), human: n(r.human), ai: n(r.ai), total: n(r.total) })),
    };
  }
  connection.closeSync();
  return { p50: percentile(times, 50), loadSeconds, answer };
}

async function writeLines(
  files: string[],
  events: Iterable<BenchEvent>,
  render: (e: BenchEvent, i: number) => Array<string | null>,
): Promise<void> {
  const streams = files.map((f) => createWriteStream(f, { highWaterMark: 1 << 22 }));
  const buffers: string[][] = files.map(() => []);
  let i = 0;
  for (const e of events) {
    const lines = render(e, i++);
    lines.forEach((line, k) => {
      if (line !== null) (buffers[k] as string[]).push(line);
    });
    if (i % 10_000 === 0) {
      for (const [k, stream] of streams.entries()) {
        const chunk = (buffers[k] as string[]).join('\n');
        buffers[k] = [];
        if (chunk && !stream.write(`${chunk}\n`)) await once(stream, 'drain');
      }
    }
  }
  for (const [k, stream] of streams.entries()) {
    const chunk = (buffers[k] as string[]).join('\n');
    if (chunk) stream.write(`${chunk}\n`);
    stream.end();
    await once(stream, 'finish');
  }
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

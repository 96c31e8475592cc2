// The analytics benchmark on ClickHouse: `npm run bench:analytics -- --backend clickhouse`.
//
// Starts a ClickHouse server of its own (Debian's clickhouse-server; its data in the bench
// dir) and the real Docwright HTTP app with a ClickHouse store behind analytics, loads the data
// set (`--load bulk`, the default from 2 M events: the pipeline up to the store, then big inserts
// and the first-visit tables built inside ClickHouse; `--load pipeline`: view by view through
// the ingestion pipeline), then measures what run.ts measures for the embedded
// engine: visitors export p50/p95 (cold and cached), the +02:00 range with clipped edges, HTTP
// ingestion, the server's memory; and the naive `uniqExact` over raw events in the same
// server, whose answer must match, with the ratio. Prints every figure.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '@clickhouse/client';
import { startClickHouse } from '../../../test/helpers/clickhouse-server.ts';
import { apiEvent, DAY, generate, START } from '../dataset.ts';
import { MemoryPhases } from '../memory-phases.ts';
import { cpuMs } from '../process-cpu.ts';
import { encodeBodies, sendBatches } from '../send-batches.ts';
import { SERVER_NODE_FLAGS } from '../server-node-flags.ts';

const { values } = parseArgs({
  options: {
    backend: { type: 'string' },
    events: { type: 'string', default: '10000000' },
    visitors: { type: 'string' },
    paths: { type: 'string', default: '5000' },
    days: { type: 'string', default: '30' },
    'http-events': { type: 'string', default: '2000000' },
    rotation: { type: 'string', default: 'never' },
    samples: { type: 'string', default: '15' },
    keep: { type: 'boolean', default: false },
    load: { type: 'string' },
    'views-per-chunk': { type: 'string' },
    'build-memory': { type: 'string' },
    'http-into': { type: 'string', default: 'new' },
    'in-flight': { type: 'string', default: '8' },
  },
  strict: false,
});
const EVENTS = Number(values.events);
const VISITORS = Number(values.visitors ?? Math.max(1, Math.round(EVENTS / 10)));
const PATHS = Number(values.paths);
const DAYS = Number(values.days);
const HTTP_EVENTS = Math.min(Number(values['http-events']), EVENTS);
const SAMPLES = Number(values.samples);
const ROTATION = String(values.rotation ?? 'never');
const DATABASE = 'docwright';
const LOAD = String(values.load ?? (EVENTS >= 2_000_000 ? 'bulk' : 'pipeline'));
if (LOAD !== 'bulk' && LOAD !== 'pipeline') throw new Error('--load must be bulk or pipeline');
// Where HTTP ingestion goes: a new project (the goal's figure), or the loaded one, to see how
// an append's lookups grow with the project they go into.
const HTTP_INTO = String(values['http-into']);
// Requests in flight during the HTTP phase (batches of 1,000): concurrent requests are grouped
// into one append, so this bounds an append's size.
const IN_FLIGHT = Number(values['in-flight']);
if (!Number.isInteger(IN_FLIGHT) || IN_FLIGHT < 1) throw new Error('--in-flight must be a whole number ≥ 1');
if (HTTP_INTO !== 'new' && HTTP_INTO !== 'loaded') throw new Error('--http-into must be new or loaded');
const here = path.dirname(new URL(import.meta.url).pathname);
const dir = mkdtempSync(path.join(tmpdir(), 'docwright-bench-clickhouse-'));
const log = (line: string) => process.stdout.write(`${line}\n`);
const fmt = (n: number) => Math.round(n).toLocaleString('en');

log('# Docwright analytics benchmark: ClickHouse backend');
log(
  `data set: ${fmt(EVENTS)} events, ${fmt(VISITORS)} visitors, ${fmt(PATHS)} pages, ${DAYS} days, salt rotation ${ROTATION}; data dir ${dir}`,
);
const clickhouse = await startClickHouse({ dataDir: path.join(dir, 'clickhouse') });
const version = execFileSync('curl', ['-s', `${clickhouse.url}/?query=SELECT%20version()`])
  .toString()
  .trim();
log(`ClickHouse ${version} at ${clickhouse.url} (pid ${clickhouse.pid})`);
const client = createClient({ url: clickhouse.url, request_timeout: 600_000 });

const memory = new MemoryPhases(path.join(dir, 'server-memory.jsonl'));
memory.begin('start');
const server = await startServer();
log(`server pid ${server.info.pid} at ${server.info.url}`);

// 1. The data set, through the ingestion pipeline into the store (its own process).
memory.begin('load');
const loaded = await runLoader(server.info.main);
if (LOAD === 'bulk') {
  log(
    `bulk load (its own process: the pipeline up to the store, batches of 50,000 as TabSeparated inserts, then the first-visit tables built in ClickHouse): ${fmt(loaded.events)} events in ${loaded.seconds.toFixed(1)} s = ${fmt(loaded.eventsPerSecond)} events/s (inserts ${loaded.insertSeconds.toFixed(1)} s = ${fmt(loaded.events / loaded.insertSeconds)} events/s; build ${loaded.buildSeconds.toFixed(1)} s, heaviest statement ${fmt(loaded.buildPeakMemory / 1e6)} MB)`,
  );
} else {
  log(
    `load through the ingestion pipeline (its own process, batches of 20,000): ${fmt(loaded.events)} events in ${loaded.seconds.toFixed(1)} s = ${fmt(loaded.eventsPerSecond)} events/s`,
  );
}
log(`ClickHouse resident memory after the load: ${rss(clickhouse.pid)}`);
log(`disk used by ClickHouse after the load: ${diskUsed()}`);

// 2. First query.
memory.begin('exports');
let started = performance.now();
await visitors(server.info.main, server.info.key, START, START + 20 * DAY);
log(`first query after the load: ${((performance.now() - started) / 1000).toFixed(2)} s`);

// 3. Export latency, as run.ts measures it.
const results: Record<string, { cold: number[]; cached: number[] }> = {};
for (const length of [1, 7, 20]) {
  const starts = Math.max(1, DAYS - length + 1);
  const cold: number[] = [];
  for (let i = 0; i < Math.min(SAMPLES, starts); i++) {
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
const offsetTimes: number[] = [];
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

// 4. HTTP ingestion into a second project (or, with --http-into loaded, the loaded one).
const bodies = encodeBodies(buildBodies(HTTP_EVENTS, 1000));
const target =
  HTTP_INTO === 'new'
    ? { url: server.info.url, projectId: server.info.http, key: server.info.httpKey }
    : { url: server.info.url, projectId: server.info.main, key: server.info.key };
memory.begin('HTTP ingestion');
// CPU time as well as wall time: on a shared machine the wall time mostly measures the others.
const cpuBefore = [cpuMs(server.info.pid), cpuMs(clickhouse.pid)];
started = performance.now();
const accepted = await sendBatches(target, bodies, IN_FLIGHT);
const httpSeconds = (performance.now() - started) / 1000;
const perEvent = (pid: number, i: number) =>
  (((cpuMs(pid) - (cpuBefore[i] as number)) * 1000) / accepted).toFixed(1);
log(
  `HTTP ingestion${HTTP_INTO === 'new' ? '' : ' into the loaded project'}: ${fmt(accepted)} events in ${httpSeconds.toFixed(1)} s = ${fmt(accepted / httpSeconds)} events/s (batches of 1,000, ${IN_FLIGHT} in flight, each 202 after the insert returned); CPU per event: server ${perEvent(server.info.pid, 0)} µs, ClickHouse ${perEvent(clickhouse.pid, 1)} µs`,
);
const retried = await sendBatches(target, bodies.slice(0, 20), 4);
log(`retrying 20 batches with the same ids: ${fmt(retried)} accepted (expected 0)`);

// 5. Memory: Docwright's process (the goal), and ClickHouse's beside it.
memory.begin('after');
log(`server resident memory: ${rss(server.info.pid)}`);
for (const line of memory.summary()) log(line);
log(`ClickHouse resident memory: ${rss(clickhouse.pid)}`);
log(`disk used by ClickHouse at the end: ${diskUsed()}`);

// 6. The naive query: uniqExact over the raw events, in the same server.
const naive = await naiveQuery();
const ours = await visitors(server.info.main, server.info.key, START + 5 * DAY, START + 25 * DAY);
const oursMs = percentile(results['20d']?.cold ?? [], 50);
log(
  `naive uniqExact over raw events (same 20-day query, same server): p50 ${ms(naive.p50)}; Docwright cold p50 ${ms(oursMs)}: ratio ${(naive.p50 / oursMs).toFixed(2)}x`,
);
// The naive query counts human, ai and total; the purpose split rides along in ours.
const pick = ({ human, ai, total }: { human: number; ai: number; total: number }) => ({ human, ai, total });
const same =
  JSON.stringify(naive.answer) ===
  JSON.stringify({
    totals: pick(ours.totals),
    rows: ours.visitors.map((r) => ({ path: r.path, ...pick(r) })),
  });
log(`answers identical to the naive query (totals and top 50 rows): ${same ? 'yes' : 'NO'}`);

server.process.kill('SIGTERM');
await once(server.process, 'exit');
await client.close();
await clickhouse.stop();
if (!values.keep) rmSync(dir, { recursive: true, force: true });
if (!same) process.exitCode = 1;

// ---------------------------------------------------------------------------------------------

interface ServerInfo {
  url: string;
  pid: number;
  main: string;
  http: string;
  key: string;
  httpKey: string;
}

async function startServer(): Promise<{ process: ChildProcess; info: ServerInfo }> {
  const child = spawn(
    process.execPath,
    [
      // BENCH_SERVER_PROF=dir: the server writes a V8 CPU profile there when it exits.
      ...SERVER_NODE_FLAGS,
      ...(process.env.BENCH_SERVER_PROF
        ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_SERVER_PROF]
        : []),
      path.join(here, '..', 'server.ts'),
      '--data-dir',
      dir,
      '--rotation',
      ROTATION,
      '--clickhouse-url',
      clickhouse.url,
      '--clickhouse-database',
      DATABASE,
      '--memory-log',
      memory.file,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  return { process: child, info: JSON.parse(line.toString()) as ServerInfo };
}

function rss(pid: number): string {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return `${fmt(kb('VmRSS') / 1024)} MB now, ${fmt(kb('VmHWM') / 1024)} MB peak`;
}

interface Loaded {
  events: number;
  seconds: number;
  eventsPerSecond: number;
  insertSeconds: number;
  buildSeconds: number;
  buildPeakMemory: number;
}

async function runLoader(project: string): Promise<Loaded> {
  const child = spawn(
    process.execPath,
    [
      path.join(here, 'clickhouse-load.ts'),
      `--url=${clickhouse.url}`,
      `--database=${DATABASE}`,
      `--project=${project}`,
      `--events=${EVENTS}`,
      `--visitors=${VISITORS}`,
      `--paths=${PATHS}`,
      `--days=${DAYS}`,
      `--rotation=${ROTATION}`,
      `--load=${LOAD}`,
      ...(values['views-per-chunk'] ? [`--views-per-chunk=${values['views-per-chunk']}`] : []),
      ...(values['build-memory'] ? [`--build-memory=${values['build-memory']}`] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`loader exited with ${code}`);
  return JSON.parse(out);
}

function diskUsed(): string {
  const bytes = Number(
    execFileSync('du', ['-sb', path.join(clickhouse.dataDir, 'data')])
      .toString()
      .split('\t')[0],
  );
  return `${(bytes / 1e9).toFixed(2)} GB`;
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
  return (await res.json()) as VisitorsReport;
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

/** The 20-day visitors export as one naive query over the raw events (the store's table). */
async function naiveQuery(): Promise<{ p50: number; answer: unknown }> {
  const from = START + 5 * DAY;
  const to = START + 25 * DAY;
  const base = `FROM ${DATABASE}.views WHERE project = '${server.info.main}' AND ts >= ${from} AND ts < ${to} AND category IN (0, 1)`;
  const counts = `uniqExactIf(visitor_hi, visitor_lo, category = 0) AS human, uniqExactIf(visitor_hi, visitor_lo, category = 1) AS ai, uniqExact(visitor_hi, visitor_lo) AS total`;
  // At 100 M events the exact sets outgrow ClickHouse's memory limit per query (3.73 GiB on
  // this machine; the 100 M run died there): the baseline may use up to 16 GB.
  const clickhouse_settings = { max_memory_usage: '16000000000' };
  const times: number[] = [];
  let answer: unknown = null;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const totals = await (
      await client.query({ query: `SELECT ${counts} ${base}`, format: 'JSONEachRow', clickhouse_settings })
    ).json<Record<string, string>>();
    const rows = await (
      await client.query({
        query: `SELECT path, ${counts} ${base} GROUP BY path ORDER BY total DESC, path LIMIT 50`,
        format: 'JSONEachRow',
        clickhouse_settings,
      })
    ).json<Record<string, string>>();
    times.push(performance.now() - t);
    const n = (v: unknown) => Number(v);
    const t0 = totals[0] ?? {};
    answer = {
      totals: { human: n(t0.human), ai: n(t0.ai), total: n(t0.total) },
      rows: rows.map((r) => ({ path: String(r.path), human: n(r.human), ai: n(r.ai), total: n(r.total) })),
    };
  }
  return { p50: percentile(times, 50), answer };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

function percentile(list: number[], p: number): number {
  if (list.length === 0) return Number.NaN;
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

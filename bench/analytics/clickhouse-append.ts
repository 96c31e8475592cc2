// The ClickHouse store's append path alone, for a tight loop on ingestion CPU:
// `node bench/analytics/clickhouse-append.ts [--events 200000] [--group 8000] [--url URL]`.
//
// Prepares the data set with the real pipeline (validation, classification, identity) in
// batches of 1,000 (as `POST …/events` would), then appends them to a ClickHouse store in groups
// of `--group` views (that many batches at once, as concurrent requests are grouped), and prints
// the CPU time per view of preparing, of this process's part of the appends and of ClickHouse's
// (its process's CPU time while the appends ran, from /proc), with medians over the groups. CPU
// time, not wall time, since the machine is shared. Starts a ClickHouse server of its own unless
// `--url` names one (then ClickHouse's CPU is not measured).

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { SaltRotation } from '../../src/domain/analytics/identity.ts';
import { openClickHouseAnalyticsStore } from '../../src/integrations/analytics/clickhouse/clickhouse-store.ts';
import { processLocks } from '../../src/storage/locks.ts';
import { startClickHouse } from '../../test/helpers/clickhouse-server.ts';
import { ownCpuMs, prepareViews } from './prepared-views.ts';
import { cpuMs } from './process-cpu.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '200000' },
    visitors: { type: 'string' },
    paths: { type: 'string', default: '5000' },
    days: { type: 'string', default: '30' },
    group: { type: 'string', default: '8000' },
    rotation: { type: 'string', default: 'never' },
    url: { type: 'string' },
  },
});
const EVENTS = Number(values.events);
const BATCH = 1000;
const GROUP = Math.max(BATCH, Number(values.group));
const log = (line: string) => process.stdout.write(`${line}\n`);

const clickhouse = values.url ? null : await startClickHouse();
const url = values.url ?? clickhouse?.url ?? '';
const database = `append_bench_${process.pid}`;
const store = await openClickHouseAnalyticsStore({ url, database, locks: processLocks() });
// 1. Prepare, in batches of 1,000 with event ids.
const { batches, prepareCpuMs: prepareMs } = await prepareViews({
  events: EVENTS,
  ...(values.visitors ? { visitors: Number(values.visitors) } : {}),
  paths: Number(values.paths),
  days: Number(values.days),
  rotation: values.rotation as SaltRotation,
});

// 2. Append, GROUP / BATCH batches at once (one group in the store).
const perGroup = Math.max(1, Math.round(GROUP / BATCH));
const own: number[] = [];
const theirs: number[] = [];
const wall: number[] = [];
let ownTotal = 0;
let theirsTotal = 0;
const started = performance.now();
for (let g = 0; g < batches.length; g += perGroup) {
  const group = batches.slice(g, g + perGroup);
  const views = group.reduce((n, b) => n + b.length, 0);
  const t0 = ownCpuMs();
  const c0 = clickhouse ? cpuMs(clickhouse.pid) : 0;
  const w0 = performance.now();
  const results = await Promise.all(group.map((b) => store.append('prj_bench', b)));
  const w1 = performance.now();
  const ownMs = ownCpuMs() - t0;
  const theirMs = clickhouse ? cpuMs(clickhouse.pid) - c0 : 0;
  if (results.some((r) => r.duplicates > 0)) throw new Error('unexpected duplicates');
  own.push((ownMs * 1000) / views);
  theirs.push((theirMs * 1000) / views);
  wall.push(((w1 - w0) * 1000) / views);
  ownTotal += ownMs;
  theirsTotal += theirMs;
}
const seconds = (performance.now() - started) / 1000;
// A retried group adds nothing.
const retried = await Promise.all(batches.slice(0, perGroup).map((b) => store.append('prj_bench', b)));
// Rows stored per view, per table (before merges: the count tables' deltas are summed later).
const rowsPerView: string[] = [];
for (const table of ['views', 'event_keys', 'pair_days', 'day_counts']) {
  const res = await fetch(
    `${url}/?query=${encodeURIComponent(`SELECT sum(rows) FROM system.parts WHERE database = '${database}' AND table = '${table}' AND active`)}`,
  );
  rowsPerView.push(`${table} ${(Number((await res.text()).trim()) / EVENTS).toFixed(2)}`);
}
await store.close();
await clickhouse?.stop();

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? Number.NaN;
const f = (n: number) => n.toFixed(1);
log(
  `# ClickHouse append: ${EVENTS.toLocaleString('en')} views, groups of ${perGroup * BATCH} (${own.length} groups); load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
);
log(`prepare (validate, classify, identity): ${f((prepareMs * 1000) / EVENTS)} µs CPU per view`);
log(
  `append, this process: ${f((ownTotal * 1000) / EVENTS)} µs CPU per view (median group ${f(median(own))}, groups after the first half ${f(median(own.slice(own.length >> 1)))})`,
);
if (clickhouse)
  log(
    `append, ClickHouse: ${f((theirsTotal * 1000) / EVENTS)} µs CPU per view (median group ${f(median(theirs))}, second half ${f(median(theirs.slice(theirs.length >> 1)))})`,
  );
log(
  `append wall: ${f(seconds)} s = ${Math.round(EVENTS / seconds).toLocaleString('en')} views/s (median group ${f(median(wall))} µs per view)`,
);
log(`rows per view (active parts, after background merges so far): ${rowsPerView.join(', ')}`);
log(`retried group: ${retried.reduce((n, r) => n + r.accepted, 0)} accepted (expected 0)`);

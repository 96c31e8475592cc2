// Profiles the embedded store's clipped-edge visitors export against the whole-day one, on a
// data set built straight into the store (no HTTP, no log parsing):
// `node bench/analytics/clipped-profile.ts [--events 2000000] [--dir DIR]`. Prints p50s.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { PreparedEvent } from '../../src/domain/analytics/store.ts';
import { EmbeddedAnalyticsStore } from '../../src/integrations/analytics/embedded/embedded-store.ts';
import { DAY, generate, preparedEvent, START } from './dataset.ts';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '2000000' }, dir: { type: 'string' } },
});
const EVENTS = Number(values.events);
const dir = values.dir ?? mkdtempSync(path.join(tmpdir(), 'dw-clipped-'));
const file = path.join(dir, 'analytics.sqlite');
const NOW = new Date(START + 40 * DAY);
const HOUR = 3_600_000;
const QUARTER = 900_000;
const open = () =>
  new EmbeddedAnalyticsStore({ file, synchronous: 'normal', checkpointIntervalMs: 0, clock: () => NOW });
let store = open();
if (!values.dir) {
  let batch: PreparedEvent[] = [];
  for (const e of generate({ events: EVENTS, visitors: EVENTS / 10, paths: 5000, days: 30, seed: 1 })) {
    batch.push(preparedEvent(e, null));
    if (batch.length === 10_000) {
      await store.append('prj', batch);
      batch = [];
    }
  }
  await store.append('prj', batch);
  await store.close();
  store = open();
  process.stdout.write(`data in ${dir}\n`);
}
const query = (from: number, to: number) =>
  store.pages('prj', {
    range: { from, to },
    measure: 'visitors',
    limit: 50,
    offset: 0,
    countAiCrawlersAsAi: false,
    verifiedOnly: false,
  });
let t = performance.now();
await query(START, START + 20 * DAY);
process.stdout.write(
  `first query ${(performance.now() - t).toFixed(0)} ms; rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB, peak ${(process.resourceUsage().maxRSS / 1e3).toFixed(0)} MB, ${JSON.stringify(Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round(v / 1e6)])))}\n`,
);
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
// Every window a different one, so none is answered from the page cache: the clipped windows
// move by whole days, then by a quarter hour (on quarter hours) or by minutes (off them).
const windows: Array<[name: string, from: (i: number) => number, count: number]> = [
  ['whole', (i) => START + (2 + (i % 8)) * DAY, 8],
  [
    '+02:00 (cut on quarter hours)',
    (i) => START + (2 + (i % 8)) * DAY - 2 * HOUR - Math.floor(i / 8) * QUARTER,
    30,
  ],
  [
    'off the quarter hours',
    (i) => START + (2 + (i % 8)) * DAY - 2 * HOUR - (1 + Math.floor(i / 8)) * 60_000,
    30,
  ],
];
for (const [name, start, count] of windows) {
  const times: number[] = [];
  // CPU time too: on a machine shared with other work, wall time mostly measures the others.
  const cpu: number[] = [];
  for (let i = 0; i < count; i++) {
    const from = start(i);
    t = performance.now();
    const before = process.cpuUsage();
    await query(from, from + 20 * DAY);
    const used = process.cpuUsage(before);
    times.push(performance.now() - t);
    cpu.push((used.user + used.system) / 1000);
  }
  process.stdout.write(
    `${name}: p50 ${p50(times).toFixed(1)} ms, cpu p50 ${p50(cpu).toFixed(1)} ms (${times.map((x) => x.toFixed(0)).join(', ')})\n`,
  );
}
await store.close();

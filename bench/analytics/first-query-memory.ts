// The embedded store's first query on an existing analytics file, alone in a process:
// `node bench/analytics/first-query-memory.ts --file DIR/analytics.sqlite --project ID [--replay]`.
// With --replay the file's day snapshots are deleted first, so the index is built from the log
// as a server's is after an import (use a copy: the snapshots are gone afterwards). Prints the
// query's wall and CPU time and the process's memory and peak, e.g. on a copy of the file a
// `npm run bench:analytics -- --keep` run leaves (its project id is in its `projects` table).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { EmbeddedAnalyticsStore } from '../../src/integrations/analytics/embedded/embedded-store.ts';
import { DAY, START } from './dataset.ts';

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    project: { type: 'string', default: 'prj' },
    replay: { type: 'boolean', default: false },
  },
});
const file = values.file ?? '';
if (values.replay) {
  const db = new SqliteDatabase(file);
  db.exec('delete from day_snapshots; delete from snapshot_marks;');
  db.close();
}
// The bench's data set is in the past: every day is closed, as on the bench server.
const NOW = new Date(START + 40 * DAY);
const store = new EmbeddedAnalyticsStore({
  file,
  synchronous: 'normal',
  checkpointIntervalMs: 0,
  clock: () => NOW,
});
const peakMb = () =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
const before = process.cpuUsage();
const started = performance.now();
await store.pages(values.project, {
  range: { from: START, to: START + 20 * DAY },
  measure: 'visitors',
  limit: 50,
  offset: 0,
  countAiCrawlersAsAi: false,
  verifiedOnly: false,
});
const cpu = process.cpuUsage(before);
const memory = Object.fromEntries(
  Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round(v / 1e6)]),
);
process.stdout.write(
  `first query ${((performance.now() - started) / 1000).toFixed(1)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; peak ${Math.round(peakMb())} MB; now (MB) ${JSON.stringify(memory)}\n`,
);
// No close: it would write every day's snapshot back.
process.exit(0);

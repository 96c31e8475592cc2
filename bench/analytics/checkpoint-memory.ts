// What a checkpoint that writes every day costs the embedded store: the first checkpoint after
// a large import or a backfill does that, in one synchronous pass, while the server runs.
// `node bench/analytics/checkpoint-memory.ts --dir DIR [--runs 3]`, DIR being a data dir that
// `clipped-profile.ts` built (it keeps the analytics file there). Each run copies the file, drops
// its snapshots (so every day has changed), loads the index from the log with one query, then
// times `checkpoint()` and prints the memory it left behind: the heap and array buffers it
// allocated (garbage until the next full collection) and how far it raised the resident peak.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { EmbeddedAnalyticsStore } from '../../src/integrations/analytics/embedded/embedded-store.ts';
import { DAY, START } from './dataset.ts';

const { values } = parseArgs({
  options: { dir: { type: 'string' }, runs: { type: 'string', default: '3' } },
});
if (!values.dir) throw new Error('--dir DIR is required (a data dir clipped-profile.ts built)');
const source = path.join(values.dir, 'analytics.sqlite');
const NOW = new Date(START + 40 * DAY);
const mb = (n: number) => (n / 1e6).toFixed(0);

for (let run = 0; run < Number(values.runs); run++) {
  const dir = mkdtempSync(path.join(tmpdir(), 'dw-checkpoint-'));
  const file = path.join(dir, 'analytics.sqlite');
  copyFileSync(source, file);
  const sqlite = new Database(file);
  sqlite.exec('delete from day_snapshots; delete from snapshot_marks;');
  sqlite.close();
  const store = new EmbeddedAnalyticsStore({
    file,
    synchronous: 'normal',
    checkpointIntervalMs: 0,
    clock: () => NOW,
  });
  await store.pages('prj', {
    range: { from: START, to: START + 20 * DAY },
    measure: 'visitors',
    limit: 50,
    offset: 0,
    countAiCrawlersAsAi: false,
    verifiedOnly: false,
  });
  const before = process.memoryUsage();
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  const started = performance.now();
  store.checkpoint();
  const ms = performance.now() - started;
  const after = process.memoryUsage();
  const peakAfter = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(
    `run ${run + 1}: checkpoint of every day ${ms.toFixed(0)} ms; heap used +${mb(after.heapUsed - before.heapUsed)} MB, array buffers +${mb(after.arrayBuffers - before.arrayBuffers)} MB, RSS ${mb(before.rss)} -> ${mb(after.rss)} MB, peak ${mb(peakBefore)} -> ${mb(peakAfter)} MB\n`,
  );
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

// Loads the benchmark's data set into a ClickHouse store, in its own process like an import.
// `--load pipeline`: through the ingestion pipeline (classification, identity, idempotency
// check, first-visit lookup and deltas, insert), group by group. `--load bulk`: the same
// pipeline up to the store, whose views then go in big TabSeparated inserts without the
// first-visit tables (bulkAppend), built at the end inside ClickHouse (finishBulk), as
// `docwright analytics migrate` does. Prints one JSON line: { events, seconds, eventsPerSecond,
// insertSeconds, buildSeconds, buildPeakMemory }.

import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createClient } from '@clickhouse/client';
import { AnalyticsService } from '../../../src/domain/analytics/analytics-service.ts';
import { bulkAppending } from '../../../src/domain/analytics/bulk-appending.ts';
import type { SaltRotation } from '../../../src/domain/analytics/identity.ts';
import { type AnalyticsSettings, DEFAULT_ANALYTICS_SETTINGS } from '../../../src/domain/analytics/store.ts';
import { openClickHouseAnalyticsStore } from '../../../src/integrations/analytics/clickhouse/clickhouse-store.ts';
import { processLocks } from '../../../src/storage/locks.ts';
import { generate } from '../dataset.ts';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    database: { type: 'string' },
    project: { type: 'string' },
    events: { type: 'string' },
    visitors: { type: 'string' },
    paths: { type: 'string' },
    days: { type: 'string' },
    rotation: { type: 'string' },
    load: { type: 'string', default: 'bulk' },
    'views-per-chunk': { type: 'string' },
    'build-memory': { type: 'string' },
  },
});
const BULK = values.load === 'bulk';
const BATCH = BULK ? 50_000 : 20_000;
const IN_FLIGHT = 3;
const salts = new Map<string, Buffer>();
const metadata = {
  async salt(period: string) {
    let salt = salts.get(period);
    if (!salt) {
      salt = randomBytes(32);
      salts.set(period, salt);
    }
    return salt;
  },
  async forgetSalts() {
    return [];
  },
  async settings(): Promise<AnalyticsSettings> {
    return { ...DEFAULT_ANALYTICS_SETTINGS };
  },
  async saveSettings() {},
  async deleteSettings() {},
};
const store = await openClickHouseAnalyticsStore({
  url: values.url ?? '',
  database: values.database ?? '',
  requestTimeoutMs: 600_000,
  locks: processLocks(), // the load is the database's only writer
  rebuild: {
    onStep: ({ done, total }) => {
      if (done % 25 === 0 || done === total)
        process.stderr.write(`build: ${done} of ${total} statements, ${new Date().toISOString()}\n`);
    },
    ...(values['views-per-chunk'] ? { viewsPerChunk: Number(values['views-per-chunk']) } : {}),
    ...(values['build-memory'] ? { settings: { max_memory_usage: String(values['build-memory']) } } : {}),
  },
});
const service = new AnalyticsService({
  store: BULK ? bulkAppending(store) : store,
  salts: metadata,
  settings: metadata,
  clock: () => new Date(Date.UTC(2030, 0, 1)),
  saltRotation: (values.rotation ?? 'never') as SaltRotation,
  maxBatch: BATCH,
  identityCacheLimit: 2_000_000,
});
const project = values.project ?? '';
const started = performance.now();
let loaded = 0;
const inFlight = new Set<Promise<void>>();
let batch: Array<Record<string, string>> = [];
const send = async (events: Array<Record<string, string>>) => {
  const result = await service.ingest(project, events);
  if (result.rejected.length > 0) throw new Error(`rejected: ${JSON.stringify(result.rejected[0])}`);
  const before = loaded;
  loaded += result.accepted;
  // A line every 5 M events (stderr), so a long run shows how far it got and at what rate.
  if (Math.floor(loaded / 5_000_000) > Math.floor(before / 5_000_000)) {
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(
      `loaded ${loaded} events in ${seconds.toFixed(0)} s = ${Math.round(loaded / seconds)} events/s\n`,
    );
  }
};
for (const e of generate({
  events: Number(values.events),
  visitors: Number(values.visitors),
  paths: Number(values.paths),
  days: Number(values.days),
  seed: 1,
})) {
  batch.push({
    timestamp: new Date(e.timestamp).toISOString(),
    path: e.path,
    userAgent: e.userAgent,
    ip: e.ip,
    ...(e.accept ? { accept: e.accept } : {}),
  });
  if (batch.length === BATCH) {
    const p = send(batch).finally(() => inFlight.delete(p));
    inFlight.add(p);
    batch = [];
    if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
  }
}
if (batch.length > 0) await send(batch);
await Promise.all(inFlight);
const insertSeconds = (performance.now() - started) / 1000;
let buildSeconds = 0;
let buildPeakMemory = 0;
if (BULK) {
  process.stderr.write(
    `bulk insert: ${loaded} views in ${insertSeconds.toFixed(1)} s; building the first-visit tables\n`,
  );
  // The heaviest build statement's memory, from system.processes while it runs.
  const watcher = createClient({ url: values.url ?? '' });
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const rows = await (
        await watcher.query({
          query: `SELECT max(peak_memory_usage) AS m FROM system.processes WHERE query LIKE 'INSERT INTO%visit%'`,
          format: 'JSONEachRow',
        })
      ).json<{ m: string }>();
      buildPeakMemory = Math.max(buildPeakMemory, Number(rows[0]?.m ?? 0));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  const build = performance.now();
  await store.finishBulk(project);
  buildSeconds = (performance.now() - build) / 1000;
  watching = false;
  await watch;
  await watcher.close();
}
await store.close();
const seconds = (performance.now() - started) / 1000;
process.stdout.write(
  `${JSON.stringify({ events: loaded, seconds, eventsPerSecond: loaded / seconds, insertSeconds, buildSeconds, buildPeakMemory })}\n`,
);

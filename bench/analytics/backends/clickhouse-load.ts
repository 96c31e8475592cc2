// Loads the benchmark's data set into a ClickHouse store through the ingestion pipeline
// (classification, identity, idempotency check, insert), in its own process like an import.
// Prints one JSON line: { events, seconds, eventsPerSecond }.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { AnalyticsService } from '../../../src/domain/analytics/analytics-service.ts';
import type { SaltRotation } from '../../../src/domain/analytics/identity.ts';
import { type AnalyticsSettings, DEFAULT_ANALYTICS_SETTINGS } from '../../../src/domain/analytics/store.ts';
import { openClickHouseAnalyticsStore } from '../../../src/integrations/analytics/clickhouse/clickhouse-store.ts';
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
  },
});
const BATCH = 20_000;
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
const store = await openClickHouseAnalyticsStore({ url: values.url ?? '', database: values.database ?? '' });
const service = new AnalyticsService({
  store,
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
  loaded += result.accepted;
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
await store.close();
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ events: loaded, seconds, eventsPerSecond: loaded / seconds })}\n`);

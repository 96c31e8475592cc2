import { type SaltRotation, VisitorIdentity } from '../../src/domain/analytics/identity.ts';
import { Ingestor } from '../../src/domain/analytics/ingest.ts';
import {
  type AnalyticsSettings,
  DEFAULT_ANALYTICS_SETTINGS,
  type PreparedEvent,
} from '../../src/domain/analytics/store.ts';
import { apiEvent, generate } from './dataset.ts';

/** This process's CPU time (user + system) in ms. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * The data set's views through the real pipeline (validation, classification, identity), in
 * batches of 1,000 with event ids, as `POST …/events` would prepare them; and the CPU time that
 * preparing took, apart from generating the data.
 */
export async function prepareViews(options: {
  events: number;
  visitors?: number;
  paths: number;
  days: number;
  rotation?: SaltRotation;
}): Promise<{ batches: PreparedEvent[][]; prepareCpuMs: number }> {
  const settings = {
    async settings(): Promise<AnalyticsSettings> {
      return { ...DEFAULT_ANALYTICS_SETTINGS };
    },
  };
  const ingestor = new Ingestor({
    // Preparing never stores.
    store: null as never,
    settings: settings as never,
    identity: new VisitorIdentity({
      rotation: options.rotation ?? 'never',
      salts: { salt: async () => Buffer.alloc(32, 7) },
      cacheLimit: 2_000_000,
    }),
    clock: () => new Date(Date.UTC(2030, 0, 1)),
  });
  const batches: PreparedEvent[][] = [];
  let raw: unknown[] = [];
  let prepareCpuMs = 0;
  const prepareBatch = async () => {
    const t = ownCpuMs();
    const { prepared, rejected } = await ingestor.prepare('prj_bench', raw);
    prepareCpuMs += ownCpuMs() - t;
    if (rejected.length > 0) throw new Error(`rejected: ${JSON.stringify(rejected[0])}`);
    batches.push(prepared);
    raw = [];
  };
  let i = 0;
  for (const e of generate({
    events: options.events,
    visitors: options.visitors ?? Math.max(1, Math.round(options.events / 10)),
    paths: options.paths,
    days: options.days,
    seed: 2,
  })) {
    raw.push(apiEvent(e, `h${i++}`));
    if (raw.length === 1000) await prepareBatch();
  }
  if (raw.length > 0) await prepareBatch();
  return { batches, prepareCpuMs };
}

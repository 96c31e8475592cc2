// Where the embedded engine's memory goes: loads a project's index from an analytics file and
// prints the bytes each structure holds (typed arrays' byte lengths, spare capacity included),
// then backfills a second project through `append` as the benchmark's HTTP phase does (keyed
// events, batches of 1,000, 30 days) and prints them again:
// `node --expose-gc bench/analytics/index-memory.ts --file DIR/analytics.sqlite [--project prj] [--backfill 2000000]`
// (e.g. on a copy of a `clipped-profile.ts` data dir). A diagnostic: it reads engine internals.
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { PreparedEvent } from '../../src/domain/analytics/store.ts';
import { CompactVisitorSet } from '../../src/integrations/analytics/embedded/compact-set.ts';
import type { DayIndex } from '../../src/integrations/analytics/embedded/day-index.ts';
import { EmbeddedAnalyticsStore } from '../../src/integrations/analytics/embedded/embedded-store.ts';
import type { KeySet } from '../../src/integrations/analytics/embedded/key-set.ts';
import type { ProjectIndex } from '../../src/integrations/analytics/embedded/project-index.ts';
import type { VisitorSet } from '../../src/integrations/analytics/embedded/visitor-set.ts';
import { DAY, generate, preparedEvent, START } from './dataset.ts';

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    project: { type: 'string', default: 'prj' },
    backfill: { type: 'string', default: '2000000' },
  },
});
const NOW = new Date(START + 40 * DAY);
const store = new EmbeddedAnalyticsStore({
  file: values.file ?? '',
  synchronous: 'normal',
  checkpointIntervalMs: 0,
  clock: () => NOW,
});
const query = (projectId: string) =>
  store.pages(projectId, {
    range: { from: START, to: START + 20 * DAY },
    measure: 'visitors',
    limit: 50,
    offset: 0,
    countAiCrawlersAsAi: false,
    verifiedOnly: false,
  });

// biome-ignore lint/suspicious/noExplicitAny: a diagnostic reading the engine's private parts
type Any = any;
const MB = (n: number) => (n / 1e6).toFixed(1);

function setBytes(set: VisitorSet | CompactVisitorSet | null | undefined): number {
  if (!set) return 0;
  if (set instanceof CompactVisitorSet) return set.byteLength;
  const dense = (set as Any).dense as Int32Array | null;
  return set.values.byteLength + (dense ? dense.byteLength : 0);
}

function dayBreakdown(day: DayIndex, into: Map<string, number>): void {
  const add = (key: string, n: number) => into.set(key, (into.get(key) ?? 0) + n);
  const p = day.packed;
  if (p) {
    add('packed values (u32)', p.values.byteLength);
    add('packed prev (u16)', p.prev.byteLength);
    add('packed offsets/views/paths', p.offsets.byteLength + p.views.byteLength + p.paths.byteLength);
    for (const sets of p.sets.values())
      for (const s of sets) add('page sets (crawler, verified)', setBytes(s));
  }
  for (const page of day.pages.values()) {
    for (const list of page.lists) {
      if (!list) continue;
      add('open lists', list.values.byteLength + list.prev.byteLength);
      add('open lists (used)', list.length * 6);
    }
    for (const s of page.sets) add('page sets (crawler, verified)', setBytes(s));
  }
  for (const s of day.categories) add('category sets', setBytes(s));
  for (const s of day.purposes) add('purpose sets', setBytes(s));
  for (const s of day.agents.values()) add('agent sets', setBytes(s));
  for (const s of day.hours) add('hour sets', setBytes(s));
}

function report(label: string): void {
  (globalThis as Any).gc?.();
  const opened = (store as Any).state;
  const rows = new Map<string, number>();
  for (const index of (opened.indexes.loaded as Map<number, ProjectIndex>).values()) {
    const days = new Map<string, number>();
    let open = 0;
    for (const day of index.days.values()) {
      dayBreakdown(day, days);
      if (!day.packed) open++;
    }
    for (const [k, v] of days) rows.set(`#${index.projectNo} ${k}`, v);
    rows.set(`#${index.projectNo} last-seen tables`, index.tableBytes);
    rows.set(`#${index.projectNo} open days`, open);
  }
  rows.set('visitor dictionary', ((opened.db.visitors as Any).table as Uint32Array).byteLength);
  let keys = 0;
  for (const set of (opened.keys as Any).sets.values()) keys += (set as KeySet).bytes;
  rows.set('event-key cache', keys);
  const flags = (store as Any).queries.flags;
  rows.set('query flags', flags.left.byteLength + flags.right.byteLength);
  const m = process.memoryUsage();
  process.stdout.write(
    `\n## ${label}: rss ${MB(m.rss)} MB, heap used ${MB(m.heapUsed)} of ${MB(m.heapTotal)}, array buffers ${MB(m.arrayBuffers)}, peak ${MB(process.resourceUsage().maxRSS * 1e3)} MB\n`,
  );
  let total = 0;
  for (const [k, v] of rows) {
    if (k.endsWith('open days')) {
      process.stdout.write(`  ${k}: ${v}\n`);
      continue;
    }
    if (!k.endsWith('(used)')) total += v;
    process.stdout.write(`  ${k}: ${MB(v)} MB\n`);
  }
  process.stdout.write(`  counted: ${MB(total)} MB\n`);
}

await query(values.project);
report(`project ${values.project} loaded`);

const backfill = Number(values.backfill);
if (backfill > 0) {
  // As the benchmark does: the second project's index is loaded first, so appends update it.
  await query('http');
  let batch: PreparedEvent[] = [];
  let i = 0;
  const inFlight: Array<Promise<unknown>> = [];
  for (const e of generate({ events: backfill, visitors: backfill / 10, paths: 5000, days: 30, seed: 2 })) {
    batch.push(preparedEvent(e, createHash('sha256').update(`h${i++}`).digest().toString('latin1')));
    if (batch.length === 1000) {
      // Eight batches in flight, as the benchmark's client sends them.
      inFlight.push(store.append('http', batch));
      batch = [];
      if (inFlight.length === 8) await Promise.all(inFlight.splice(0));
    }
  }
  inFlight.push(store.append('http', batch));
  await Promise.all(inFlight);
  report(`after backfilling ${backfill} events into a second project`);
  await query('http');
  report('after a query of the second project');
}
// The loaded project's first view builds its last-seen tables: how long that commit takes.
const one = {
  eventKey: null,
  timestamp: START + 29 * DAY,
  path: '/first',
  visitorKey: Buffer.alloc(16, 7),
  category: 'human',
  purpose: null,
  agent: 'x',
  classifierVersion: 1,
  userAgent: 'x',
  flags: 0,
  status: 200,
  referrer: null,
  verified: false,
} satisfies PreparedEvent;
const started = performance.now();
await store.append(values.project, [one]);
process.stdout.write(
  `\nfirst view for project ${values.project} after loading: committed in ${(performance.now() - started).toFixed(0)} ms (builds its last-seen tables)\n`,
);
report('after that view');
await store.close();

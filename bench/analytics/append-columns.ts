// The thread that stores views, alone: what `append` of event objects costs it against
// `appendColumns` of the same events as a preparation thread sends them (encodePreparedBatch),
// into an embedded store whose project index is loaded (as a server's is once queried). The
// objects are decoded from the columns beforehand, so decoding is not counted against them.
// `node bench/analytics/append-columns.ts [--events 1000000] [--rounds 3]`. Each round builds
// two fresh stores and appends every batch to each, the order alternating between rounds, and
// prints this thread's CPU per event for each; the summary gives the medians and their ratio.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { eventKey } from '../../src/domain/analytics/ingest.ts';
import {
  decodePreparedBatch,
  encodePreparedBatch,
  type PreparedBatch,
} from '../../src/domain/analytics/prepared-batch.ts';
import type { PreparedEvent } from '../../src/domain/analytics/store.ts';
import { EmbeddedAnalyticsStore } from '../../src/integrations/analytics/embedded/embedded-store.ts';
import { DAY, generate, preparedEvent, START } from './dataset.ts';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '1000000' }, rounds: { type: 'string', default: '3' } },
});
const EVENTS = Number(values.events);
const ROUNDS = Number(values.rounds);
const BATCH = 1000;

const batches: PreparedEvent[][] = [];
let batch: PreparedEvent[] = [];
let n = 0;
for (const e of generate({ events: EVENTS, visitors: EVENTS / 10, paths: 5000, days: 30, seed: 2 })) {
  batch.push(preparedEvent(e, eventKey('prj', `h${n++}`), e.category));
  if (batch.length === BATCH) {
    batches.push(batch);
    batch = [];
  }
}
if (batch.length > 0) batches.push(batch);
/** As the preparation thread posts them: each batch's columns, moved through a structured clone. */
function columnsOf(events: PreparedEvent[]): PreparedBatch {
  const { batch: encoded, transfer } = encodePreparedBatch(events, []);
  return structuredClone(encoded, { transfer });
}

async function round(form: 'objects' | 'columns'): Promise<{ cpu: number; wall: number; accepted: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dw-append-columns-'));
  const store = new EmbeddedAnalyticsStore({
    file: path.join(dir, 'analytics.sqlite'),
    checkpointIntervalMs: 0,
    clock: () => new Date(START + 40 * DAY),
  });
  try {
    // Load the project's index (it exists once it has a view), so every append updates it.
    await store.append('prj', [{ ...(batches[0] as PreparedEvent[])[0], eventKey: null } as PreparedEvent]);
    await store.pages('prj', {
      range: { from: START, to: START + DAY },
      measure: 'visitors',
      limit: 10,
      offset: 0,
      countAiCrawlersAsAi: false,
      verifiedOnly: false,
    });
    // Built before the clock starts, as that thread receives them: columns, or the objects
    // decoded from them (fresh strings and keys per batch, as a server decodes them).
    const inputs = batches.map((events) =>
      form === 'columns' ? columnsOf(events) : decodePreparedBatch(columnsOf(events)).prepared,
    );
    const before = process.threadCpuUsage();
    const wallBefore = performance.now();
    // Eight in flight, as the HTTP bench sends them: appends of one turn share a commit.
    let accepted = 0;
    for (let i = 0; i < inputs.length; i += 8) {
      const results = await Promise.all(
        inputs
          .slice(i, i + 8)
          .map((input) =>
            form === 'columns'
              ? store.appendColumns('prj', input as PreparedBatch)
              : store.append('prj', input as PreparedEvent[]),
          ),
      );
      for (const result of results) accepted += result.accepted;
    }
    const cpu = process.threadCpuUsage(before);
    const wall = performance.now() - wallBefore;
    return { cpu: (cpu.user + cpu.system) / EVENTS, wall: (wall * 1000) / EVENTS, accepted };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: Record<'objects' | 'columns', number[]> = { objects: [], columns: [] };
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? (['objects', 'columns'] as const) : (['columns', 'objects'] as const);
  for (const form of order) {
    const { cpu, wall, accepted } = await round(form);
    if (accepted !== EVENTS) throw new Error(`${form}: ${accepted} of ${EVENTS} events accepted`);
    results[form].push(cpu);
    console.log(`round ${r + 1}, ${form}: ${cpu.toFixed(2)} µs of CPU an event (${wall.toFixed(2)} µs wall)`);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const objects = median(results.objects);
const columns = median(results.columns);
console.log(
  `median: objects ${objects.toFixed(2)} µs, columns ${columns.toFixed(2)} µs an event (columns/objects ${(columns / objects).toFixed(2)})`,
);

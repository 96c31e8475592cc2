// What storing a view costs ClickHouse itself, whatever the store's design around it:
// `node bench/analytics/clickhouse-floor.ts [--events 200000] [--groups 1000,8000,50000]`.
//
// Prepares the data set with the real pipeline (as clickhouse-append.ts does), then inserts only
// the views, as the store's RowBinary `appends` rows of kind 0, into a store's schema whose
// first-visit materialized views are dropped: once with `views` alone, once with its event keys
// too (what an idempotent append cannot do without). Each variant and group size gets a database
// of its own on a ClickHouse server of this run; ClickHouse's CPU time (its process's, from /proc)
// is counted from the first insert until its background merges are done. No lookups, no
// first-visit rows: a lower bound on ClickHouse's share of any append path that stores the views
// and checks their ids, to hold against the ingestion goal's CPU budget per event.

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CATEGORY_CODES, PURPOSE_CODES } from '../../src/domain/analytics/categories.ts';
import type { PreparedEvent } from '../../src/domain/analytics/store.ts';
import { eventKeyBytes } from '../../src/integrations/analytics/clickhouse/append.ts';
import { APPENDS_COLUMNS, writeView } from '../../src/integrations/analytics/clickhouse/appends-rows.ts';
import { openClickHouseAnalyticsStore } from '../../src/integrations/analytics/clickhouse/clickhouse-store.ts';
import { connect } from '../../src/integrations/analytics/clickhouse/connection.ts';
import { RowBinaryWriter } from '../../src/integrations/analytics/clickhouse/row-binary.ts';
import { processLocks } from '../../src/storage/locks.ts';
import { startClickHouse } from '../../test/helpers/clickhouse-server.ts';
import { ownCpuMs, prepareViews } from './prepared-views.ts';
import { cpuMs } from './process-cpu.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '200000' },
    groups: { type: 'string', default: '1000,8000,50000' },
  },
});
const EVENTS = Number(values.events);
const GROUPS = values.groups.split(',').map(Number);
const DAY_MS = 86_400_000;
const log = (line: string) => process.stdout.write(`${line}\n`);

// 1. Prepare the views through the real pipeline, with event ids.
const { batches, prepareCpuMs: prepareMs } = await prepareViews({ events: EVENTS, paths: 5000, days: 30 });
const views = batches.flat();

/** The group's views as the store writes them: `appends` rows of kind 0, RowBinary. */
function encode(group: readonly PreparedEvent[]): Buffer {
  const out = new RowBinaryWriter();
  for (const e of group) {
    const day = Math.floor(e.timestamp / DAY_MS);
    const key = e.eventKey === null ? null : eventKeyBytes(e.eventKey);
    const purpose = e.purpose === null ? 0 : PURPOSE_CODES[e.purpose];
    writeView(out, 'prj_bench', e, day, key, e.path.toWellFormed(), CATEGORY_CODES[e.category], purpose);
  }
  return out.bytes();
}

// 2. Insert them, per variant and group size, into a database of its own.
const clickhouse = await startClickHouse();
const rows: string[] = [];
try {
  for (const keys of [false, true]) {
    for (const size of GROUPS) {
      const database = `floor_${keys ? 'keys' : 'views'}_${size}`;
      const store = await openClickHouseAnalyticsStore({
        url: clickhouse.url,
        database,
        locks: processLocks(),
      });
      await store.close();
      const connection = connect({ url: clickhouse.url, database });
      const drop = ['appends_pair_days', 'appends_counts', ...(keys ? [] : ['appends_keys'])];
      for (const view of drop) await connection.command(`DROP TABLE ${connection.db}.${view}`);
      let encodeMs = 0;
      const c0 = cpuMs(clickhouse.pid);
      const w0 = performance.now();
      for (let i = 0; i < views.length; i += size) {
        const t = ownCpuMs();
        const body = encode(views.slice(i, i + size));
        encodeMs += ownCpuMs() - t;
        await connection.insertBinary(`${connection.db}.appends (${APPENDS_COLUMNS})`, body);
      }
      const insertSeconds = (performance.now() - w0) / 1000;
      // Background merges are part of what an insert costs.
      for (;;) {
        const [row] = await connection.query<{ n: string }>(
          `SELECT count() AS n FROM system.merges WHERE database = '${database}'`,
        );
        if (Number(row?.n ?? 0) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const theirMs = cpuMs(clickhouse.pid) - c0;
      const [stored] = await connection.query<{ n: string }>(
        `SELECT count() AS n FROM ${connection.db}.views`,
      );
      if (Number(stored?.n) !== views.length) throw new Error(`stored ${stored?.n} of ${views.length}`);
      await connection.command(`DROP DATABASE ${connection.db}`);
      await connection.close();
      rows.push(
        `| ${keys ? 'views + event keys' : 'views'} | ${size.toLocaleString('en')} | ${((theirMs * 1000) / views.length).toFixed(1)} µs | ${((encodeMs * 1000) / views.length).toFixed(1)} µs | ${Math.round(views.length / insertSeconds).toLocaleString('en')} |`,
      );
    }
  }
} finally {
  await clickhouse.stop();
}

log(
  `# ClickHouse's floor: ${views.length.toLocaleString('en')} views; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
);
log(
  `prepare (validate, classify, identity), this process: ${((prepareMs * 1000) / views.length).toFixed(1)} µs CPU per view`,
);
log(
  '| tables written | views per insert | ClickHouse CPU per view (merges included) | encoding, this process | views/s (wall) |',
);
log('| --- | --- | --- | --- | --- |');
for (const row of rows) log(row);

// Profiles the PostgreSQL store's ingestion path without HTTP: appends (batches of 1,000, as
// `POST …/events` sends them, `--lanes` transactions at once) and folds, timed apart, with the
// CPU time of this process and of its PostgreSQL backends, and the time per statement:
// `node bench/analytics/pg-ingest-profile.ts [--events 1000000] [--fold-every 50000]`.
// Before/after: copy an older commit's src/integrations/analytics/postgres/ beside it (for
// example to src/integrations/analytics/postgres-base/, not committed) and pass `--code` its path.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { PreparedEvent } from '../../src/domain/analytics/store.ts';
import type { appendViews as AppendViews } from '../../src/integrations/analytics/postgres/append.ts';
import type { Dictionary as DictionaryClass } from '../../src/integrations/analytics/postgres/dictionaries.ts';
import type { foldPending as FoldPending } from '../../src/integrations/analytics/postgres/record-visits.ts';
import type { migrateAnalytics as MigrateAnalytics } from '../../src/integrations/analytics/postgres/schema.ts';
import { BENCH_POSTGRES_URL } from './backends/postgres.ts';
import { generate, preparedEvent } from './dataset.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    'fold-every': { type: 'string', default: '50000' },
    lanes: { type: 'string', default: '2' },
    keep: { type: 'boolean', default: false },
    // Another copy of src/integrations/analytics/postgres (an older commit's), to compare.
    code: { type: 'string', default: 'src/integrations/analytics/postgres' },
  },
});
const code = new URL(`../../${values.code}/`, import.meta.url);
const { appendViews } = (await import(new URL('append.ts', code).href)) as {
  appendViews: typeof AppendViews;
};
const { Dictionary } = (await import(new URL('dictionaries.ts', code).href)) as {
  Dictionary: typeof DictionaryClass;
};
const { foldPending } = (await import(new URL('record-visits.ts', code).href)) as {
  foldPending: typeof FoldPending;
};
const { migrateAnalytics } = (await import(new URL('schema.ts', code).href)) as {
  migrateAnalytics: typeof MigrateAnalytics;
};
/** appendViews before the pipelined writers took (pool, dictionaries, requests). */
const append = (requests: Parameters<typeof AppendViews>[3]) =>
  appendViews.length === 3
    ? (appendViews as unknown as (...a: unknown[]) => Promise<unknown>)(pool, dictionaries, requests)
    : appendViews(pool, writers, dictionaries, requests);
const EVENTS = Number(values.events);
const FOLD_EVERY = Number(values['fold-every']);
const LANES = Number(values.lanes);
const schema = `dw_prof_${process.pid}`;

// Time per statement (its first words), summed.
const spent = new Map<string, { n: number; ms: number }>();
const query = pg.Client.prototype.query as (...args: unknown[]) => Promise<unknown>;
pg.Client.prototype.query = function timed(this: pg.Client, ...args: unknown[]) {
  const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text);
  const name = text.replace(/\s+/g, ' ').trim().slice(0, 60);
  const started = performance.now();
  const done = () => {
    const s = spent.get(name) ?? { n: 0, ms: 0 };
    s.n++;
    s.ms += performance.now() - started;
    spent.set(name, s);
  };
  const result = query.apply(this, args) as Promise<unknown> | undefined;
  // Callback-style calls (the pool's own) return nothing.
  result?.then(done, done);
  return result;
} as never;

const pool = new pg.Pool({
  connectionString: BENCH_POSTGRES_URL,
  max: 8,
  // Connections stay for the whole run: the CPU time of a backend that exits is lost.
  idleTimeoutMillis: 0,
  options: `-c search_path=${schema} -c work_mem=32MB -c jit=off`,
  application_name: schema,
});
const writers = new pg.Pool({
  connectionString: BENCH_POSTGRES_URL,
  max: LANES,
  idleTimeoutMillis: 0,
  pipeline: true,
  options: `-c search_path=${schema}`,
  application_name: schema,
});
await migrateAnalytics(pool, schema);
const dictionaries = {
  paths: new Dictionary('analytics_paths'),
  agents: new Dictionary('analytics_agents'),
  userAgents: new Dictionary('analytics_user_agents'),
  referrers: new Dictionary('analytics_referrers'),
};
await pool.query(`insert into analytics_projects (project_id) values ('prj')`);

/** CPU seconds of this schema's PostgreSQL backends (those alive now). */
async function backendCpu(): Promise<number> {
  const pids = (
    await pool.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [
      schema,
    ])
  ).rows.map((r) => r.pid);
  let ticks = 0;
  for (const pid of pids) {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100;
}

function* batches(): Generator<PreparedEvent[]> {
  let batch: PreparedEvent[] = [];
  let i = 0;
  for (const e of generate({ events: EVENTS, visitors: EVENTS / 10, paths: 5000, days: 30, seed: 1 })) {
    const eventKey = createHash('sha256').update(`prj|e${i++}`).digest().toString('latin1');
    batch.push(preparedEvent(e, eventKey, e.category === 'human' ? 'browser' : 'agent'));
    if (batch.length === 1000) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

// Pre-build the batches so the generator's time is not counted.
const all = [...batches()];
let appendMs = 0;
let foldMs = 0;
let appendCpu = 0;
let foldCpu = 0;
let appendNodeCpu = 0;
let sinceFold = 0;
let next = 0;
while (next < all.length) {
  const round = all.slice(next, next + LANES * 8);
  next += round.length;
  let t = performance.now();
  let cpu = await backendCpu();
  let node = process.cpuUsage();
  // As the store's group commit does: 8 requests per transaction, LANES transactions at once.
  const groups: PreparedEvent[][][] = [];
  for (let i = 0; i < round.length; i += 8) groups.push(round.slice(i, i + 8));
  await Promise.all(groups.map((g) => append(g.map((events) => ({ project: 1, events })))));
  appendMs += performance.now() - t;
  appendCpu += (await backendCpu()) - cpu;
  node = process.cpuUsage(node);
  appendNodeCpu += (node.user + node.system) / 1e6;
  sinceFold += round.length * 1000;
  if (sinceFold >= FOLD_EVERY || next >= all.length) {
    sinceFold = 0;
    t = performance.now();
    cpu = await backendCpu();
    await foldPending(pool, 1, true);
    foldMs += performance.now() - t;
    foldCpu += (await backendCpu()) - cpu;
  }
}
const n = all.reduce((s, b) => s + b.length, 0);
const out = (line: string) => process.stdout.write(`${line}\n`);
out(
  `${values.code}: ${n} events, folds every ${FOLD_EVERY}, ${LANES} lanes; load ${readFileSync('/proc/loadavg', 'utf8').trim()}`,
);
out(
  `append: ${(appendMs / 1000).toFixed(1)} s wall = ${Math.round(n / (appendMs / 1000))} ev/s; PG CPU ${appendCpu.toFixed(1)} s, node CPU ${appendNodeCpu.toFixed(1)} s`,
);
out(
  `fold:   ${(foldMs / 1000).toFixed(1)} s wall = ${Math.round(n / (foldMs / 1000))} ev/s; PG CPU ${foldCpu.toFixed(1)} s`,
);
for (const [name, s] of [...spent].sort((a, b) => b[1].ms - a[1].ms).slice(0, 16)) {
  out(`${s.ms.toFixed(0).padStart(8)} ms ${String(s.n).padStart(6)}x  ${name}`);
}
const sizes = await pool.query(
  `select relname, pg_size_pretty(pg_total_relation_size(c.oid)) as size from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and relkind = 'r' order by pg_total_relation_size(c.oid) desc limit 6`,
  [schema],
);
out(sizes.rows.map((r) => `${r.relname} ${r.size}`).join(', '));
if (!values.keep) await pool.query(`drop schema ${schema} cascade`);
else out(`kept schema ${schema}`);
await Promise.all([pool.end(), writers.end()]);

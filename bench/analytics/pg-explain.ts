// Explains the PostgreSQL store's visitors export on a kept benchmark schema:
// `node bench/analytics/pg-explain.ts SCHEMA PROJECT_ID FROM_ISO TO_ISO` runs the export, then
// EXPLAIN (ANALYZE, BUFFERS) of its counting statement, as the store sends it.
import pg from 'pg';
import { openPostgresAnalyticsStore } from '../../src/integrations/analytics/postgres/postgres-store.ts';
import { BENCH_POSTGRES_URL } from './backends/postgres.ts';

const [schema, projectId, fromIso, toIso] = process.argv.slice(2) as [string, string, string, string];
let counting: { text: string; values: unknown[] } | null = null;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function capture(this: pg.Client, ...args: unknown[]) {
  if (typeof args[0] === 'string' && args[0].includes('analytics_visit_counts c where')) {
    counting = { text: args[0], values: args[1] as unknown[] };
  }
  return query.apply(this, args);
} as never;
const store = await openPostgresAnalyticsStore({ url: BENCH_POSTGRES_URL, schema });
const started = performance.now();
const report = await store.pages(projectId, {
  range: { from: Date.parse(fromIso), to: Date.parse(toIso) },
  measure: 'visitors',
  limit: 50,
  offset: 0,
  countAiCrawlersAsAi: false,
  verifiedOnly: false,
});
process.stdout.write(
  `export ${(performance.now() - started).toFixed(0)} ms, totals ${JSON.stringify(report.totals)}\n`,
);
await store.close();
const client = new pg.Client({
  connectionString: BENCH_POSTGRES_URL,
  options: `-c search_path=${schema} -c work_mem=32MB -c jit=off`,
});
await client.connect();
const c = counting as { text: string; values: unknown[] } | null;
if (c) {
  const plan = await client.query(`explain (analyze, buffers) ${c.text}`, c.values);
  for (const row of plan.rows) process.stdout.write(`${row['QUERY PLAN']}\n`);
}
await client.end();

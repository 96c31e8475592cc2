// The benchmark's PostgreSQL backend: views in a schema of their own on the local server,
// and the naive exact query (count(DISTINCT …) over the raw views) to compare against.
import pg from 'pg';
import type { AnalyticsStore } from '../../../src/domain/analytics/store.ts';
import { openPostgresAnalyticsStore } from '../../../src/integrations/analytics/postgres/postgres-store.ts';

export const BENCH_POSTGRES_URL =
  process.env.DOCWRIGHT_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function openPostgresBenchStore(schema: string): Promise<AnalyticsStore> {
  return openPostgresAnalyticsStore({ url: BENCH_POSTGRES_URL, schema });
}

export interface NaiveAnswer {
  totals: { human: number; ai: number; total: number };
  rows: Array<{ path: string; human: number; ai: number; total: number }>;
}

/** The 20-day visitors export as naive SQL over the raw views; p50 of `samples` runs. */
export async function naivePostgres(
  schema: string,
  projectId: string,
  from: number,
  to: number,
  samples: number,
): Promise<{ times: number[]; answer: NaiveAnswer }> {
  const client = new pg.Client({ connectionString: BENCH_POSTGRES_URL, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    const project = (
      await client.query('select id from analytics_projects where project_id = $1', [projectId])
    ).rows[0]?.id as number;
    const counted = `count(distinct v.visitor) filter (where v.category = 0)::int4 as human,
        count(distinct v.visitor) filter (where v.category = 1)::int4 as ai,
        count(distinct v.visitor)::int4 as total
      from analytics_views v join analytics_paths p on p.id = v.path
      where v.project = $1 and v.day >= $2 and v.day < $3 and v.category in (0, 1)`;
    const params = [project, Math.floor(from / 86_400_000), Math.floor(to / 86_400_000)];
    const times: number[] = [];
    let answer: NaiveAnswer = { totals: { human: 0, ai: 0, total: 0 }, rows: [] };
    for (let i = 0; i < samples; i++) {
      const started = performance.now();
      const totals = (await client.query(`select ${counted}`, params)).rows[0];
      const rows = (
        await client.query(
          `select p.value as path, ${counted} group by p.value order by total desc, p.value collate "C" limit 50`,
          params,
        )
      ).rows;
      times.push(performance.now() - started);
      answer = { totals, rows };
    }
    return { times, answer };
  } finally {
    await client.end();
  }
}

export async function dropPostgresBenchSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

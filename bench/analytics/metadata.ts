// What salts and settings in the main database cost per ingested batch: a settings read (one
// primary-key lookup, done for every batch and export), a cached salt (every batch) and a new
// period's salt (insert unless present, then read back; once per period per deployment) and a
// stored salt read by a process for the first time. Median and p95 per call, in ms, on SQLite and
// PostgreSQL, with the same stores the server uses.
//
// Usage: node bench/analytics/metadata.ts [--samples 2000] [--postgres postgres://…] [--backend sqlite|postgres|both]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { DatabaseSaltStore } from '../../src/domain/analytics/database-salts.ts';
import { DatabaseSettingsStore } from '../../src/domain/analytics/database-settings.ts';
import { DEFAULT_ANALYTICS_SETTINGS } from '../../src/domain/analytics/store.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { type DatabaseConfig, openStorage } from '../../src/storage/database.ts';
import { migrate } from '../../src/storage/migrate.ts';

const { values } = parseArgs({
  options: {
    samples: { type: 'string', default: '2000' },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    backend: { type: 'string', default: 'both' },
  },
});
const samples = Number(values.samples);

async function timed(fn: (i: number) => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < 50; i++) await fn(-1 - i); // warm up
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await fn(i);
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => Number((ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0).toFixed(4));
  return { p50: at(0.5), p95: at(0.95) };
}

async function run(name: string, config: DatabaseConfig, drop: () => Promise<void>): Promise<void> {
  const storage = openStorage(config);
  try {
    await migrate(storage, config);
    const settings = new DatabaseSettingsStore(storage, systemClock);
    const salts = new DatabaseSaltStore(storage, systemClock);
    await settings.saveSettings('prj', {
      ...DEFAULT_ANALYTICS_SETTINGS,
      allowedOrigins: ['https://docs.example.com'],
    });
    await salts.salt('never');
    const figures = {
      backend: name,
      samples,
      settingsReadMs: await timed(() => settings.settings('prj')),
      cachedSaltMs: await timed(() => salts.salt('never')),
      newSaltMs: await timed((i) => salts.salt(`bench-${i}`)),
      storedSaltFirstReadMs: await timed((i) =>
        new DatabaseSaltStore(storage, systemClock).salt(`bench-${i}`),
      ),
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    await storage.close();
    await drop();
  }
}

if (values.backend !== 'postgres') {
  const dir = mkdtempSync(path.join(tmpdir(), 'dw-bench-metadata-'));
  await run('sqlite', { kind: 'sqlite', file: path.join(dir, 'docwright.sqlite') }, async () =>
    rmSync(dir, { recursive: true, force: true }),
  );
}
if (values.backend !== 'sqlite') {
  const schema = `dw_bench_metadata_${process.pid}`;
  await run('postgres', { kind: 'postgres', url: values.postgres, schema }, async () => {
    const client = new pg.Client({ connectionString: values.postgres });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  });
}

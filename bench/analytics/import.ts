// Benchmark importer: the same importLog pipeline as `docwright analytics import`, in its own
// process (as the CLI runs), with the benchmark's salt rotation. Prints one JSON line.
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { importFileInParallel } from '../../src/cli/commands/analytics-import-parallel.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { SaltRotation } from '../../src/domain/analytics/identity.ts';
import { DEFAULT_ANALYTICS_OPTIONS } from '../../src/domain/analytics/options.ts';
import { BENCH_POSTGRES_URL } from './backends/postgres.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    project: { type: 'string' },
    file: { type: 'string' },
    rotation: { type: 'string' },
    'pg-schema': { type: 'string' },
  },
});
// The server's configuration (it migrated the main database, which holds salts and settings).
const config = loadConfig({ DOCWRIGHT_DATA_DIR: values['data-dir'] ?? '' });
const started = performance.now();
const pgSchema = values['pg-schema'];
const summary = await importFileInParallel({
  file: values.file ?? '',
  projectId: values.project ?? '',
  workers: availableParallelism(),
  // --backend postgres: the views go to the benchmark's PostgreSQL schema.
  backend: pgSchema
    ? { kind: 'postgres', url: BENCH_POSTGRES_URL, schema: pgSchema }
    : config.analytics.backend,
  database: config.database,
  settings: { ...DEFAULT_ANALYTICS_OPTIONS, saltRotation: (values.rotation ?? 'never') as SaltRotation },
  dataDir: config.dataDir,
});
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ ...summary, seconds, linesPerSecond: summary.lines / seconds })}\n`);

// Benchmark importer: the same importLog pipeline as `docwright analytics import`, in its own
// process (as the CLI runs), with the benchmark's salt rotation. Prints one JSON line.
import { createReadStream } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { openAnalytics } from '../../src/app/open-analytics.ts';
import { importFileInParallel } from '../../src/cli/commands/analytics-import-parallel.ts';
import type { SaltRotation } from '../../src/domain/analytics/identity.ts';
import { importLog } from '../../src/domain/analytics/log-import.ts';
import { DEFAULT_ANALYTICS_OPTIONS } from '../../src/domain/analytics/options.ts';
import { openPostgresBenchStore } from './backends/postgres.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    project: { type: 'string' },
    file: { type: 'string' },
    rotation: { type: 'string' },
    'pg-schema': { type: 'string' },
  },
});
const started = performance.now();
const settings = { ...DEFAULT_ANALYTICS_OPTIONS, saltRotation: (values.rotation ?? 'never') as SaltRotation };
const pgSchema = values['pg-schema'];
const summary = pgSchema
  ? await importIntoPostgres(pgSchema)
  : await importFileInParallel({
      file: values.file ?? '',
      projectId: values.project ?? '',
      workers: availableParallelism(),
      dataDir: values['data-dir'] ?? '',
      settings,
    });
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ ...summary, seconds, linesPerSecond: summary.lines / seconds })}\n`);

/** --backend postgres: one importLog pass into the PostgreSQL store (salts from the data dir). */
async function importIntoPostgres(schema: string) {
  const analytics = openAnalytics({
    dataDir: values['data-dir'] ?? '',
    clock: () => new Date(),
    logger: pino({ level: 'silent' }),
    settings,
    identityCacheLimit: 2_000_000,
    store: await openPostgresBenchStore(schema),
  });
  try {
    return await importLog({
      analytics,
      projectId: values.project ?? '',
      input: createReadStream(values.file ?? '', { encoding: 'utf8', highWaterMark: 1 << 20 }),
    });
  } finally {
    await analytics.close();
  }
}

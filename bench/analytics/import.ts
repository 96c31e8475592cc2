// Benchmark importer: the same importLog pipeline as `docwright analytics import`, in its own
// process (as the CLI runs), with the benchmark's salt rotation. Prints one JSON line.
import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import type { SaltRotation } from '../../src/domain/analytics/identity.ts';
import { importLog } from '../../src/domain/analytics/log-import.ts';
import { DEFAULT_ANALYTICS_OPTIONS, openAnalytics } from '../../src/domain/analytics/options.ts';
import { systemClock } from '../../src/domain/clock.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    project: { type: 'string' },
    file: { type: 'string' },
    rotation: { type: 'string' },
  },
});
const analytics = openAnalytics({
  dataDir: values['data-dir'] ?? '',
  clock: systemClock,
  logger: pino({ level: 'silent' }),
  settings: { ...DEFAULT_ANALYTICS_OPTIONS, saltRotation: (values.rotation ?? 'never') as SaltRotation },
});
const input = createReadStream(values.file ?? '', { highWaterMark: 1 << 20 });
input.setEncoding('utf8');
const started = performance.now();
const summary = await importLog({
  analytics,
  projectId: values.project ?? '',
  input: input as AsyncIterable<string>,
});
const seconds = (performance.now() - started) / 1000;
await analytics.close();
process.stdout.write(`${JSON.stringify({ ...summary, seconds, linesPerSecond: summary.lines / seconds })}\n`);

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { LogFormat } from '../../domain/analytics/log-formats.ts';
import { type ImportProgress, type ImportSummary, importLog } from '../../domain/analytics/log-import.ts';
import { withServices } from '../context.ts';
import { cliIo } from '../io.ts';
import { print, table } from '../output.ts';
import { importFileInParallel } from './analytics-import-parallel.ts';

/** `docwright analytics import --project ID [--format …] FILE|-` */
export async function analyticsImportCommand(
  file: string,
  options: {
    project: string;
    format?: LogFormat | undefined;
    fields?: string | undefined;
    workers?: number | undefined;
    json: boolean;
  },
): Promise<void> {
  // CloudFront real-time logs have no header: the columns as configured, e.g. "timestamp c-ip …".
  const fields = options.fields?.trim() ? options.fields.trim().split(/[\s,]+/) : null;
  const summary = await withServices(options, async (services) => {
    await services.projects.get(options.project); // a clear "not found" before reading anything
    const size = file === '-' ? null : (await stat(file)).size;
    const progress = !options.json && cliIo().stderr.isTTY ? new ProgressLine(size) : null;
    // A file big enough to be worth it is split across worker threads (one per core).
    const workers = options.workers ?? Math.min(4, availableParallelism());
    if (size !== null && size > 16 * 1024 * 1024 && workers > 1) {
      try {
        return await importFileInParallel({
          file,
          projectId: options.project,
          format: options.format,
          fields,
          workers,
          backend: services.analyticsBackend,
          database: services.config.database,
          settings: services.analyticsOptions,
          dataDir: services.config.dataDir,
          onProgress: (p) => progress?.update(p),
        });
      } finally {
        progress?.done();
      }
    }
    const input = file === '-' ? cliIo().stdin : createReadStream(file, { highWaterMark: 1 << 20 });
    input.setEncoding('utf8');
    try {
      return await importLog({
        analytics: services.analytics,
        projectId: options.project,
        input: input as AsyncIterable<string>,
        format: options.format,
        fields,
        onProgress: (p) => progress?.update(p),
      });
    } finally {
      progress?.done();
    }
  });
  print(options.json, summary, render);
}

function render(s: ImportSummary): string {
  const lines = [
    `Read ${s.lines.toLocaleString('en')} lines (${s.format} format): ${s.imported.toLocaleString('en')} views imported, ${s.duplicates.toLocaleString('en')} already imported, ${s.skipped.toLocaleString('en')} skipped.`,
  ];
  if (s.reasons.length > 0) {
    lines.push('Skipped lines by reason:');
    lines.push(
      table(
        ['LINES', 'REASON'],
        s.reasons.map((r) => [r.lines.toLocaleString('en'), r.reason]),
      ),
    );
  }
  const views = Object.entries(s.categories)
    .filter(([, n]) => n > 0)
    .map(([category, n]) => `${n.toLocaleString('en')} ${category}`);
  if (views.length > 0) lines.push(`Views by category: ${views.join(', ')}.`);
  for (const warning of s.warnings) lines.push(`Warning: ${warning}`);
  return lines.join('\n');
}

/** One self-overwriting line on stderr, at most five times a second. */
class ProgressLine {
  private readonly size: number | null;
  private readonly started = Date.now();
  private last = 0;
  constructor(size: number | null) {
    this.size = size;
  }

  update(p: ImportProgress): void {
    const now = Date.now();
    if (now - this.last < 200) return;
    this.last = now;
    const seconds = Math.max(0.001, (now - this.started) / 1000);
    const percent = this.size ? ` ${Math.min(100, (100 * p.bytes) / this.size).toFixed(1)}%` : '';
    cliIo().stderr.write(
      `\r\u001b[2K${percent} ${p.lines.toLocaleString('en')} lines, ${p.imported.toLocaleString('en')} imported, ${p.skipped.toLocaleString('en')} skipped, ${Math.round(p.lines / seconds).toLocaleString('en')} lines/s`,
    );
  }

  done(): void {
    cliIo().stderr.write('\r\u001b[2K');
  }
}

import type { AnalyticsService } from './analytics-service.ts';
import type { IncomingEvent } from './ingest.ts';
import { detectFormat, type LogFormat, parseLine } from './log-formats.ts';

export interface ImportProgress {
  lines: number;
  bytes: number;
  imported: number;
  duplicates: number;
  skipped: number;
}

export interface ImportSummary extends ImportProgress {
  format: LogFormat;
  /** Skipped lines by reason, most frequent first. */
  reasons: Array<{ reason: string; lines: number }>;
}

export interface ImportOptions {
  analytics: AnalyticsService;
  projectId: string;
  /** The log, as text chunks (a file or stdin stream with utf8 encoding). */
  input: AsyncIterable<string>;
  /** Detected from the first line when absent. */
  format?: LogFormat | undefined;
  /** Views per durable append (default 20,000). */
  batchSize?: number;
  onProgress?: (progress: ImportProgress) => void;
}

/**
 * Streams an access log into the ingestion pipeline. Each view's id is derived from the line
 * itself (the line, plus how many identical lines came before it within the same second), so
 * importing the same file again, or a log that overlaps one already imported, adds nothing.
 */
export async function importLog(options: ImportOptions): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? 20_000;
  const progress: ImportProgress = { lines: 0, bytes: 0, imported: 0, duplicates: 0, skipped: 0 };
  const reasons = new Map<string, number>();
  const skip = (reason: string, count = 1) => {
    reasons.set(reason, (reasons.get(reason) ?? 0) + count);
    progress.skipped += count;
  };
  let format = options.format;
  let batch: IncomingEvent[] = [];
  let lastTime = '';
  // The lines of the current second, and how often each came. A second rarely has many lines:
  // comparing against a short list is cheaper than hashing every (long) line into a map.
  let thisSecond: string[] = [];
  let counts: number[] = [];
  let seenThisSecond: Map<string, number> | null = null;
  const occurrence = (line: string): number => {
    if (seenThisSecond) {
      const n = seenThisSecond.get(line) ?? 0;
      seenThisSecond.set(line, n + 1);
      return n;
    }
    for (let i = 0; i < thisSecond.length; i++) {
      if (thisSecond[i] === line) {
        const n = counts[i] as number;
        counts[i] = n + 1;
        return n;
      }
    }
    if (thisSecond.length >= 32) {
      seenThisSecond = new Map(thisSecond.map((l, i) => [l, counts[i] as number]));
      seenThisSecond.set(line, 1);
      return 0;
    }
    thisSecond.push(line);
    counts.push(1);
    return 0;
  };

  const flush = async () => {
    if (batch.length === 0) return;
    const events = batch;
    batch = [];
    const result = await options.analytics.ingestParsed(options.projectId, events);
    progress.imported += result.accepted;
    progress.duplicates += result.duplicates;
    for (const rejection of result.rejected) skip(rejection.reason);
    options.onProgress?.(progress);
  };

  const handle = (line: string) => {
    progress.lines++;
    if (line.trim() === '') {
      skip('empty line');
      return;
    }
    if (format === undefined) format = detectFormat(line);
    const parsed = parseLine(format, line);
    if ('skip' in parsed) {
      skip(parsed.skip);
      return;
    }
    // Identical lines (same client, page and second) are separate views: number them.
    if (parsed.time !== lastTime) {
      lastTime = parsed.time;
      thisSecond = [];
      counts = [];
      seenThisSecond = null;
    }
    // The line is the id (hashed once into the event key): no second hash per line.
    parsed.event.id = `log:${occurrence(line)}:${line}`;
    batch.push(parsed.event);
  };

  let rest = '';
  for await (const chunk of options.input) {
    progress.bytes += Buffer.byteLength(chunk);
    const text = rest + chunk;
    let start = 0;
    for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
      handle(text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end));
      start = end + 1;
    }
    rest = text.slice(start);
    if (batch.length >= batchSize) await flush();
  }
  if (rest !== '') handle(rest.endsWith('\r') ? rest.slice(0, -1) : rest);
  await flush();
  options.onProgress?.(progress);

  return {
    ...progress,
    format: format ?? 'combined',
    reasons: [...reasons].map(([reason, lines]) => ({ reason, lines })).sort((a, b) => b.lines - a.lines),
  };
}

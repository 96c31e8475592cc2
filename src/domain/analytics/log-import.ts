import type { AnalyticsService } from './analytics-service.ts';
import { CATEGORIES, type Category } from './categories.ts';
import type { IncomingEvent } from './ingest.ts';
import { LineParser, type LineView, type LogFormat } from './log-formats.ts';
import { LineSplitter, TOO_LONG_REASON } from './log-lines.ts';

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
  /** The views the log makes (imported now or before), by category. */
  categories: Record<Category, number>;
  /** Of those, views whose line had no user agent. */
  withoutUserAgent: number;
  /** Of those, views whose line recorded the Accept header. */
  withAccept: number;
  /** What looks wrong with the result, and why (no human or no AI view). */
  warnings: string[];
}

export interface ImportOptions {
  analytics: AnalyticsService;
  projectId: string;
  /** The log, as text chunks (a file or stdin stream with utf8 encoding). */
  input: AsyncIterable<string>;
  /** Detected from the first line when absent. */
  format?: LogFormat | undefined;
  /** W3C columns when the log has no `#Fields:` line (CloudFront real-time logs). */
  fields?: readonly string[] | null | undefined;
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
  const categories = emptyCategories();
  let withoutUserAgent = 0;
  let withAccept = 0;
  const reasons = new Map<string, number>();
  const skip = (reason: string, count = 1) => {
    reasons.set(reason, (reasons.get(reason) ?? 0) + count);
    progress.skipped += count;
  };
  const parser = new LineParser(options.format, options.fields);
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
    for (const [category, n] of Object.entries(result.categories ?? {}))
      categories[category as Category] += n as number;
    for (const event of events) {
      // Rejected events (assets…) count too: the warnings are about what the log records.
      if (event.userAgent === '') withoutUserAgent++;
      if (event.accept !== undefined) withAccept++;
    }
    options.onProgress?.(progress);
  };

  const add = (view: LineView, id: string) => {
    // Identical lines (same client, page and second) are separate views: number them.
    if (view.time !== lastTime) {
      lastTime = view.time;
      thisSecond = [];
      counts = [];
      seenThisSecond = null;
    }
    // The line is the id (hashed once into the event key): no second hash per line.
    view.event.id = `log:${occurrence(id)}:${id}`;
    batch.push(view.event);
  };

  const handle = (line: string) => {
    progress.lines++;
    if (line.trim() === '') {
      skip('empty line');
      return;
    }
    const parsed = parser.parse(line);
    if ('skip' in parsed) skip(parsed.skip);
    else if ('items' in parsed) {
      // A JSON array of records: each is a view of its own, numbered in the line.
      parsed.items.forEach((item, index) => {
        if ('skip' in item) skip(item.skip);
        else add(item, `${index}:${line}`);
      });
    } else add(parsed, line);
  };

  // A line over 64 KiB is no log line: skipped unread, so memory stays flat whatever the file.
  const lines = new LineSplitter(handle, () => {
    progress.lines++;
    skip(TOO_LONG_REASON);
  });
  for await (const chunk of options.input) {
    progress.bytes += Buffer.byteLength(chunk);
    lines.push(chunk);
    if (batch.length >= batchSize) await flush();
  }
  lines.end();
  await flush();
  options.onProgress?.(progress);

  const summary = {
    ...progress,
    format: parser.format ?? 'combined',
    reasons: sortedReasons(reasons),
    categories,
    withoutUserAgent,
    withAccept,
  };
  return { ...summary, warnings: importWarnings(summary) };
}

export function emptyCategories(): Record<Category, number> {
  return Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Record<Category, number>;
}

export function sortedReasons(reasons: Map<string, number>): Array<{ reason: string; lines: number }> {
  return [...reasons].map(([reason, lines]) => ({ reason, lines })).sort((a, b) => b.lines - a.lines);
}

/**
 * Warnings for an import that yields no human view or no AI view, saying why when the log
 * shows it: a format without user agents (the common format) counts every view as a bot; a log
 * without the Accept header cannot show agents that borrow a browser's user agent.
 */
export function importWarnings(s: Omit<ImportSummary, 'warnings'>): string[] {
  const views = CATEGORIES.reduce((sum, c) => sum + s.categories[c], 0);
  if (views === 0) return [];
  const warnings: string[] = [];
  const noUserAgent =
    s.withoutUserAgent >= views
      ? s.format === 'common'
        ? 'the common log format records no user agent, so no view can be told apart: import a combined log (nginx’s default; Apache’s "%{User-agent}i") to count people and AI'
        : 'no line records a user agent, so no view can be told apart'
      : null;
  if (s.categories.human === 0) {
    warnings.push(
      `No human views: ${noUserAgent ?? `every one of the ${views.toLocaleString('en')} views came from a bot, crawler or AI agent (see the breakdown); check that the log is the docs site's and not a health check's`}.`,
    );
  }
  if (s.categories.ai === 0) {
    const crawlers = s.categories.ai_crawler;
    // AI crawlers are AI too, but counted apart unless the project says otherwise: say so
    // rather than claim that no AI agent is named.
    const named =
      crawlers > 0
        ? `only AI crawlers are named (${crawlers.toLocaleString('en')} ${crawlers === 1 ? 'view' : 'views'}: training and search crawlers such as GPTBot, which the exports count as AI only when the project’s countAiCrawlersAsAi setting is on), no AI assistant`
        : 'no AI agent is named in the user agents';
    const why =
      noUserAgent ??
      (s.withAccept === 0
        ? `${named} and no view fetched Markdown or llms.txt; this log does not record the Accept header, so agents that send a browser’s user agent and ask for text/markdown cannot be seen`
        : `${named} and no view fetched Markdown, asked for text/markdown or read llms.txt`);
    warnings.push(`${crawlers > 0 ? 'No AI assistant views' : 'No AI views'}: ${why}.`);
  }
  return warnings;
}

import { unescapeLogText } from './escapes.ts';
import { viewOfRecord } from './log-records.ts';
import { type LineView, toView } from './log-view.ts';

export const LOG_FORMATS = ['combined', 'common', 'w3c', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export type { LineView } from './log-view.ts';

/**
 * A parsed line: the view it records, why it is skipped (a short, countable reason), or, for a
 * line holding a JSON array of records (a Vercel `json` drain delivery), one result per record.
 */
export type ParsedLine = LineView | { skip: string } | { items: Array<LineView | { skip: string }> };

// nginx/Apache: %h %l %u [%t] "%r" %>s %b, then "%{Referer}i" "%{User-agent}i" in combined.
// A quoted field may hold \" escapes: `[^"\\]*(?:\\.[^"\\]*)*` reads it in runs (fast), not char by char.
const COMMON = /^(\S+) \S+ \S+ \[([^\]]+)\] "([^"\\]*(?:\\.[^"\\]*)*)" (\d{3}) (?:\d+|-)/;
const COMBINED =
  /^(\S+) \S+ \S+ \[([^\]]+)\] "([^"\\]*(?:\\.[^"\\]*)*)" (\d{3}) (?:\d+|-) "([^"\\]*(?:\\.[^"\\]*)*)" "([^"\\]*(?:\\.[^"\\]*)*)"/;
const CLF_TIME = /^(\d{2})\/([A-Za-z]{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/;
const MONTHS: Record<string, number> = {
  Jan: 0,
  Feb: 1,
  Mar: 2,
  Apr: 3,
  May: 4,
  Jun: 5,
  Jul: 6,
  Aug: 7,
  Sep: 8,
  Oct: 9,
  Nov: 10,
  Dec: 11,
};

/** Picks the format from the first line that is not a comment, when none is given. */
export function detectFormat(line: string): LogFormat {
  const start = line.trimStart();
  if (start.startsWith('{') || start.startsWith('[')) return 'json';
  if (start.startsWith('#Fields:') || start.startsWith('#Version:')) return 'w3c';
  return COMBINED.test(line) ? 'combined' : 'common';
}

/**
 * Parses the lines of one log, in order: it remembers what earlier lines declared (a W3C
 * `#Fields:` directive names the columns of the lines after it). Lines starting with `#` are
 * directives or comments, never views.
 */
export class LineParser {
  format: LogFormat | undefined;
  /** The W3C columns: from `#Fields:`, or given (CloudFront real-time logs have no header). */
  fields: string[] | null;

  constructor(format?: LogFormat, fields?: readonly string[] | null) {
    this.format = format;
    this.fields = fields ? [...fields] : null;
  }

  parse(line: string): ParsedLine {
    if (line.charCodeAt(0) === 35) {
      // `#Fields: date time …` (CloudFront standard logs, IIS): the columns from here on.
      if (line.startsWith('#Fields:')) {
        this.fields = line.slice('#Fields:'.length).trim().split(/\s+/);
        this.format ??= 'w3c';
      } else if (line.startsWith('#Version:')) this.format ??= 'w3c';
      return { skip: 'directive or comment (#)' };
    }
    this.format ??= detectFormat(line);
    switch (this.format) {
      case 'json':
        return parseJsonLine(line);
      case 'w3c':
        return this.parseW3c(line);
      default:
        return parseClfLine(this.format, line);
    }
  }

  private parseW3c(line: string): ParsedLine {
    const fields = this.fields;
    if (!fields) return { skip: 'no #Fields: line before it (give the columns with --fields)' };
    // CloudFront separates with tabs; IIS with spaces (and writes a space in a value as +).
    const values = line.includes('\t') ? line.split('\t') : line.split(' ');
    if (values.length !== fields.length) return { skip: `not ${fields.length} W3C fields` };
    const record: Record<string, string> = {};
    for (let i = 0; i < fields.length; i++) {
      const value = values[i] as string;
      if (value !== '-' && value !== '') record[fields[i] as string] = value;
    }
    return viewOfRecord(record, !line.includes('\t'));
  }
}

/** Parses one line of a format that needs no earlier lines (all but W3C without its header). */
export function parseLine(format: LogFormat, line: string): ParsedLine {
  return new LineParser(format).parse(line);
}

function parseClfLine(format: 'combined' | 'common', line: string): ParsedLine {
  const match = (format === 'combined' ? COMBINED : COMMON).exec(line);
  if (!match) return { skip: `not a ${format} log line` };
  const [, ip, time, request, status, referrer, userAgent] = match as unknown as string[];
  const timestamp = parseClfTime(time ?? '');
  if (timestamp === null) return { skip: 'bad timestamp' };
  return toView({
    time: time ?? '',
    timestamp,
    ip,
    request: request === undefined ? undefined : unescapeLogText(request),
    status: Number(status),
    referrer: referrer === undefined || referrer === '-' ? undefined : unescapeLogText(referrer),
    userAgent: userAgent === undefined || userAgent === '-' ? '' : unescapeLogText(userAgent),
  });
}

// Log lines come in time order, many to a second: parse each second's timestamp once.
let lastClfText = '';
let lastClfTime: number | null = null;

/** `10/Oct/2024:13:55:36 +0200` → epoch milliseconds. */
export function parseClfTime(value: string): number | null {
  if (value === lastClfText) return lastClfTime;
  lastClfText = value;
  lastClfTime = parseClfTimeUncached(value);
  return lastClfTime;
}

function parseClfTimeUncached(value: string): number | null {
  const m = CLF_TIME.exec(value);
  if (!m) return null;
  const month = MONTHS[m[2] as string];
  if (month === undefined) return null;
  const local = Date.UTC(Number(m[3]), month, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  const offset = (Number(m[8]) * 60 + Number(m[9])) * 60_000;
  return m[7] === '-' ? local + offset : local - offset;
}

function parseJsonLine(line: string): ParsedLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { skip: 'not valid JSON' };
  }
  // A Vercel `json` drain delivers a batch as one array.
  if (Array.isArray(parsed)) return { items: parsed.map((record) => viewOfRecord(record)) };
  return viewOfRecord(parsed);
}

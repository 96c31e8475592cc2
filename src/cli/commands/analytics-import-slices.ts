import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { LineParser, type LogFormat } from '../../domain/analytics/log-formats.ts';
import { LineSplitter, MAX_LINE_BYTES } from '../../domain/analytics/log-lines.ts';

// Read a window at a time; a line that ends past it is read on its own (at most 64 KiB).
const WINDOW_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * The format of a log file and, for W3C, its columns (`#Fields:`), from its first lines up
 * to the first line that is not a directive or comment, as the import reads them: a line
 * over 64 KiB is skipped unread, not taken for the first line.
 */
export async function readHead(
  file: string,
  format: LogFormat | undefined,
  fields: readonly string[] | null | undefined,
): Promise<{ format: LogFormat; fields: string[] | null }> {
  const head = new LineParser(format, fields);
  let found = false;
  const lines = new LineSplitter(
    (line) => {
      if (found) return;
      head.parse(line);
      found = line.trim() !== '' && !line.startsWith('#');
    },
    () => {},
  );
  const input = createReadStream(file, { encoding: 'utf8', highWaterMark: WINDOW_BYTES });
  try {
    for await (const chunk of input) {
      lines.push(chunk as string);
      if (found) break;
    }
  } finally {
    input.destroy();
  }
  return { format: head.format ?? 'combined', fields: head.fields };
}

/**
 * Where the slice that would start near `from` starts: the first line start at or after
 * `from` whose second differs from the line before it, so identical lines of one second stay
 * in one slice. Lines over 64 KiB have no second (the import skips them): they are passed
 * over without being read, as are lines that do not parse. `size` when there is none.
 */
export async function sliceBoundary(
  handle: FileHandle,
  from: number,
  size: number,
  parser: LineParser,
): Promise<number> {
  const file = new FileWindow(handle, size);
  let previousTime: string | null = null;
  // The first piece may be the tail of a line we landed inside of: never cut before it.
  for (let start = from; start < size; ) {
    const end = await file.newlineFrom(start);
    const time = end - start <= MAX_LINE_BYTES + 1 ? timeOf(parser, await file.text(start, end)) : null;
    if (time !== null && previousTime !== null && time !== previousTime) return start;
    previousTime = time ?? previousTime;
    start = end + 1;
  }
  return size;
}

function timeOf(parser: LineParser, raw: string): string | null {
  const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (Buffer.byteLength(line) > MAX_LINE_BYTES) return null;
  const parsed = parser.parse(line);
  if ('time' in parsed) return parsed.time;
  // A JSON array of records: its first record's second (the line is never split).
  if ('items' in parsed) for (const item of parsed.items) if ('time' in item) return item.time;
  return null;
}

/**
 * A file read a window at a time, in bytes: a newline byte is never inside a UTF-8
 * character, so line ends are found without decoding, and offsets are exact.
 */
class FileWindow {
  private readonly handle: FileHandle;
  private readonly size: number;
  private buffer: Buffer = Buffer.alloc(0);
  private bufferStart = 0;

  constructor(handle: FileHandle, size: number) {
    this.handle = handle;
    this.size = size;
  }

  /** The offset of the first newline at or after `position`, or the file's size. */
  async newlineFrom(position: number): Promise<number> {
    let at = position;
    while (at < this.size) {
      if (at < this.bufferStart || at >= this.bufferStart + this.buffer.length) {
        await this.load(at);
        if (this.buffer.length === 0) break; // the file is shorter than it was
      }
      const found = this.buffer.indexOf(NEWLINE, at - this.bufferStart);
      if (found !== -1) return this.bufferStart + found;
      at = this.bufferStart + this.buffer.length;
    }
    return this.size;
  }

  /** The text of bytes [start, end). */
  async text(start: number, end: number): Promise<string> {
    const inBuffer = start >= this.bufferStart && end <= this.bufferStart + this.buffer.length;
    const bytes = inBuffer
      ? this.buffer.subarray(start - this.bufferStart, end - this.bufferStart)
      : await read(this.handle, start, end - start);
    return bytes.toString('utf8');
  }

  private async load(position: number): Promise<void> {
    this.buffer = await read(this.handle, position, WINDOW_BYTES);
    this.bufferStart = position;
  }
}

async function read(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

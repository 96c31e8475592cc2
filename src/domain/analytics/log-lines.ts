/**
 * The longest line a log import reads, in UTF-8 bytes without its line end. No access-log
 * line comes near it (a request line and a user agent are a few hundred bytes; servers cap
 * their own lines at a few KiB); a longer one is not a log line, and keeping it would let one
 * file without a newline hold the whole file in memory.
 */
export const MAX_LINE_BYTES = 64 * 1024;

/** How the import's summary names a line over the limit (one of its skip reasons). */
export const TOO_LONG_REASON = 'line longer than 64 KiB';

/**
 * Splits a stream of text chunks into lines (`\n` or `\r\n`), holding at most one line and
 * one chunk: a line longer than `maxBytes` is reported once, through `onTooLong`, and its text
 * is dropped as it arrives, up to the next newline, never gathered.
 */
export class LineSplitter {
  private readonly onLine: (line: string) => void;
  private readonly onTooLong: () => void;
  private readonly maxBytes: number;
  // The start of a line whose end has not come yet (never over the limit).
  private rest = '';
  // Inside a line already over the limit: its text is skipped up to the next newline.
  private skipping = false;

  constructor(onLine: (line: string) => void, onTooLong: () => void, maxBytes = MAX_LINE_BYTES) {
    this.onLine = onLine;
    this.onTooLong = onTooLong;
    this.maxBytes = maxBytes;
  }

  push(chunk: string): void {
    let start = 0;
    let end = chunk.indexOf('\n');
    if (this.skipping) {
      if (end === -1) return;
      this.skipping = false;
      this.onTooLong();
      start = end + 1;
      end = chunk.indexOf('\n', start);
    } else if (this.rest !== '' && end !== -1) {
      const line = this.rest + chunk.slice(0, end);
      this.rest = '';
      this.emit(line);
      start = end + 1;
      end = chunk.indexOf('\n', start);
    }
    for (; end !== -1; end = chunk.indexOf('\n', start)) {
      this.emit(chunk.slice(start, end));
      start = end + 1;
    }
    const tail = start === 0 ? chunk : chunk.slice(start);
    this.rest = this.rest === '' ? tail : this.rest + tail;
    if (this.tooLong(this.rest, true)) {
      this.rest = '';
      this.skipping = true;
    }
  }

  /** The input has ended: its last line, if it had no newline. */
  end(): void {
    if (this.skipping) {
      this.skipping = false;
      this.onTooLong();
    } else if (this.rest !== '') {
      const line = this.rest;
      this.rest = '';
      this.emit(line);
    }
  }

  private emit(line: string): void {
    const text = line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
    if (this.tooLong(text, false)) this.onTooLong();
    else this.onLine(text);
  }

  // A UTF-16 unit is 1 to 3 UTF-8 bytes (a surrogate pair, two units, is 4): most lines are
  // decided by their length alone, without counting bytes. `mayEndInCr`: a `\r` at the end of
  // a line whose end has not come yet may be half of its `\r\n`, not part of the line.
  private tooLong(text: string, mayEndInCr: boolean): boolean {
    if (text.length * 3 <= this.maxBytes) return false;
    const cr = mayEndInCr && text.charCodeAt(text.length - 1) === 13 ? 1 : 0;
    if (text.length - cr > this.maxBytes) return true;
    return Buffer.byteLength(text) - cr > this.maxBytes;
  }
}

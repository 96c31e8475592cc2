import { write } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Pending log output kept while the reader is slow; beyond it, new lines are dropped. */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;
const RETRY_MS = 50;

/**
 * Where log lines go: a file descriptor (stderr), written asynchronously, one write at a time
 * so lines stay in order, with whatever arrived meanwhile sent in the next write.
 *
 * A log reader that goes away or stops reading must never stop the process. When the pipe is
 * broken (EPIPE) or any other write error occurs, logging stops for good; when the reader is
 * merely slow (EAGAIN), the write is retried and at most 8 MiB is kept. Nothing is written at
 * exit (pino's own destination flushes synchronously there and, on a broken pipe, retries
 * forever); call `drain` with a deadline before exiting instead.
 */
export class LogDestination {
  private readonly fd: number;
  private pending: string[] = [];
  private pendingBytes = 0;
  private writing = false;
  private broken = false;
  private dropped = 0;

  constructor(fd: number) {
    this.fd = fd;
  }

  write(line: string): void {
    if (this.broken) return;
    if (this.pendingBytes + line.length > MAX_PENDING_BYTES) {
      this.dropped++;
      return;
    }
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (!this.writing) this.writeNext();
  }

  /** Resolves once everything logged so far is written, or logging stopped, or at `deadlineMs`. */
  async drain(deadlineMs: number): Promise<void> {
    const until = Date.now() + deadlineMs;
    while ((this.writing || this.pending.length > 0) && !this.broken && Date.now() < until) {
      await sleep(10);
    }
  }

  private writeNext(): void {
    if (this.dropped > 0) {
      this.pending.push(
        `{"level":40,"msg":"${this.dropped} log lines dropped: the log reader is too slow"}\n`,
      );
      this.dropped = 0;
    }
    const chunk = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    this.writing = true;
    this.send(Buffer.from(chunk, 'utf8'));
  }

  private send(buffer: Buffer): void {
    write(this.fd, buffer, 0, buffer.length, null, (error, written) => {
      if (error) {
        if (error.code === 'EAGAIN') {
          setTimeout(() => this.send(buffer), RETRY_MS).unref();
          return;
        }
        this.stop();
        return;
      }
      if (written < buffer.length) {
        this.send(buffer.subarray(written));
        return;
      }
      this.writing = false;
      if (this.pending.length > 0) this.writeNext();
    });
  }

  private stop(): void {
    this.broken = true;
    this.writing = false;
    this.pending = [];
    this.pendingBytes = 0;
  }
}

import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * A Server-Sent Events response written on the raw response (the route hijacks it from
 * Fastify): `id:`, `event:` and `data:` lines per event, comment lines as heartbeats, and
 * writes that wait while the client reads slowly.
 */
export class EventStreamResponse {
  private readonly raw: ServerResponse;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(raw: ServerResponse) {
    this.raw = raw;
  }

  /** Sends the head, a `retry:` hint for reconnecting clients, and a comment every `heartbeatMs`. */
  open(headers: OutgoingHttpHeaders, options: { retryMs: number; heartbeatMs: number }): void {
    this.raw.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // nginx buffers responses unless told not to; a buffered stream is not live.
      'x-accel-buffering': 'no',
    });
    this.raw.write(`retry: ${options.retryMs}\n\n`);
    this.heartbeat = setInterval(() => {
      if (this.raw.writableNeedDrain) return;
      this.raw.write(': keep-alive\n\n');
    }, options.heartbeatMs);
  }

  get closed(): boolean {
    return this.raw.destroyed || this.raw.writableEnded;
  }

  /** One event; `data` may hold line breaks (each line becomes a `data:` line). */
  send(id: number, event: string, data: string): Promise<void> {
    const lines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`);
    return this.write(`id: ${id}\nevent: ${event}\n${lines.join('')}\n`);
  }

  end(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    if (!this.raw.writableEnded) this.raw.end();
  }

  private write(chunk: string): Promise<void> {
    if (this.closed || this.raw.write(chunk)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.raw.off('drain', done);
        this.raw.off('close', done);
        resolve();
      };
      this.raw.on('drain', done);
      this.raw.on('close', done);
    });
  }
}

/** One Server-Sent Event as a client sees it, or a comment line, or a retry hint. */
export type SseFrame =
  | { kind: 'event'; id: string | null; event: string; data: string }
  | { kind: 'comment'; text: string }
  | { kind: 'retry'; ms: number };

export interface ParsedEvent {
  id: number;
  event: string;
  data: unknown;
}

/**
 * Reads a `text/event-stream` response frame by frame, as the SSE specification parses it
 * (enough of it for these tests: id, event, data, retry and comments).
 */
export class SseReader {
  readonly frames: SseFrame[] = [];
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private ended = false;
  /** A read still in flight after a timeout; the next read takes it over, so no chunk is lost. */
  private pending: ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']> | null = null;

  constructor(response: Response) {
    if (!response.body) throw new Error('response has no body');
    this.reader = response.body.getReader();
  }

  /** Events only, their data parsed as JSON. */
  get events(): ParsedEvent[] {
    return this.frames.flatMap((f) =>
      f.kind === 'event' ? [{ id: Number(f.id), event: f.event, data: JSON.parse(f.data) as unknown }] : [],
    );
  }

  get done(): boolean {
    return this.ended;
  }

  /** Reads until `until` holds for the frames so far or the stream ends; throws after `timeoutMs`. */
  async readUntil(until: (frames: SseFrame[]) => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!until(this.frames)) {
      if (this.ended)
        throw new Error(`stream ended before the condition held: ${JSON.stringify(this.frames)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; frames so far: ${JSON.stringify(this.frames)}`);
      await this.readChunk(left);
    }
  }

  /** Reads until the server ends the stream. */
  async readToEnd(timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`stream did not end; frames so far: ${JSON.stringify(this.frames)}`);
      await this.readChunk(left);
    }
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }

  private async readChunk(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    this.pending ??= this.reader.read();
    const result = await Promise.race([this.pending, timeout]);
    clearTimeout(timer);
    if (result === 'timeout') return;
    this.pending = null;
    if (result.done) {
      this.ended = true;
      this.parse(true);
      return;
    }
    this.buffer += this.decoder.decode(result.value, { stream: true });
    this.parse(false);
  }

  private parse(final: boolean): void {
    const blocks = this.buffer.split(/\r\n\r\n|\n\n|\r\r/);
    this.buffer = final ? '' : (blocks.pop() ?? '');
    for (const block of blocks) {
      if (block === '') continue;
      let id: string | null = null;
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split(/\r\n|\n|\r/)) {
        if (line.startsWith(':')) {
          this.frames.push({ kind: 'comment', text: line.slice(1).trim() });
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
        else if (field === 'retry') this.frames.push({ kind: 'retry', ms: Number(value) });
      }
      if (data.length > 0) this.frames.push({ kind: 'event', id, event, data: data.join('\n') });
    }
  }
}

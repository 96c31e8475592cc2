// The bench server's memory by phase: the server (server.ts --memory-log FILE) samples its
// memory into FILE every 250 ms; the bench marks when each of its steps began, and at the end
// prints, per step, the highest RSS sampled and what it was made of, so a peak can be placed.
import { readFileSync } from 'node:fs';

export class MemoryPhases {
  private readonly phases: Array<{ name: string; at: number }> = [];
  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  /** Marks that the step `name` begins now. */
  begin(name: string): void {
    this.phases.push({ name, at: Date.now() });
  }

  /** The resident peak (bytes) in the log's last sample: the server writes one as it exits. */
  finalPeak(): number | null {
    try {
      const lines = readFileSync(this.file, 'utf8').trim().split('\n');
      const last = JSON.parse(lines[lines.length - 1] as string) as { hwm?: number };
      return last.hwm ?? null;
    } catch {
      return null;
    }
  }

  /** One line per step: its highest sampled RSS, the heap and buffers then, the peak by its end. */
  summary(): string[] {
    let samples: Array<Record<string, number>> = [];
    try {
      samples = readFileSync(this.file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
    } catch {
      return [];
    }
    const mb = (n: number | undefined) => Math.round((n ?? 0) / 1e6).toLocaleString('en');
    return this.phases.map(({ name, at }, i) => {
      const until = this.phases[i + 1]?.at ?? Number.POSITIVE_INFINITY;
      let top: Record<string, number> | undefined;
      for (const s of samples) {
        if (
          (s.t as number) >= at &&
          (s.t as number) < until &&
          (!top || (s.rss as number) > (top.rss as number))
        )
          top = s;
      }
      // The peak (VmHWM) reached by the step's end: the first sample after it says, since a long
      // synchronous step (the embedded engine's first query) gets no sample of its own.
      const after = samples.find((s) => (s.t as number) >= until) ?? samples[samples.length - 1];
      const spaces = (top?.spaces ?? {}) as unknown as Record<string, number>;
      const named = ['new_space', 'old_space', 'code_space', 'large_object_space']
        .filter((name) => spaces[name] !== undefined)
        .map((name) => `${name.replace('_space', '')} ${mb(spaces[name])}`)
        .join(', ');
      const atTop = top
        ? `RSS ${mb(top.rss)} MB at most (then heap ${mb(top.heapUsed)} of ${mb(top.heapTotal)} MB${named ? `: ${named}` : ''}; array buffers ${mb(top.arrayBuffers)} MB, external ${mb(top.external)} MB)`
        : 'no sample (the event loop was busy throughout)';
      return `  server memory in ${name}: ${atTop}; peak by its end ${mb(after?.hwm)} MB`;
    });
  }
}

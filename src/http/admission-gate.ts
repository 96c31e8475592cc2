declare module 'fastify' {
  interface FastifyInstance {
    /** The ingestion routes' gate (what it holds is the process's, for tests and diagnostics). */
    ingestGate: AdmissionGate;
  }
}

/**
 * At most `limit` requests at a time past the gate, the others waiting in arrival order.
 *
 * Ingestion requests wait here before their bodies are read: a waiting request holds a socket,
 * not its parsed events, so the process's memory stays bounded however many clients send at
 * once (their bodies wait in the kernel's buffers and TCP holds the senders back). The limit
 * is per process.
 */
export class AdmissionGate {
  readonly limit: number;
  #inside = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`limit must be a positive integer (got ${limit})`);
    this.limit = limit;
  }

  /** Requests past the gate now. */
  get inside(): number {
    return this.#inside;
  }

  /** Requests waiting to pass. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Resolves when the caller may pass, with the function that lets the next one in (calling
   * it again does nothing). When `signal` aborts first (the client went away), the caller
   * leaves the queue and resolves at once, holding no place.
   */
  enter(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.resolve(noop);
    if (this.#inside < this.limit && this.#waiting.length === 0) {
      this.#inside++;
      return Promise.resolve(this.#leaver());
    }
    return new Promise((resolve) => {
      const admit = () => {
        signal?.removeEventListener('abort', abandon);
        resolve(this.#leaver());
      };
      const abandon = () => {
        const at = this.#waiting.indexOf(admit);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(noop);
      };
      this.#waiting.push(admit);
      signal?.addEventListener('abort', abandon, { once: true });
    });
  }

  #leaver(): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.#waiting.shift();
      // The place passes straight to the next in line, so `inside` never dips below the limit
      // while requests wait.
      if (next) next();
      else this.#inside--;
    };
  }
}

function noop(): void {}

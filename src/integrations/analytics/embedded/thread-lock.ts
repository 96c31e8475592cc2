/**
 * A mutex for the threads of one process, over one shared word. Threads writing the same file
 * take it before BEGIN IMMEDIATE: a waiting thread wakes the moment the lock is released,
 * where SQLite's busy handler sleeps up to 100 ms between tries and leaves the file idle.
 */
export class ThreadLock {
  private readonly cell: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    this.cell = new Int32Array(buffer, 0, 1);
  }

  static buffer(): SharedArrayBuffer {
    return new SharedArrayBuffer(4);
  }

  acquire(): void {
    while (Atomics.compareExchange(this.cell, 0, 0, 1) !== 0) Atomics.wait(this.cell, 0, 1, 50);
  }

  release(): void {
    Atomics.store(this.cell, 0, 0);
    Atomics.notify(this.cell, 0, 1);
  }
}

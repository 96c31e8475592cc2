/**
 * A set of 64-bit idempotency keys (two u32 words, never both zero) in one open-addressing
 * table: 16 bytes per key at most, no per-key objects for the garbage collector.
 */
export class KeySet {
  private table: Uint32Array;
  private mask: number;
  size = 0;

  constructor(expected = 16) {
    let capacity = 32;
    while (capacity < expected * 2) capacity *= 2;
    this.table = new Uint32Array(capacity * 2);
    this.mask = capacity - 1;
  }

  has(lo: number, hi: number): boolean {
    let slot = this.slotOf(lo, hi);
    for (;;) {
      const a = this.table[slot * 2] as number;
      const b = this.table[slot * 2 + 1] as number;
      if (a === 0 && b === 0) return false;
      if (a === lo && b === hi) return true;
      slot = (slot + 1) & this.mask;
    }
  }

  /** Adds the key; false if it was there already. */
  add(lo: number, hi: number): boolean {
    if ((this.size + 1) * 2 > this.mask + 1) this.grow();
    let slot = this.slotOf(lo, hi);
    for (;;) {
      const a = this.table[slot * 2] as number;
      const b = this.table[slot * 2 + 1] as number;
      if (a === 0 && b === 0) {
        this.table[slot * 2] = lo;
        this.table[slot * 2 + 1] = hi;
        this.size++;
        return true;
      }
      if (a === lo && b === hi) return false;
      slot = (slot + 1) & this.mask;
    }
  }

  private slotOf(lo: number, hi: number): number {
    // The keys are hash output already: mixing the words is enough.
    return (Math.imul(lo ^ (hi >>> 7), 0x9e3779b1) >>> 0) & this.mask;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    this.mask = old.length - 1;
    this.size = 0;
    for (let i = 0; i < old.length; i += 2) {
      const lo = old[i] as number;
      const hi = old[i + 1] as number;
      if (lo !== 0 || hi !== 0) this.add(lo, hi);
    }
  }
}

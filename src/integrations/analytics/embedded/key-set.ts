/** Above this share of slots in use the table grows (linear probes stay short below it). */
const MAX_LOAD = 0.8;
/** The share of slots in use a table is sized, or grown, to. */
const TARGET_LOAD = 0.65;
const TWO_32 = 2 ** 32;

/**
 * A set of 64-bit idempotency keys (two u32 words, never both zero) in one open-addressing
 * table, no per-key objects for the garbage collector. Any capacity (the hash's high bits pick
 * the slot, multiply-shift), kept between 65 % and 80 % full: 10–12 bytes a key. A power-of-two
 * table at most half full took 16–32 (a day of 67k keys sat in 262,144 slots: 31 bytes a key).
 */
export class KeySet {
  private table: Uint32Array;
  private capacity: number;
  size = 0;

  constructor(expected = 0) {
    this.capacity = Math.max(8, Math.ceil(expected / TARGET_LOAD));
    this.table = new Uint32Array(this.capacity * 2);
  }

  has(lo: number, hi: number): boolean {
    const table = this.table;
    let slot = this.slotOf(lo, hi);
    for (;;) {
      const a = table[slot * 2] as number;
      const b = table[slot * 2 + 1] as number;
      if (a === 0 && b === 0) return false;
      if (a === lo && b === hi) return true;
      slot = slot + 1 === this.capacity ? 0 : slot + 1;
    }
  }

  /** Adds the key; false if it was there already. */
  add(lo: number, hi: number): boolean {
    if (this.size + 1 > this.capacity * MAX_LOAD) {
      this.resize(Math.max(Math.ceil((this.size + 1) / TARGET_LOAD), Math.ceil(this.capacity * 1.25)));
    }
    const table = this.table;
    let slot = this.slotOf(lo, hi);
    for (;;) {
      const a = table[slot * 2] as number;
      const b = table[slot * 2 + 1] as number;
      if (a === 0 && b === 0) {
        table[slot * 2] = lo;
        table[slot * 2 + 1] = hi;
        this.size++;
        return true;
      }
      if (a === lo && b === hi) return false;
      slot = slot + 1 === this.capacity ? 0 : slot + 1;
    }
  }

  /** The table's size in bytes. */
  get bytes(): number {
    return this.table.byteLength;
  }

  private slotOf(lo: number, hi: number): number {
    // The keys are hash output already: mixing the words is enough.
    return Math.floor(((Math.imul(lo ^ (hi >>> 7), 0x9e3779b1) >>> 0) * this.capacity) / TWO_32);
  }

  private resize(capacity: number): void {
    const old = this.table;
    this.capacity = capacity;
    this.table = new Uint32Array(capacity * 2);
    this.size = 0;
    for (let i = 0; i < old.length; i += 2) {
      const lo = old[i] as number;
      const hi = old[i + 1] as number;
      if (lo !== 0 || hi !== 0) this.add(lo, hi);
    }
  }
}

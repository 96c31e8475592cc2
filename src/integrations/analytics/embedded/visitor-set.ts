/**
 * A set of dense visitor numbers with its view count. One typed array holds a sorted,
 * de-duplicated prefix and an unsorted tail of recent additions; the tail is sorted and merged
 * in when the array fills, so an add costs O(log n) amortised and a member costs 4 bytes.
 * Counting a union does not need the tail merged: duplicates are harmless to a mark array.
 */
export class VisitorSet {
  values: Uint32Array;
  /** `values[0, sorted)` is sorted and unique. */
  sorted = 0;
  /** `values[sorted, length)` is the unsorted tail. */
  length = 0;
  views = 0;
  /** The members as a bitmap over visitor numbers, kept while the set does not change (see `bits`). */
  private dense: Int32Array | null = null;

  constructor(capacity = 4) {
    this.values = new Uint32Array(capacity);
  }

  static fromSorted(values: Uint32Array, views: number): VisitorSet {
    const set = new VisitorSet(0);
    set.values = values;
    set.sorted = values.length;
    set.length = values.length;
    set.views = views;
    return set;
  }

  add(visitor: number): void {
    this.views++;
    this.dense = null;
    // A visitor reading several pages in a row is the common repeat: skip it cheaply.
    if (this.length > 0 && this.values[this.length - 1] === visitor) return;
    if (this.length === this.values.length) this.makeRoom();
    this.values[this.length++] = visitor;
  }

  /**
   * The members as a bitmap of `words` 32-bit words (or fewer: the words past it are zero),
   * when that is no larger than the members themselves (one member per 32 numbers or more):
   * a union then ORs words instead of setting a bit per member. Built on first use and kept
   * while the set does not change (closed days' sets never do). Null for sparse sets.
   */
  bits(words: number): Int32Array | null {
    if (this.dense) return this.dense;
    this.compact();
    const length = this.length;
    if (length < words) return null;
    const values = this.values;
    const last = length > 0 ? (values[length - 1] as number) : 0;
    const dense = new Int32Array((last >>> 5) + 1);
    for (let i = 0; i < length; i++) {
      const v = values[i] as number;
      dense[v >>> 5] = (dense[v >>> 5] as number) | (1 << (v & 31));
    }
    this.dense = dense;
    return dense;
  }

  /** Exact number of distinct visitors. */
  size(): number {
    this.compact();
    return this.length;
  }

  /** Sorts and merges the tail; afterwards `values[0, length)` is sorted and unique. */
  compact(): void {
    if (this.sorted === this.length) return;
    const tail = this.values.subarray(this.sorted, this.length).sort();
    const tailLength = dedupeSorted(tail);
    if (this.sorted === 0) {
      this.length = this.sorted = tailLength;
      return;
    }
    const merged = new Uint32Array(Math.max(this.values.length, this.sorted + tailLength));
    let i = 0;
    let j = 0;
    let k = 0;
    const head = this.values;
    const headLength = this.sorted;
    while (i < headLength && j < tailLength) {
      const a = head[i] as number;
      const b = tail[j] as number;
      if (a < b) {
        merged[k++] = a;
        i++;
      } else if (b < a) {
        merged[k++] = b;
        j++;
      } else {
        merged[k++] = a;
        i++;
        j++;
      }
    }
    while (i < headLength) merged[k++] = head[i++] as number;
    while (j < tailLength) merged[k++] = tail[j++] as number;
    this.values = merged;
    this.sorted = this.length = k;
  }

  /** Compacts and drops spare capacity: for days that no longer change. */
  trim(): void {
    this.compact();
    if (this.values.length !== this.length) this.values = this.values.slice(0, this.length);
  }

  private makeRoom(): void {
    this.compact();
    // Keep at least half the array free so the next compaction is paid for by as many adds.
    if (this.length * 2 >= this.values.length) {
      const grown = new Uint32Array(Math.max(8, this.values.length * 2));
      grown.set(this.values.subarray(0, this.length));
      this.values = grown;
    }
  }
}

/** Removes adjacent duplicates in place; returns the new length. */
function dedupeSorted(values: Uint32Array): number {
  if (values.length === 0) return 0;
  let k = 1;
  for (let i = 1; i < values.length; i++) {
    const v = values[i] as number;
    if (v !== values[k - 1]) values[k++] = v;
  }
  return k;
}

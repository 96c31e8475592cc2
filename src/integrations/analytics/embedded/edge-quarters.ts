import { edgeCode } from './edge-code.ts';
import { LIST_SIDES } from './index-layout.ts';
import { type Chunk, ViewCursor } from './record.ts';

/** A quarter hour, in ms: a clipped edge on a quarter hour is read from a packed day's quarters. */
export const QUARTER_MS = 900_000;
/** No view on that side (a quarter is 0..95). */
const NONE = 255;

/**
 * The first and last quarter hour of the day (0..95) in which each entry of a packed day's
 * lists (PackedPages `values`, same positions) viewed its page on the list's side. They answer
 * a range clipped on a quarter hour without the day's raw views: the visitors of a page's side
 * in the day's last part from quarter q on are the entries with `last ≥ q`, and those of its
 * first part before q the entries with `first < q` (see countClipped).
 */
export interface Quarters {
  first: Uint8Array;
  last: Uint8Array;
}

/** The lists of a packed day, as far as `quartersOf` needs them. */
interface Lists {
  paths: Uint32Array;
  offsets: Uint32Array;
  values: Uint32Array;
}

/**
 * The quarters of a packed day's entries, from the day's views (its chunks up to the newest
 * view the day holds). Null if an entry has no view on its side in them: the lists and the
 * views disagree, and the day's edges are read from its views instead.
 */
export function quartersOf(lists: Lists, chunks: Iterable<Chunk>, universe: number): Quarters | null {
  const { paths, offsets, values } = lists;
  let maxPath = 0;
  for (let i = 0; i < paths.length; i++) if ((paths[i] as number) > maxPath) maxPath = paths[i] as number;
  const pageOf = new Int32Array(maxPath + 1).fill(-1);
  for (let i = 0; i < paths.length; i++) pageOf[paths[i] as number] = i;

  // The views on a list side, as (page, visitor, quarter, sides) columns.
  const held: Chunk[] = [];
  let capacity = 0;
  for (const chunk of chunks) {
    held.push(chunk);
    capacity += chunk.count;
  }
  const pages = new Int32Array(capacity);
  const visitors = new Uint32Array(capacity);
  const quarters = new Uint8Array(capacity);
  const codes = new Uint8Array(capacity);
  let n = 0;
  for (const chunk of held) {
    for (const v = new ViewCursor(chunk); v.next(); ) {
      const code = edgeCode(v.category, v.purposeCode);
      if (code === 0) continue;
      const path = v.path;
      const page = path <= maxPath ? (pageOf[path] as number) : -1;
      if (page < 0) return null;
      pages[n] = page;
      visitors[n] = v.visitor;
      quarters[n] = Math.floor(v.msOfDay / QUARTER_MS);
      codes[n] = code;
      n++;
    }
  }

  // Grouped by page (a counting sort): page i's views are order[starts[i] .. starts[i + 1]).
  const starts = new Uint32Array(paths.length + 1);
  for (let k = 0; k < n; k++) {
    const at = (pages[k] as number) + 1;
    starts[at] = (starts[at] as number) + 1;
  }
  for (let i = 1; i < starts.length; i++) starts[i] = (starts[i] as number) + (starts[i - 1] as number);
  const next = starts.slice(0, paths.length);
  const order = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    const page = pages[k] as number;
    order[next[page] as number] = k;
    next[page] = (next[page] as number) + 1;
  }

  const out: Quarters = { first: new Uint8Array(values.length), last: new Uint8Array(values.length) };
  // Per visitor, the first and last quarter seen so far on the page and side being done.
  const first = new Uint8Array(universe).fill(NONE);
  const last = new Uint8Array(universe);
  for (let page = 0; page < paths.length; page++) {
    const from = starts[page] as number;
    const to = starts[page + 1] as number;
    for (let side = 0; side < LIST_SIDES; side++) {
      const start = offsets[page * LIST_SIDES + side] as number;
      const end = offsets[page * LIST_SIDES + side + 1] as number;
      if (start === end) continue;
      const bit = 1 << side;
      for (let k = from; k < to; k++) {
        const view = order[k] as number;
        if (((codes[view] as number) & bit) === 0) continue;
        const visitor = visitors[view] as number;
        const quarter = quarters[view] as number;
        if (quarter < (first[visitor] as number)) first[visitor] = quarter;
        if (quarter > (last[visitor] as number)) last[visitor] = quarter;
      }
      let complete = true;
      for (let j = start; j < end; j++) {
        const visitor = values[j] as number;
        if (first[visitor] === NONE) complete = false;
        out.first[j] = first[visitor] as number;
        out.last[j] = last[visitor] as number;
      }
      for (let k = from; k < to; k++) {
        const visitor = visitors[order[k] as number] as number;
        first[visitor] = NONE;
        last[visitor] = 0;
      }
      if (!complete) return null;
    }
  }
  return out;
}

/**
 * Carries a packed day's quarters through a re-sort of `values[start, end)` (one entry per
 * visitor): `save` before the sort, `restore` after it, through a scratch indexed by visitor
 * number. Set `quarters` to the day's before each sort (null: nothing to carry).
 */
export class QuarterCarrier {
  quarters: Quarters | null = null;
  private readonly byVisitor: Uint16Array;

  constructor(universe: number) {
    this.byVisitor = new Uint16Array(universe);
  }

  save(values: Uint32Array, start: number, end: number): void {
    if (!this.quarters) return;
    const { first, last } = this.quarters;
    for (let j = start; j < end; j++)
      this.byVisitor[values[j] as number] = (first[j] as number) | ((last[j] as number) << 8);
  }

  restore(values: Uint32Array, start: number, end: number): void {
    if (!this.quarters) return;
    const { first, last } = this.quarters;
    for (let j = start; j < end; j++) {
      const both = this.byVisitor[values[j] as number] as number;
      first[j] = both & 0xff;
      last[j] = both >>> 8;
    }
  }
}

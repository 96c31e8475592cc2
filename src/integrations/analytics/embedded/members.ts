/**
 * Visitor numbers (repeats allowed) with a view count, as the unions in counting.ts take them: a
 * VisitorSet, a PrevList, an edge's visitors, or a compact set's bitmap (compact-set.ts).
 */
export interface Members {
  values: Uint32Array;
  length: number;
  views: number;
  /**
   * The members as a bitmap, if the set keeps one for a union over `words` words
   * (VisitorSet.bits). A set may give its members only this way (CompactVisitorSet.members,
   * `length` 0, no `values`), so a union must use it when there is one.
   */
  bits?(words: number): Int32Array | null;
  /** The visitor number / 32 of the bitmap's first word (0 when absent). */
  firstWord?: number;
  /**
   * The members as LEB128 gaps (CompactVisitorSet), `length` of them, `values` then empty: a
   * union reads them in place (markGaps) rather than expanding them.
   */
  gaps?: Uint8Array;
}

/** Bounds on what one tool call reads, writes and returns. */
export interface ToolLimits {
  /** Longest tool result, in characters; longer results are cut with a note saying so. */
  maxOutputChars: number;
  /** Largest file read_file reads, search searches or write_file/edit_file writes. */
  maxFileBytes: number;
  /** Most matching lines search returns. */
  maxSearchMatches: number;
  /** Most paths list_files returns. */
  maxListedFiles?: number;
  /** How long one search may run before it is stopped (guards against runaway regular expressions). */
  searchTimeoutMs?: number;
}

export type ResolvedToolLimits = Required<ToolLimits>;

export const DEFAULT_TOOL_LIMITS: ResolvedToolLimits = {
  maxOutputChars: 20_000,
  maxFileBytes: 1_000_000,
  maxSearchMatches: 100,
  maxListedFiles: 1_000,
  searchTimeoutMs: 10_000,
};

export function resolveToolLimits(limits: Partial<ToolLimits> = {}): ResolvedToolLimits {
  const resolved = { ...DEFAULT_TOOL_LIMITS };
  for (const key of Object.keys(DEFAULT_TOOL_LIMITS) as (keyof ResolvedToolLimits)[]) {
    const value = limits[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value <= 0)
      throw new Error(`Tool limit ${key} must be a positive integer`);
    resolved[key] = value;
  }
  return resolved;
}

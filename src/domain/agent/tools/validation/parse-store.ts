import type { ParsedPage } from './markdown.ts';

/**
 * Where parses outlive the process: a page's parse by its content (`<blob>.<format>`), read
 * back after a restart instead of parsing the site again. Best effort: a store that fails
 * answers undefined and drops writes; validation parses what it does not find.
 */
export interface ParseStore {
  get(key: string): Promise<ParsedPage | undefined>;
  put(key: string, parsed: ParsedPage): Promise<void>;
}

/**
 * What a stored parse holds, and how: a store keeps parses of one format only. Bumped whenever
 * parsePage finds something new or differently (a new field of ParsedPage, a rule, a fix).
 */
export const PARSE_FORMAT = 'parse-v2';

let store: ParseStore | null = null;

/** The process's store (set once at start by the app); null keeps parses in memory only. */
export function setParseStore(next: ParseStore | null): void {
  store = next;
}

export function parseStore(): ParseStore | null {
  return store;
}

/** Whether `value` has the shape of a ParsedPage (a stored file may be truncated or foreign). */
export function isParsedPage(value: unknown): value is ParsedPage {
  const page = value as Partial<ParsedPage> | null;
  return (
    typeof page === 'object' &&
    page !== null &&
    Array.isArray(page.problems) &&
    Array.isArray(page.references) &&
    Array.isArray(page.includes) &&
    typeof page.route === 'object' &&
    page.route !== null
  );
}

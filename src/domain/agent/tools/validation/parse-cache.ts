import { type ParsedPage, parsePage } from './markdown.ts';

// Parsing is most of validation's cost (about 0.5 ms a page). Parses are kept by content (the
// page's git blob id), so the same page parses once per process: across the validate tool's
// runs in a turn, the check before committing, the base commit it is compared with, and the
// project's next jobs in other working copies.
const LIMIT = 50_000;
const parses = new Map<string, ParsedPage>();

export function cachedParse(blob: string, format: 'md' | 'mdx'): ParsedPage | undefined {
  const key = `${format}:${blob}`;
  const parsed = parses.get(key);
  if (parsed !== undefined) {
    // Map order doubles as recency.
    parses.delete(key);
    parses.set(key, parsed);
  }
  return parsed;
}

export function parseAndCache(blob: string, format: 'md' | 'mdx', text: string): ParsedPage {
  const parsed = parsePage(text, format);
  parses.set(`${format}:${blob}`, parsed);
  if (parses.size > LIMIT) {
    const oldest = parses.keys().next().value;
    if (oldest !== undefined) parses.delete(oldest);
  }
  return parsed;
}

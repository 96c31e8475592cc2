import { setImmediate as nextTurn } from 'node:timers/promises';
import { type ParsedPage, parsePage } from './markdown.ts';
import { parseStore } from './parse-store.ts';

// Parsing is nearly all of validation's cost (micromark reads about 2.5 MB of MDX a second once
// warm, half that while the process warms up). Parses are kept by content (the page's git blob
// id), so the same page parses once per process: across the validate tool's runs in a turn,
// the check before committing, the base commit it is compared with, and the project's next
// jobs in other working copies. With a parse store (parse-store.ts), once across restarts too.
const LIMIT = 50_000;
const parses = new Map<string, ParsedPage>();
// Parses under way, so that two validations at once (a working copy and its base) share them.
const pending = new Map<string, Promise<ParsedPage>>();
// A site's parse takes seconds: it gives way to the rest of the process this often.
const SLICE_MS = 25;
const STORE_CONCURRENCY = 64;
const writes = new Set<Promise<void>>();

/** A page's content, by its git blob id, and how it is read. */
export interface PageContent {
  blob: string;
  format: 'md' | 'mdx';
}

const memoryKey = (page: PageContent) => `${page.format}:${page.blob}`;
const storeKey = (page: PageContent) => `${page.blob}.${page.format}`;

/** The parses already known for these pages, in memory or in the store; undefined for the others. */
export async function knownParses(pages: readonly PageContent[]): Promise<(ParsedPage | undefined)[]> {
  const found = pages.map((page) => fromMemory(page));
  const missing = pages.filter((_, i) => found[i] === undefined);
  const stored = await fromStore(missing);
  for (const [i, page] of pages.entries()) {
    const parsed = found[i] ?? stored.get(storeKey(page));
    if (parsed !== undefined && found[i] === undefined) remember(page, parsed);
    found[i] = parsed;
  }
  return found;
}

/**
 * Each page's parse: from memory, from a validation running at the same time, from the parse
 * store (kept by an earlier process), or parsed now, in slices of SLICE_MS between which the
 * server answers its other requests. What was parsed now goes to the store, in the background.
 */
export async function parseAndCache(
  pages: readonly (PageContent & { text: string })[],
): Promise<ParsedPage[]> {
  const fresh: (PageContent & { text: string })[] = [];
  const settles = new Map<string, { resolve(parsed: ParsedPage): void; reject(error: unknown): void }>();
  const waits = pages.map((page) => {
    const key = memoryKey(page);
    const known = fromMemory(page) ?? pending.get(key);
    if (known !== undefined) return known;
    fresh.push(page);
    const promise = new Promise<ParsedPage>((resolve, reject) => settles.set(key, { resolve, reject }));
    pending.set(key, promise);
    return promise;
  });
  if (fresh.length > 0) {
    try {
      const stored = await fromStore(fresh);
      const parsedNow: [PageContent, ParsedPage][] = [];
      let sliceStart = performance.now();
      for (const page of fresh) {
        let parsed = stored.get(storeKey(page));
        if (parsed === undefined) {
          parsed = parsePage(page.text, page.format);
          parsedNow.push([page, parsed]);
        }
        remember(page, parsed);
        settles.get(memoryKey(page))?.resolve(parsed);
        if (performance.now() - sliceStart > SLICE_MS) {
          await nextTurn();
          sliceStart = performance.now();
        }
      }
      const writing = toStore(parsedNow);
      writes.add(writing);
      void writing.finally(() => writes.delete(writing));
    } catch (error) {
      for (const settle of settles.values()) settle.reject(error);
    } finally {
      for (const page of fresh) pending.delete(memoryKey(page));
    }
  }
  return Promise.all(waits);
}

/** Resolves once the parses handed to the store so far are written (a process about to exit waits). */
export async function storeWritten(): Promise<void> {
  await Promise.all([...writes]);
}

/** Forgets every parse held in memory, as a new process would start (for tests and benchmarks). */
export function forgetParses(): void {
  parses.clear();
}

function fromMemory(page: PageContent): ParsedPage | undefined {
  const key = memoryKey(page);
  const parsed = parses.get(key);
  if (parsed !== undefined) {
    // Map order doubles as recency.
    parses.delete(key);
    parses.set(key, parsed);
  }
  return parsed;
}

function remember(page: PageContent, parsed: ParsedPage): void {
  parses.set(memoryKey(page), parsed);
  if (parses.size > LIMIT) {
    const oldest = parses.keys().next().value;
    if (oldest !== undefined) parses.delete(oldest);
  }
}

/** The parses the store kept for these pages, by store key, read a few dozen at a time. */
async function fromStore(pages: readonly PageContent[]): Promise<Map<string, ParsedPage>> {
  const store = parseStore();
  const found = new Map<string, ParsedPage>();
  if (store === null) return found;
  for (let i = 0; i < pages.length; i += STORE_CONCURRENCY) {
    const keys = pages.slice(i, i + STORE_CONCURRENCY).map(storeKey);
    const stored = await Promise.all(keys.map((key) => store.get(key).catch(() => undefined)));
    for (const [n, parsed] of stored.entries())
      if (parsed !== undefined) found.set(keys[n] as string, parsed);
  }
  return found;
}

async function toStore(parsed: readonly [PageContent, ParsedPage][]): Promise<void> {
  const store = parseStore();
  if (store === null) return;
  for (let i = 0; i < parsed.length; i += STORE_CONCURRENCY) {
    const batch = parsed.slice(i, i + STORE_CONCURRENCY);
    await Promise.all(batch.map(([page, value]) => store.put(storeKey(page), value).catch(() => {})));
  }
}

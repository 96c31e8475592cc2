import { isIP } from 'node:net';
import manifest from './agents/crawler-ranges/sources.json' with { type: 'json' };
import type { CrawlerRangeSet } from './crawler-ranges.ts';

/**
 * One list of crawler IP ranges an operator publishes, as the manifest
 * (agents/crawler-ranges/sources.json) describes it: where it is published, which agents of the
 * agent list it covers, and where the copy shipped with Docwright came from.
 */
export interface CrawlerRangeSource {
  /** The file name, shipped beside the manifest; `update-lists` stores refreshed copies under it. */
  file: string;
  operator: string;
  /** Agent names as in the agent list; null: every agent of the operator. */
  agents: string[] | null;
  /** Where the operator publishes it (HTTPS). */
  url: string;
  /** `prefixes`: `{ creationTime?, prefixes: [{ ipv4Prefix } | { ipv6Prefix }] }` (Google's shape). */
  shape: 'prefixes';
  /** Where the shipped copy was taken from; null when none ships (`update-lists` fetches it). */
  copy: { retrieved: string; from: string; commit: string; creationTime: string | null } | null;
  note?: string;
}

/** The folder of the copies shipped with Docwright (beside the manifest). */
export const SHIPPED_CRAWLER_RANGES = new URL('./agents/crawler-ranges/', import.meta.url);

/** Every published list Docwright knows of (agents/crawler-ranges/sources.json). */
export const CRAWLER_RANGE_SOURCES: readonly CrawlerRangeSource[] = parseSourcesManifest(manifest);

/** A published list, read: its creation time (when it says) and its prefixes as CIDRs. */
export interface PublishedRanges {
  creationTime: string | null;
  prefixes: string[];
}

/** Rejects anything but the published shape, naming the file and what is wrong. */
export function parsePublishedRanges(text: string, file: string): PublishedRanges {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not JSON (${(error as Error).message})`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new Error(`${file}: expected an object with "prefixes"`);
  }
  const { creationTime, prefixes } = doc as { creationTime?: unknown; prefixes?: unknown };
  if (creationTime !== undefined && typeof creationTime !== 'string') {
    throw new Error(`${file}: "creationTime" must be a string`);
  }
  if (!Array.isArray(prefixes)) throw new Error(`${file}: "prefixes" must be an array`);
  const cidrs = prefixes.map((entry, index) => prefixOf(entry, `${file}: prefixes[${index}]`));
  return { creationTime: creationTime ?? null, prefixes: cidrs };
}

function prefixOf(entry: unknown, where: string): string {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new Error(`${where} must be an object with ipv4Prefix or ipv6Prefix`);
  }
  const keys = Object.keys(entry);
  const key = keys.length === 1 ? keys[0] : undefined;
  if (key !== 'ipv4Prefix' && key !== 'ipv6Prefix') {
    throw new Error(
      `${where} must have exactly one of ipv4Prefix, ipv6Prefix (has ${keys.join(', ') || 'none'})`,
    );
  }
  const value = (entry as Record<string, unknown>)[key];
  const family = key === 'ipv4Prefix' ? 4 : 6;
  const match = typeof value === 'string' ? /^([^/]+)\/(\d{1,3})$/.exec(value) : null;
  if (!match || isIP(match[1] ?? '') !== family || Number(match[2]) > (family === 4 ? 32 : 128)) {
    throw new Error(`${where}: ${key} ${JSON.stringify(value)} is not an IPv${family} prefix`);
  }
  return value as string;
}

/** The manifest, checked: a mistake in it is a packaging error, named here. */
export function parseSourcesManifest(doc: unknown): CrawlerRangeSource[] {
  if (!Array.isArray(doc)) throw new Error('crawler range sources: expected an array');
  const files = new Set<string>();
  return doc.map((raw: CrawlerRangeSource, index) => {
    const where = `crawler range sources[${index}]`;
    if (
      typeof raw?.file !== 'string' ||
      !/^[a-z0-9][a-z0-9.-]*\.json$/.test(raw.file) ||
      files.has(raw.file)
    ) {
      throw new Error(`${where}: "file" must be a unique lower-case .json name`);
    }
    files.add(raw.file);
    if (typeof raw.operator !== 'string' || raw.operator === '')
      throw new Error(`${where}: "operator" is missing`);
    if (
      raw.agents !== null &&
      !(Array.isArray(raw.agents) && raw.agents.every((a) => typeof a === 'string'))
    ) {
      throw new Error(`${where}: "agents" must be null or a list of agent names`);
    }
    if (typeof raw.url !== 'string' || !raw.url.startsWith('https://')) {
      throw new Error(`${where}: "url" must be an https:// URL`);
    }
    if (raw.shape !== 'prefixes') throw new Error(`${where}: "shape" must be "prefixes"`);
    const copy = raw.copy as unknown;
    if (
      copy !== null &&
      (typeof copy !== 'object' || typeof (copy as { from?: unknown }).from !== 'string')
    ) {
      throw new Error(`${where}: "copy" must be null or say where the shipped copy came from`);
    }
    return raw;
  });
}

/** The sets `CrawlerRanges` is built from: each source with the prefixes of its current copy. */
export function rangeSets(
  sources: readonly CrawlerRangeSource[],
  prefixesOf: (source: CrawlerRangeSource) => string[],
): CrawlerRangeSet[] {
  return sources.map((s) => ({
    operator: s.operator,
    agents: s.agents,
    source: s.file,
    prefixes: prefixesOf(s),
  }));
}

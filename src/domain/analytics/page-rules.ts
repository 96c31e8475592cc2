import picomatch from 'picomatch';
import { invalid } from '../errors.ts';
import { canonicalPath, type PageNaming, type PagePath, pageOf } from './paths.ts';

/**
 * Which requests are page views, and which page each one is: a project analytics setting
 * (`pageRules`, beside `allowedOrigins`), applied to every view as it is ingested, whatever its
 * source (API, tracker, log import). A change applies to views ingested after it: views already
 * stored keep their page (reclassify does not apply the rules again).
 */
export interface PageRules extends PageNaming {
  /** File extensions (no dot, lower case) of assets a page loads: never page views. */
  assetExtensions: string[];
  /**
   * Paths that are never page views, as glob patterns matched against the path without its
   * query (`*` within a segment, `**` across segments): API calls, robots.txt, sitemaps…
   */
  excludePaths: string[];
  /**
   * When a log records the response's content type, only these count (an API's JSON, a
   * redirect's empty body do not). Sources that do not record it are not filtered by it.
   */
  pageContentTypes: string[];
}

export const DEFAULT_PAGE_RULES: Readonly<PageRules> = {
  assetExtensions: [
    'css',
    'js',
    'mjs',
    'map',
    'json',
    'png',
    'jpg',
    'jpeg',
    'gif',
    'svg',
    'webp',
    'avif',
    'ico',
    'woff',
    'woff2',
    'ttf',
    'otf',
    'eot',
    'mp4',
    'webm',
    'mp3',
    'wasm',
    'xml',
    'rss',
    'atom',
    'zip',
    'gz',
    'pdf',
  ],
  excludePaths: [
    '/robots.txt',
    '/favicon.ico',
    '/sitemap*.xml',
    '/.well-known/**',
    '/cdn-cgi/**',
    '/api/search',
    '/_next/**',
    '/_astro/**',
    '/pagefind/**',
  ],
  stripHtmlExtension: true,
  mergeIndexPages: true,
  pageContentTypes: ['text/html', 'application/xhtml+xml', 'text/markdown', 'text/x-markdown', 'text/plain'],
};

const MAX_ENTRIES = 200;
const MAX_LENGTH = 200;

/**
 * Applies a change to the rules (fields absent keep their value), checking every value; throws
 * an `invalid` error naming the field.
 */
export function changePageRules(current: PageRules, change: Partial<PageRules>): PageRules {
  const next = { ...current };
  if (change.assetExtensions !== undefined) {
    next.assetExtensions = checkList('assetExtensions', change.assetExtensions, (value) => {
      const extension = value.trim().toLowerCase().replace(/^\./, '');
      return /^[a-z0-9]{1,16}$/.test(extension)
        ? { ok: extension }
        : { problem: 'is not a file extension like "css"' };
    });
  }
  if (change.excludePaths !== undefined) {
    next.excludePaths = checkList('excludePaths', change.excludePaths, (value) => {
      const pattern = value.trim();
      if (!pattern.startsWith('/')) return { problem: 'must start with /' };
      try {
        picomatch(pattern);
      } catch {
        return { problem: 'is not a valid glob pattern' };
      }
      return { ok: pattern };
    });
  }
  if (change.pageContentTypes !== undefined) {
    next.pageContentTypes = checkList('pageContentTypes', change.pageContentTypes, (value) => {
      const type = value.trim().toLowerCase();
      return /^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(type)
        ? { ok: type }
        : { problem: 'is not a media type like "text/html"' };
    });
  }
  if (change.stripHtmlExtension !== undefined) next.stripHtmlExtension = change.stripHtmlExtension;
  if (change.mergeIndexPages !== undefined) next.mergeIndexPages = change.mergeIndexPages;
  return next;
}

function checkList(
  field: string,
  values: string[],
  check: (value: string) => { ok: string } | { problem: string },
): string[] {
  if (values.length > MAX_ENTRIES) throw invalid(`pageRules.${field}: at most ${MAX_ENTRIES} entries`);
  const out: string[] = [];
  for (const value of values) {
    if (value.length > MAX_LENGTH) throw invalid(`pageRules.${field}: at most ${MAX_LENGTH} characters each`);
    const checked = check(value);
    if ('problem' in checked) throw invalid(`pageRules.${field}: "${value}" ${checked.problem}`);
    if (!out.includes(checked.ok)) out.push(checked.ok);
  }
  return out;
}

/** Stored rules from an older version may lack fields: the defaults fill them. */
export function withDefaults(stored: Partial<PageRules> | undefined): PageRules {
  return { ...DEFAULT_PAGE_RULES, ...(stored ?? {}) };
}

/** A request's page, or why it is not a page view (a short, countable reason). */
export type PageResult = PagePath | { notPage: string };

/**
 * A project's rules, compiled once and remembering the pages of the paths it has seen (logs
 * repeat the same few thousand paths).
 */
export class PageRuleSet {
  readonly rules: PageRules;
  private readonly assets: RegExp | null;
  private readonly excluded: Array<{ pattern: string; test: (path: string) => boolean }>;
  private readonly contentTypes: Set<string>;
  private readonly cache = new Map<string, PageResult | null>();

  constructor(rules: PageRules) {
    this.rules = rules;
    this.assets =
      rules.assetExtensions.length === 0
        ? null
        : new RegExp(`\\.(?:${rules.assetExtensions.join('|')})$`, 'i');
    this.excluded = rules.excludePaths.map((pattern) => ({
      pattern,
      test: picomatch(pattern, { dot: true }),
    }));
    this.contentTypes = new Set(rules.pageContentTypes);
  }

  /** The page of a requested path or URL; null when it is no path at all. */
  page(raw: string): PageResult | null {
    let result = this.cache.get(raw);
    if (result === undefined) {
      result = this.pageUncached(raw);
      if (this.cache.size >= 50_000) this.cache.clear();
      this.cache.set(raw, result);
    }
    return result;
  }

  /** Why a response of this content type is not a page view; null when it may be one. */
  contentTypeProblem(contentType: string | undefined): string | null {
    if (!contentType || contentType === '-') return null;
    const type = (contentType.split(';')[0] as string).trim().toLowerCase();
    if (type === '' || this.contentTypes.has(type)) return null;
    return `not a page: content type ${type}`;
  }

  private pageUncached(raw: string): PageResult | null {
    const path = canonicalPath(raw);
    if (path === null) return null;
    if (this.assets?.test(path)) return { notPage: 'not a page: asset' };
    for (const { pattern, test } of this.excluded) {
      if (test(path)) return { notPage: `not a page: excluded path ${pattern}` };
    }
    return pageOf(path, this.rules);
  }
}

import { posix } from 'node:path';
import { parseDocument } from 'yaml';

/** A documentation site found in the repository, from its configuration file. */
export interface DocsSite {
  kind: 'mintlify' | 'mkdocs';
  /** Repository-relative path of docs.json, mint.json or mkdocs.yml. */
  config: string;
  /** Where its pages live and where site-absolute links (`/guides/x`) start. */
  root: string;
  /** Page references from its navigation, as written there. */
  navigation: NavigationEntry[];
}

export interface NavigationEntry {
  page: string;
  line: number | undefined;
}

export interface SiteProblem {
  file: string;
  line: number | undefined;
  message: string;
}

export const SITE_CONFIG_NAMES = new Set(['docs.json', 'mint.json', 'mkdocs.yml', 'mkdocs.yaml']);

const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** The first line of `raw` that mentions `value` (as a quoted string first), for pointing at a config entry. */
export function lineOf(raw: string, value: string, quoted: boolean): number | undefined {
  let index = quoted ? raw.indexOf(JSON.stringify(value)) : -1;
  if (index === -1) index = raw.indexOf(value);
  if (index === -1) return undefined;
  return raw.slice(0, index).split('\n').length;
}

// Mintlify navigation nests groups, tabs, anchors, dropdowns, versions, languages and products
// in many shapes; every page reference sits in a `pages` array (or a group's `root`), so
// walking the whole tree for those keys covers all of them, old mint.json included.
function collectMintlifyPages(value: unknown, out: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) collectMintlifyPages(item, out);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    if (key === 'pages' && Array.isArray(child)) {
      for (const item of child) {
        if (typeof item === 'string') out.push(item);
        else collectMintlifyPages(item, out);
      }
    } else if (key === 'root' && typeof child === 'string') {
      out.push(child);
    } else {
      collectMintlifyPages(child, out);
    }
  }
}

/** A navigation value that names a page file, rather than a URL or a generated OpenAPI page. */
function isPageReference(value: string): boolean {
  // "GET /users" or "openapi.json POST /widgets": pages generated from an OpenAPI description.
  return value !== '' && !HAS_SCHEME.test(value) && !/\s/.test(value);
}

/** A JSON syntax error, short and on one line, with its line where it can be found. */
function jsonErrorAt(raw: string, error: unknown): { line: number | undefined; message: string } {
  const reason = (error instanceof Error ? error.message : 'invalid JSON').replace(/\s+/g, ' ');
  const message = `Invalid JSON: ${reason.length > 160 ? `${reason.slice(0, 160)}…` : reason}`;
  const line = /line (\d+)/.exec(reason)?.[1];
  if (line !== undefined) return { line: Number(line), message };
  const position = /position (\d+)/.exec(reason)?.[1];
  if (position !== undefined) return { line: raw.slice(0, Number(position)).split('\n').length, message };
  // V8 does not always say where; JSON is (nearly) YAML, whose parser does.
  return { line: parseDocument(raw).errors[0]?.linePos?.[0].line, message };
}

function mintlifySite(config: string, raw: string): { site: DocsSite | null; problems: SiteProblem[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    return { site: null, problems: [{ file: config, ...jsonErrorAt(raw, error) }] };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { site: null, problems: [{ file: config, line: 1, message: 'Expected a JSON object' }] };
  }
  // Another tool's docs.json (no navigation) is not a Mintlify site.
  if (!('navigation' in parsed)) return { site: null, problems: [] };
  const pages: string[] = [];
  collectMintlifyPages(parsed.navigation, pages);
  const navigation = pages.filter(isPageReference).map((page) => ({ page, line: lineOf(raw, page, true) }));
  return { site: { kind: 'mintlify', config, root: posix.dirname(config), navigation }, problems: [] };
}

function collectMkdocsPages(value: unknown, out: string[]): void {
  if (typeof value === 'string') {
    out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectMkdocsPages(item, out);
  } else if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) collectMkdocsPages(child, out);
  }
}

function mkdocsSite(config: string, raw: string): { site: DocsSite | null; problems: SiteProblem[] } {
  // mkdocs.yml commonly carries !!python/name and !ENV tags: unknown tags are warnings, not errors.
  const document = parseDocument(raw);
  const error = document.errors[0];
  if (error !== undefined) {
    return {
      site: null,
      problems: [
        {
          file: config,
          line: error.linePos?.[0].line,
          message: `Invalid YAML: ${(error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')}`,
        },
      ],
    };
  }
  const value: unknown = document.toJS();
  const settings = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  const docsDir =
    'docs_dir' in settings && typeof settings.docs_dir === 'string' ? settings.docs_dir : 'docs';
  const pages: string[] = [];
  if ('nav' in settings) collectMkdocsPages(settings.nav, pages);
  const navigation = pages
    .filter((page) => isPageReference(page) && !page.startsWith('/'))
    .map((page) => ({ page, line: lineOf(raw, page, false) }));
  return {
    site: { kind: 'mkdocs', config, root: posix.join(posix.dirname(config), docsDir), navigation },
    problems: [],
  };
}

/** Reads one site configuration file; `null` when it is not a documentation site's. */
export function readSiteConfig(
  config: string,
  raw: string,
): { site: DocsSite | null; problems: SiteProblem[] } {
  return posix.basename(config).startsWith('mkdocs.') ? mkdocsSite(config, raw) : mintlifySite(config, raw);
}

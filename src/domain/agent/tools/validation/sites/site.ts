import { posix } from 'node:path';
import { parseDocument } from 'yaml';

export type SiteKind = 'mintlify' | 'mkdocs' | 'docusaurus';

/** A documentation site found in the repository, from its configuration. */
export interface DocsSite {
  kind: SiteKind;
  /** Repository-relative path of its configuration file (docs.json, mkdocs.yml, docusaurus.config.js…). */
  config: string;
  /** Where its pages live; site-absolute links (`/guides/x`) start here. */
  root: string;
  /** Folders whose files belong to the site: its root, and content kept elsewhere (`../docs`). */
  roots: string[];
  /** Page references from its navigation, each with the file and line it is written at. */
  navigation: NavigationEntry[];
  /** URL paths the site redirects (they work even with no page there). */
  redirects: RedirectRule[];
  /** URL prefixes the site may be served under (`/docs`): a link may start with one. */
  basePaths: string[];
  /** URL prefixes under which the generator makes pages of its own (from an OpenAPI description…). */
  generatedPrefixes: string[];
  /** URL paths of single pages the generator makes (an OpenAPI operation's `x-mint.href`). */
  generatedPages?: ReadonlySet<string>;
  /** Repository paths the generator leaves out of the site (`.mintignore`, Markdown no plugin reads). */
  ignored(file: string): boolean;
  /** Docusaurus only: where its docs, pages and static files are and where docs are served. */
  docusaurus?: DocusaurusLayout;
  /** mkdocs only: pages served as directories (`guide/setup.md` at `/guide/setup/`). */
  useDirectoryUrls?: boolean;
  /** mkdocs only: its include extensions, and the source of its hooks (which may write pages). */
  mkdocs?: { includes: MkdocsIncludes; hookSources: string[] };
}

/** Where mkdocs' include extensions find files (repository-relative folders), by syntax. */
export interface MkdocsIncludes {
  bases: Partial<Record<'markdown-include' | 'snippets', string[]>>;
  /** Files pymdownx.snippets appends to every page. */
  autoAppend: string[];
}

export interface DocusaurusLayout {
  /** Repository-relative folder of docusaurus.config.*: `@site/` and site-absolute Markdown links start here. */
  siteDir: string;
  /** What each content plugin reads (each docs version is one), and where it serves it. */
  contents: DocusaurusContent[];
  /** Repository-relative folders whose files are served at the site root (default `static`). */
  staticDirs: string[];
  /** `trailingSlash`: whether pages are served at `/x/` (relative links resolve from there). */
  trailingSlash: boolean | undefined;
  /** The content a file belongs to (the most closely enclosing folder), or null. */
  contentOf(file: string): DocusaurusContent | null;
}

/** One content folder of a Docusaurus site: a docs version, a blog, or standalone pages. */
export interface DocusaurusContent {
  kind: 'docs' | 'blog' | 'pages';
  /** Repository-relative folder (`docs`, `versioned_docs/version-2.0`, `blog`, `src/pages`). */
  dir: string;
  /** URL path it is served under: '' for the root, else `/docs`, `/docs/next`… (no trailing slash). */
  route: string;
  /** Whether a file (relative to `dir`) is content, per the plugin's `include` and `exclude`. */
  includes(relative: string): boolean;
}

export interface NavigationEntry {
  page: string;
  /** The file the entry is written in: the configuration, or a file it includes (`$ref`). */
  file: string;
  line: number | undefined;
}

/** A redirect source: an exact path, or a pattern with `:param` and `*` segments. */
export interface RedirectRule {
  source: string;
  matches(urlPath: string): boolean;
}

export interface SiteProblem {
  file: string;
  line: number | undefined;
  message: string;
}

export interface SiteRead {
  site: DocsSite | null;
  problems: SiteProblem[];
}

/** Reads a file of the repository (at the state being validated), or null. */
export type ReadFile = (path: string) => Promise<string | null>;

export const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** The first line of `raw` that mentions `value` (as a quoted string first), for pointing at a config entry. */
export function lineOf(raw: string, value: string, quoted: boolean): number | undefined {
  let index = quoted ? raw.indexOf(JSON.stringify(value)) : -1;
  if (index === -1) index = raw.indexOf(value);
  if (index === -1) return undefined;
  return raw.slice(0, index).split('\n').length;
}

/** A JSON syntax error, short and on one line, with its line where it can be found. */
export function jsonErrorAt(raw: string, error: unknown): { line: number | undefined; message: string } {
  const reason = (error instanceof Error ? error.message : 'invalid JSON').replace(/\s+/g, ' ');
  const message = `Invalid JSON: ${reason.length > 160 ? `${reason.slice(0, 160)}…` : reason}`;
  const line = /line (\d+)/.exec(reason)?.[1];
  if (line !== undefined) return { line: Number(line), message };
  const position = /position (\d+)/.exec(reason)?.[1];
  if (position !== undefined) return { line: raw.slice(0, Number(position)).split('\n').length, message };
  // V8 does not always say where; JSON is (nearly) YAML, whose parser does.
  return { line: parseDocument(raw).errors[0]?.linePos?.[0].line, message };
}

/**
 * A redirect source as Mintlify and most hosts write it: `/old`, `/blog/:slug`, `/v1/*` or
 * `/v1/:path*`. A trailing slash and a query do not matter.
 */
export function redirectRule(source: string): RedirectRule {
  const path = normaliseUrlPath(source);
  if (!/[:*]/.test(path)) return { source, matches: (url) => url === path };
  const pattern = path
    .split('/')
    .map((segment) => {
      if (segment === '*' || /^:[\w-]+\*$/.test(segment)) return '.*';
      if (/^:[\w-]+\??$/.test(segment)) return segment.endsWith('?') ? '[^/]*' : '[^/]+';
      return segment.replace(/[.+?^${}()|[\]\\*]/g, '\\$&');
    })
    .join('/');
  const regex = new RegExp(`^${pattern}$`);
  return { source, matches: (url) => regex.test(url) };
}

/** `/a/b/` and `a/b?x#y` → `/a/b`; `/` stays. */
export function normaliseUrlPath(url: string): string {
  const path = url.replace(/[?#].*$/, '');
  const absolute = path.startsWith('/') ? path : `/${path}`;
  return absolute.length > 1 ? absolute.replace(/\/+$/, '') || '/' : absolute;
}

/** The folder a site file lives in, joined with a relative path, normalised (posix). */
export function siteRelative(config: string, relative: string): string {
  return posix.normalize(posix.join(posix.dirname(config), relative));
}

/** A navigation value that names a page file, rather than a URL or a generated OpenAPI page. */
export function isPageReference(value: string): boolean {
  // "GET /users" or "openapi.json POST /widgets": pages generated from an OpenAPI description.
  return value !== '' && !HAS_SCHEME.test(value) && !/\s/.test(value);
}

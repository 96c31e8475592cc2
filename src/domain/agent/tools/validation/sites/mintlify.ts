import { posix } from 'node:path';
import ignore from 'ignore';
import { parse } from 'yaml';
import {
  type DocsSite,
  HAS_SCHEME,
  isPageReference,
  jsonErrorAt,
  lineOf,
  type NavigationEntry,
  normaliseUrlPath,
  type ReadFile,
  type RedirectRule,
  redirectRule,
  type SiteProblem,
  type SiteRead,
  siteRelative,
} from './site.ts';

export const MINTLIFY_CONFIGS = new Set(['docs.json', 'mint.json']);

// Files Mintlify makes for every site, whatever its pages.
const GENERATED_FILES = ['/llms.txt', '/llms-full.txt', '/sitemap.xml', '/robots.txt'];
// What Mintlify leaves out of every site without being told (its "default ignored patterns"):
// these folders anywhere, output folders at the root only (published sites serve pages from
// `…/build/…` folders), and these files anywhere.
const IGNORED_FOLDERS = new Set([
  '.git',
  '.github',
  '.claude',
  '.agents',
  '.idea',
  '.vscode',
  'node_modules',
  '.cache',
]);
const IGNORED_ROOT_FOLDERS = new Set(['build', 'dist', 'coverage', 'tmp', 'temp']);
const IGNORED_FILES = new Set(['readme.md', 'license.md', 'changelog.md', 'contributing.md']);

/** Whether Mintlify leaves `relative` (a path inside the docs root) out by default. */
function ignoredByDefault(relative: string): boolean {
  const parts = relative.split('/');
  const name = parts[parts.length - 1] ?? '';
  if (IGNORED_FILES.has(name.toLowerCase())) return true;
  if (parts.length > 1 && IGNORED_ROOT_FOLDERS.has(parts[0] ?? '')) return true;
  return parts.slice(0, -1).some((part) => IGNORED_FOLDERS.has(part));
}
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
// Where Mintlify puts pages it generates from an OpenAPI description when no directory is named.
const DEFAULT_OPENAPI_DIRECTORY = 'api-reference';
const MAX_REF_DEPTH = 16;

/** The slice of an OpenAPI description read here: each operation's `x-mint.href`. */
type PathItem = Partial<Record<string, { 'x-mint'?: { href?: unknown } } | null>> | null;
interface OpenApiDescription {
  paths?: Record<string, PathItem>;
  webhooks?: Record<string, PathItem>;
}

/** One JSON file of the configuration: docs.json itself or a file it includes with `$ref`. */
interface Source {
  file: string;
  raw: string;
}

interface Collected {
  navigation: NavigationEntry[];
  redirects: RedirectRule[];
  generatedPrefixes: Set<string>;
  /** OpenAPI descriptions the navigation names (paths or URLs, as written). */
  openapi: Set<string>;
  problems: SiteProblem[];
}

/**
 * Reads a Mintlify docs.json (or the older mint.json). Every `"$ref": "file.json"` is followed,
 * wherever it is (a site splits its navigation by language, its redirects into a file of their
 * own…), and entries found there are reported at their line in that file.
 */
export async function readMintlifySite(config: string, raw: string, read: ReadFile): Promise<SiteRead> {
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
  const collected: Collected = {
    navigation: [],
    redirects: [],
    generatedPrefixes: new Set(),
    openapi: new Set(),
    problems: [],
  };
  await walk(parsed, { file: config, raw }, [config], read, collected);
  const root = posix.dirname(config);
  const mintignore = await read(posix.join(root, '.mintignore'));
  // The defaults are matched by hand: `ignore` is for the patterns a .mintignore may hold.
  const ignored = mintignore === null ? null : ignore().add(mintignore);
  const site: DocsSite = {
    kind: 'mintlify',
    config,
    root,
    roots: [root],
    navigation: collected.navigation,
    redirects: [...collected.redirects, ...GENERATED_FILES.map(redirectRule)],
    // Sites are often served under /docs by a reverse proxy; nothing in docs.json says so.
    basePaths: ['/docs'],
    generatedPrefixes: [...collected.generatedPrefixes],
    generatedPages: await operationPages(root, collected.openapi, read),
    ignored: (file) => {
      const relative = root === '.' ? file : file.startsWith(`${root}/`) ? file.slice(root.length + 1) : null;
      return relative !== null && (ignoredByDefault(relative) || (ignored?.ignores(relative) ?? false));
    },
  };
  return { site, problems: collected.problems };
}

/**
 * The URLs of the operations in the site's OpenAPI descriptions that set their own
 * (`x-mint.href`): Mintlify generates their pages there, wherever that is (under a language's
 * folder, say). Descriptions given as URLs, or that do not parse, add nothing.
 */
async function operationPages(root: string, sources: Set<string>, read: ReadFile): Promise<Set<string>> {
  const pages = new Set<string>();
  for (const source of sources) {
    if (HAS_SCHEME.test(source)) continue;
    const file = posix.normalize(posix.join(root, source.replace(/^\/+/, '')));
    if (file.startsWith('../')) continue;
    const raw = await read(file);
    if (raw === null) continue;
    let description: OpenApiDescription | null;
    try {
      description = /\.json$/i.test(file) ? JSON.parse(raw) : parse(raw, { uniqueKeys: false });
    } catch {
      continue;
    }
    const items = [description?.paths, description?.webhooks].flatMap((group) =>
      typeof group === 'object' && group !== null ? Object.values(group) : [],
    );
    for (const item of items) {
      for (const method of HTTP_METHODS) {
        const href = item?.[method]?.['x-mint']?.href;
        if (typeof href === 'string' && href.startsWith('/')) pages.add(normaliseUrlPath(href));
      }
    }
  }
  return pages;
}

async function walk(
  value: unknown,
  source: Source,
  files: string[],
  read: ReadFile,
  out: Collected,
  pagesOfThis?: string[],
): Promise<void> {
  if (Array.isArray(value)) {
    for (const item of value) await walk(item, source, files, read, out, pagesOfThis);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const object = value as Record<string, unknown>;
  if (typeof object.$ref === 'string') {
    await followRef(object.$ref, source, files, read, out, pagesOfThis);
    return;
  }
  // Pages of this element, to place pages generated from an OpenAPI description beside them.
  const pages: string[] = [];
  for (const [key, child] of Object.entries(object)) {
    if (key === 'pages' && Array.isArray(child)) {
      for (const item of child) {
        if (typeof item === 'string') addPage(item, source, out, pages);
        else await walk(item, source, files, read, out, pages);
      }
    } else if (key === 'root' && typeof child === 'string') {
      addPage(child, source, out, pages);
    } else if (key === 'redirects') {
      // Kept in a file of their own as often as not: `"redirects": { "$ref": "redirects.json" }`.
      const list = await withRef(child, source, files, read, out);
      for (const redirect of Array.isArray(list?.value) ? list.value : []) {
        const from = (redirect as { source?: unknown } | null)?.source;
        if (typeof from === 'string') out.redirects.push(redirectRule(from));
      }
    } else if (key !== 'openapi') {
      await walk(child, source, files, read, out, pagesOfThis);
    }
  }
  if ('openapi' in object) {
    const openapi = object.openapi;
    for (const source of [openapi, (openapi as { source?: unknown } | null)?.source].flat()) {
      if (typeof source === 'string') out.openapi.add(source);
    }
    const directory =
      typeof openapi === 'object' && openapi !== null && 'directory' in openapi
        ? (openapi as { directory?: unknown }).directory
        : undefined;
    if (typeof directory === 'string') out.generatedPrefixes.add(directory.replace(/^\/+|\/+$/g, ''));
    out.generatedPrefixes.add(DEFAULT_OPENAPI_DIRECTORY);
    for (const page of [...pages, ...(pagesOfThis ?? [])]) {
      const top = page.replace(/^\/+/, '').split('/')[0];
      if (top && page.includes('/')) out.generatedPrefixes.add(top);
    }
  }
  pagesOfThis?.push(...pages);
}

function addPage(page: string, source: Source, out: Collected, pages: string[]): void {
  if (!isPageReference(page)) {
    // "GET /users": an endpoint page Mintlify generates.
    out.generatedPrefixes.add(DEFAULT_OPENAPI_DIRECTORY);
    return;
  }
  pages.push(page);
  out.navigation.push({ page, file: source.file, line: lineOf(source.raw, page, true) });
}

async function followRef(
  ref: string,
  from: Source,
  files: string[],
  read: ReadFile,
  out: Collected,
  pagesOfThis: string[] | undefined,
): Promise<void> {
  const loaded = await load(ref, from, files, read, out);
  if (loaded) await walk(loaded.value, loaded.source, [...files, loaded.source.file], read, out, pagesOfThis);
}

/** `value`, or what it includes when it is `{ "$ref": … }` (followed until it is not). */
async function withRef(
  value: unknown,
  source: Source,
  files: string[],
  read: ReadFile,
  out: Collected,
): Promise<{ value: unknown; source: Source } | null> {
  let current = { value, source };
  let seen = files;
  for (;;) {
    const ref = (current.value as { $ref?: unknown } | null)?.$ref;
    if (typeof current.value !== 'object' || current.value === null || typeof ref !== 'string')
      return current;
    const loaded = await load(ref, current.source, seen, read, out);
    if (!loaded) return null;
    seen = [...seen, loaded.source.file];
    current = loaded;
  }
}

/** Reads and parses the JSON file a `$ref` names, relative to the file it is written in. */
async function load(
  ref: string,
  from: Source,
  files: string[],
  read: ReadFile,
  out: Collected,
): Promise<{ value: unknown; source: Source } | null> {
  const line = lineOf(from.raw, ref, true);
  const file = siteRelative(from.file, ref);
  if (files.includes(file) || files.length > MAX_REF_DEPTH) {
    out.problems.push({ file: from.file, line, message: `"$ref": "${ref}" includes itself` });
    return null;
  }
  const raw = file.startsWith('../') ? null : await read(file);
  if (raw === null) {
    out.problems.push({
      file: from.file,
      line,
      message: `"$ref": "${ref}" names a file that does not exist`,
    });
    return null;
  }
  try {
    return { value: JSON.parse(raw), source: { file, raw } };
  } catch (error) {
    out.problems.push({ file, ...jsonErrorAt(raw, error) });
    return null;
  }
}

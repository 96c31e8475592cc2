import { posix } from 'node:path';
import picomatch from 'picomatch';
import type { DocsSite, DocusaurusContent, ReadFile, SiteRead } from './site.ts';
import { asObject, asString, type StaticValue } from './static-values.ts';

export const DOCUSAURUS_CONFIGS = new Set([
  'docusaurus.config.js',
  'docusaurus.config.ts',
  'docusaurus.config.mjs',
  'docusaurus.config.cjs',
  'docusaurus.config.mts',
]);

// The docs plugin's defaults (@docusaurus/plugin-content-docs).
const DOCS_INCLUDE = ['**/*.{md,mdx}'];
const DOCS_EXCLUDE = [
  '**/_*.{js,jsx,ts,tsx,md,mdx}',
  '**/_*/**',
  '**/*.test.{js,jsx,ts,tsx}',
  '**/__tests__/**',
];
const DEFAULT_PLUGIN_ID = 'default';

type Options = { [key: string]: StaticValue };

/**
 * Reads the settings of a Docusaurus site that decide its URLs: `baseUrl`, `trailingSlash`,
 * `staticDirectories`, and each content plugin (docs, blog, pages), from the classic preset
 * or `plugins`, with its `path`, `routeBasePath`, `include`/`exclude` and, for docs, its
 * versions (`versions.json`, `versioned_docs/version-*`; the last version at the plain path,
 * the current one at `next`). The configuration is a program: it is parsed, never run, and
 * only its literal values are read; anything computed falls back to Docusaurus' defaults.
 * Sidebars (also programs) are not checked.
 */
export async function readDocusaurusSite(config: string, raw: string, read: ReadFile): Promise<SiteRead> {
  const siteDir = posix.dirname(config);
  const at = (relative: string) => posix.normalize(posix.join(siteDir, relative));
  // The parser of configurations is loaded only for a site that has one.
  const { readExportedValue } = await import('./config-program.ts');
  const settings = asObject(readExportedValue(raw) ?? {}) ?? {};
  const baseUrl = asString(settings.baseUrl) ?? '/';
  const staticList = Array.isArray(settings.staticDirectories) ? settings.staticDirectories : null;
  const staticDirs = staticList
    ? staticList.filter((dir): dir is string => typeof dir === 'string').map(at)
    : [at('static')];

  const contents: DocusaurusContent[] = [];
  for (const { kind, options } of contentPlugins(settings)) {
    if (kind === 'docs') contents.push(...(await docsContents(options, siteDir, read)));
    else {
      contents.push({
        kind,
        dir: at(asString(options.path) ?? (kind === 'blog' ? 'blog' : 'src/pages')),
        route: routePath(asString(options.routeBasePath) ?? (kind === 'blog' ? 'blog' : '')),
        includes: () => true,
      });
    }
  }
  const outside = contents.map((content) => content.dir).filter((dir) => !within(dir, siteDir));
  const base = baseUrl.replace(/\/+$/, '');
  const contentOf = (file: string): DocusaurusContent | null => {
    let best: DocusaurusContent | null = null;
    for (const content of contents) {
      if (within(file, content.dir) && (best === null || content.dir.length > best.dir.length))
        best = content;
    }
    return best;
  };
  const site: DocsSite = {
    kind: 'docusaurus',
    config,
    root: siteDir,
    roots: [siteDir, ...outside],
    navigation: [],
    redirects: [],
    basePaths: base ? [base] : [],
    // Blog posts are served at dates and slugs that only the build knows, with their tag,
    // archive and author pages; docs get tag pages too.
    generatedPrefixes: contents.flatMap((content) => {
      if (content.kind === 'blog') return [content.route.slice(1)];
      if (content.kind === 'docs') return [`${content.route.slice(1)}${content.route ? '/' : ''}tags`];
      return [];
    }),
    // Markdown in the site's folder that no content plugin reads (a README, test fixtures) is
    // not part of the site.
    ignored: (file) => /\.mdx?$/i.test(file) && !isContent(file),
    docusaurus: {
      siteDir,
      contents,
      staticDirs,
      trailingSlash: typeof settings.trailingSlash === 'boolean' ? settings.trailingSlash : undefined,
      contentOf,
    },
  };
  function isContent(file: string): boolean {
    const content = contentOf(file);
    return content?.includes(posix.relative(content.dir, file)) ?? false;
  }
  return { site, problems: [] };
}

/** Each content plugin of the site: from the classic preset (unless turned off), then `plugins`. */
function contentPlugins(settings: Options): { kind: DocusaurusContent['kind']; options: Options }[] {
  const found: { kind: DocusaurusContent['kind']; options: Options }[] = [];
  for (const preset of Array.isArray(settings.presets) ? settings.presets : []) {
    const [name, options] = pluginEntry(preset);
    if (name === undefined || !/(^|[/-])classic$/.test(name)) continue;
    for (const kind of ['docs', 'blog', 'pages'] as const) {
      const value = options[kind];
      if (value === false) continue;
      found.push({ kind, options: asObject(value ?? {}) ?? {} });
    }
  }
  if (!Array.isArray(settings.presets)) {
    // No preset list we can read: assume the classic one, as nearly every site uses it.
    for (const kind of ['docs', 'blog', 'pages'] as const) found.push({ kind, options: {} });
  }
  for (const plugin of Array.isArray(settings.plugins) ? settings.plugins : []) {
    const [name, options] = pluginEntry(plugin);
    const kind = /(^|[/-])content-(docs|blog|pages)$/.exec(name ?? '')?.[2] as
      | DocusaurusContent['kind']
      | undefined;
    if (kind) found.push({ kind, options });
  }
  return found;
}

function pluginEntry(entry: StaticValue): [string | undefined, Options] {
  if (typeof entry === 'string') return [entry, {}];
  if (Array.isArray(entry)) return [asString(entry[0]), asObject(entry[1] ?? {}) ?? {}];
  return [undefined, {}];
}

/** The docs plugin's content: the current version and each version of versions.json. */
async function docsContents(options: Options, siteDir: string, read: ReadFile): Promise<DocusaurusContent[]> {
  const at = (relative: string) => posix.normalize(posix.join(siteDir, relative));
  const id = asString(options.id) ?? DEFAULT_PLUGIN_ID;
  const routeBasePath = asString(options.routeBasePath) ?? 'docs';
  const prefix = id === DEFAULT_PLUGIN_ID ? '' : `${id}_`;
  const include = stringList(options.include) ?? DOCS_INCLUDE;
  const exclude = stringList(options.exclude) ?? DOCS_EXCLUDE;
  const matchesInclude = picomatch(include);
  const matchesExclude = picomatch(exclude);
  const includes = (relative: string) => matchesInclude(relative) && !matchesExclude(relative);

  const versions = await versionNames(read, at(`${prefix}versions.json`));
  const disabled = options.disableVersioning === true;
  const named = disabled ? [] : versions;
  const only = stringList(options.onlyIncludeVersions);
  const lastVersion = asString(options.lastVersion) ?? named[0] ?? 'current';
  const perVersion = asObject(options.versions ?? {}) ?? {};
  const pathOf = (version: string) => {
    const configured = asString(asObject(perVersion[version] ?? {})?.path ?? undefined);
    if (configured !== undefined) return configured;
    if (version === lastVersion) return '';
    return version === 'current' ? 'next' : version;
  };
  const contents: DocusaurusContent[] = [];
  const served = (version: string) => only === undefined || only.includes(version);
  if (options.includeCurrentVersion !== false && served('current')) {
    contents.push({
      kind: 'docs',
      dir: at(asString(options.path) ?? 'docs'),
      route: routePath(`${routeBasePath}/${pathOf('current')}`),
      includes,
    });
  }
  for (const version of named) {
    if (!served(version)) continue;
    contents.push({
      kind: 'docs',
      dir: at(`${prefix}versioned_docs/version-${version}`),
      route: routePath(`${routeBasePath}/${pathOf(version)}`),
      includes,
    });
  }
  return contents;
}

async function versionNames(read: ReadFile, file: string): Promise<string[]> {
  const raw = await read(file);
  if (raw === null) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

function stringList(value: StaticValue): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) return undefined;
  return value as string[];
}

/** `docs/` → `/docs`; `/` and '' → ''. */
function routePath(route: string): string {
  const inner = route
    .split('/')
    .filter((part) => part !== '')
    .join('/');
  return inner ? `/${inner}` : '';
}

function within(file: string, dir: string): boolean {
  return dir === '.' || file === dir || file.startsWith(`${dir}/`);
}

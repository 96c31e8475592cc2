import { posix } from 'node:path';
import { parseDocument } from 'yaml';
import {
  type DocsSite,
  isPageReference,
  lineOf,
  type MkdocsIncludes,
  type ReadFile,
  type RedirectRule,
  redirectRule,
  type SiteRead,
} from './site.ts';

export const MKDOCS_CONFIGS = new Set(['mkdocs.yml', 'mkdocs.yaml']);

/**
 * Reads an mkdocs.yml: docs_dir, nav, use_directory_urls, site_url's path, the redirects
 * plugin, the include extensions (pymdownx.snippets, markdown-include) and the hooks, whose
 * source is kept: a nav entry a hook writes (`changelog.md`) is named in it.
 */
export async function readMkdocsSite(config: string, raw: string, read: ReadFile): Promise<SiteRead> {
  // mkdocs.yml commonly carries !!python/name and !ENV tags: unknown tags are warnings, not errors.
  // PyYAML lets a later key replace an earlier one, so mkdocs accepts duplicate keys.
  const document = parseDocument(raw, { uniqueKeys: false });
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
  const settings = (
    typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}
  ) as Record<string, unknown>;
  const docsDir = typeof settings.docs_dir === 'string' ? settings.docs_dir : 'docs';
  const pages: string[] = [];
  if ('nav' in settings) collectPages(settings.nav, pages);
  const navigation = pages
    .filter((page) => isPageReference(page) && !page.startsWith('/'))
    .map((page) => ({ page, file: config, line: lineOf(raw, page, false) }));
  const sitePath =
    typeof settings.site_url === 'string' && URL.canParse(settings.site_url)
      ? new URL(settings.site_url).pathname.replace(/\/+$/, '')
      : '';
  const configDir = posix.dirname(config);
  const root = posix.join(configDir, docsDir);
  const hookSources: string[] = [];
  for (const hook of Array.isArray(settings.hooks) ? settings.hooks : []) {
    const source = typeof hook === 'string' ? await read(posix.normalize(posix.join(configDir, hook))) : null;
    if (source !== null) hookSources.push(source);
  }
  const site: DocsSite = {
    kind: 'mkdocs',
    config,
    root,
    roots: [root],
    navigation,
    redirects: redirectsOf(settings.plugins),
    basePaths: sitePath ? [sitePath] : [],
    generatedPrefixes: [],
    ignored: () => false,
    useDirectoryUrls: settings.use_directory_urls !== false,
    mkdocs: { includes: includeSettings(settings.markdown_extensions, configDir), hookSources },
  };
  return { site, problems: [] };
}

/**
 * Where each enabled include extension looks for files (`base_path`, by default the folder
 * mkdocs runs in), and the files pymdownx.snippets appends to every page (`auto_append`).
 */
function includeSettings(extensions: unknown, configDir: string): MkdocsIncludes {
  const settings: MkdocsIncludes = { bases: {}, autoAppend: [] };
  const entries = Array.isArray(extensions)
    ? extensions
    : typeof extensions === 'object' && extensions
      ? [extensions]
      : [];
  const at = (dir: unknown) => posix.normalize(posix.join(configDir, typeof dir === 'string' ? dir : '.'));
  for (const entry of entries) {
    const [name, options] =
      typeof entry === 'string' ? [entry, {}] : (Object.entries(entry ?? {})[0] ?? ['', {}]);
    const values = (typeof options === 'object' && options !== null ? options : {}) as Record<
      string,
      unknown
    >;
    const bases = [values.base_path ?? '.'].flat().map(at);
    if (name === 'pymdownx.snippets') {
      settings.bases.snippets = bases;
      settings.autoAppend = [values.auto_append ?? []]
        .flat()
        .filter((f): f is string => typeof f === 'string');
    } else if (name === 'markdown_include.include' || name === 'mdx_include') {
      settings.bases['markdown-include'] = bases;
    }
  }
  return settings;
}

function collectPages(value: unknown, out: string[]): void {
  if (typeof value === 'string') {
    out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectPages(item, out);
  } else if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) collectPages(child, out);
  }
}

/**
 * The mkdocs-redirects plugin: `redirect_maps: { old.md: new.md }`. A link to the old page
 * (as a file, `old.md`, or as its URL, `/old/`) still arrives somewhere.
 */
function redirectsOf(plugins: unknown): RedirectRule[] {
  const rules: RedirectRule[] = [];
  for (const plugin of Array.isArray(plugins) ? plugins : [plugins]) {
    if (typeof plugin !== 'object' || plugin === null || !('redirects' in plugin)) continue;
    const maps = (plugin.redirects as { redirect_maps?: unknown } | null)?.redirect_maps;
    if (typeof maps !== 'object' || maps === null) continue;
    for (const old of Object.keys(maps)) {
      const file = `/${old.replace(/^\/+/, '')}`;
      rules.push(redirectRule(file), redirectRule(file.replace(/(\/index|\/README)?\.md$/i, '') || '/'));
    }
  }
  return rules;
}

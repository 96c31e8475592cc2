import { posix } from 'node:path';
import type { ParsedPage } from './markdown.ts';
import type { DocsSite } from './sites/site.ts';

const PAGE_SOURCE = /\.(mdx?|[jt]sx?)$/;
// Docusaurus drops number prefixes that order files in the sidebar: `01-intro.md` is `intro`.
const NUMBER_PREFIX = /^\d+\s*[-_.]\s*/;

/**
 * The URLs a Docusaurus site serves from its files: each doc at its `slug`, or at its folder
 * and `id` (number prefixes dropped, `index` and `README` standing for their folder), under
 * `routeBasePath`; each file of `src/pages` at its path. Partials (`_name.mdx`) are not pages.
 */
export function docusaurusRoutes(
  site: DocsSite,
  files: Iterable<string>,
  parsed: ReadonlyMap<string, ParsedPage>,
): { routes: Set<string>; urlOfDoc: Map<string, string> } {
  const layout = site.docusaurus;
  const routes = new Set<string>();
  const urlOfDoc = new Map<string, string>();
  if (!layout) return { routes, urlOfDoc };
  const prefix = layout.routeBasePath ? `/${layout.routeBasePath}` : '';
  for (const file of files) {
    const name = posix.basename(file);
    if (name.startsWith('_') || !PAGE_SOURCE.test(name)) continue;
    const inDocs = inside(file, layout.docsDir);
    if (inDocs !== null && /\.mdx?$/.test(name)) {
      const url = clean(`${prefix}${docUrl(inDocs, parsed.get(file)?.route ?? {})}`);
      routes.add(url);
      urlOfDoc.set(file, url);
      continue;
    }
    const inPages = inside(file, layout.pagesDir);
    if (inPages !== null)
      routes.add(clean(`/${inPages.replace(PAGE_SOURCE, '').replace(/(^|\/)index$/, '')}`));
  }
  return { routes, urlOfDoc };
}

function docUrl(relative: string, route: { id?: string; slug?: string }): string {
  const folders = posix
    .dirname(relative)
    .split('/')
    .filter((part) => part !== '.')
    .map((part) => part.replace(NUMBER_PREFIX, ''));
  const folder = folders.length > 0 ? `/${folders.join('/')}` : '';
  if (route.slug !== undefined) return route.slug.startsWith('/') ? route.slug : `${folder}/${route.slug}`;
  const name = posix
    .basename(relative)
    .replace(/\.mdx?$/, '')
    .replace(NUMBER_PREFIX, '');
  const standsForFolder =
    route.id === undefined &&
    (/^(index|readme)$/i.test(name) || (folders.length > 0 && name === folders[folders.length - 1]));
  if (standsForFolder) return folder || '/';
  return `${folder}/${route.id ?? name}`;
}

function inside(file: string, folder: string): string | null {
  if (folder === '.') return file;
  return file.startsWith(`${folder}/`) ? file.slice(folder.length + 1) : null;
}

/** `/a/b/` → `/a/b`; '' → `/`. */
export function clean(url: string): string {
  const normal = posix.normalize(url.startsWith('/') ? url : `/${url}`);
  return normal.length > 1 ? normal.replace(/\/+$/, '') : '/';
}

import { posix } from 'node:path';
import type { ParsedPage } from './markdown.ts';
import type { DocsSite } from './sites/site.ts';

const PAGE_SOURCE = /\.(mdx?|[jt]sx?)$/;
const PAGE_EXCLUDE = /(^|\/)(_[^/]*|__tests__)(\/|$)|\.test\.[jt]sx?$/;
// Docusaurus drops number prefixes that order files in the sidebar: `01-intro.md` is `intro`.
const NUMBER_PREFIX = /^\d+\s*[-_.]\s*/;

/**
 * The URLs a Docusaurus site serves from its files: each doc at its `slug`, or at its folder
 * and `id` (number prefixes dropped, `index` and `README` standing for their folder), under
 * its version's path (`/docs`, `/docs/next`, `/docs/2.0`); each file of `src/pages` at its
 * path. Partials (`_name.mdx`) are not pages. Blog posts are left to the build (dates, slugs).
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
  for (const file of files) {
    if (!PAGE_SOURCE.test(file)) continue;
    const content = layout.contentOf(file);
    if (content === null) continue;
    const relative = posix.relative(content.dir, file);
    if (content.kind === 'docs' && /\.mdx?$/.test(file) && content.includes(relative)) {
      const url = clean(`${content.route}${docUrl(relative, parsed.get(file)?.route ?? {})}`);
      routes.add(url);
      urlOfDoc.set(file, url);
    } else if (content.kind === 'pages' && !PAGE_EXCLUDE.test(relative)) {
      routes.add(clean(`${content.route}/${relative.replace(PAGE_SOURCE, '').replace(/(^|\/)index$/, '')}`));
    }
  }
  return { routes, urlOfDoc };
}

function docUrl(relative: string, route: { id?: string; slug?: string }): string {
  const directories = posix
    .dirname(relative)
    .split('/')
    .filter((part) => part !== '.');
  const folders = directories.map((part) => part.replace(NUMBER_PREFIX, ''));
  const folder = folders.length > 0 ? `/${folders.join('/')}` : '';
  if (route.slug !== undefined) return route.slug.startsWith('/') ? route.slug : `${folder}/${route.slug}`;
  // A category's index (index, README, or named as its folder) stands for the folder, whatever its id.
  const fileName = posix
    .basename(relative)
    .replace(/\.mdx?$/, '')
    .toLowerCase();
  if (['index', 'readme', directories.at(-1)?.toLowerCase()].includes(fileName)) return folder || '/';
  return `${folder}/${
    route.id ??
    posix
      .basename(relative)
      .replace(/\.mdx?$/, '')
      .replace(NUMBER_PREFIX, '')
  }`;
}

/** `/a/b/` → `/a/b`; '' → `/`. */
export function clean(url: string): string {
  const normal = posix.normalize(url.startsWith('/') ? url : `/${url}`);
  return normal.length > 1 ? normal.replace(/\/+$/, '') : '/';
}

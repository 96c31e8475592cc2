import { posix } from 'node:path';
import type { DocsSite, SiteRead } from './site.ts';

export const DOCUSAURUS_CONFIGS = new Set([
  'docusaurus.config.js',
  'docusaurus.config.ts',
  'docusaurus.config.mjs',
  'docusaurus.config.cjs',
  'docusaurus.config.mts',
]);

/**
 * Reads the settings of a Docusaurus site that decide its URLs: `baseUrl`, the docs plugin's
 * `path` and `routeBasePath`, and `staticDirectories`. The configuration is a program, so this
 * reads its literal values and falls back to Docusaurus' defaults; sidebars (also programs)
 * are not checked.
 */
export function readDocusaurusSite(config: string, raw: string): SiteRead {
  const dir = posix.dirname(config);
  const at = (relative: string) => posix.normalize(posix.join(dir, relative));
  const baseUrl = literal(raw, /\bbaseUrl\s*:\s*(['"`])([^'"`]*)\1/) ?? '/';
  const docs = /\bdocs\s*:\s*\{([^{}]*)/.exec(raw)?.[1] ?? '';
  const docsPath = literal(docs, /\bpath\s*:\s*(['"`])([^'"`]+)\1/) ?? 'docs';
  const routeBasePath =
    literal(docs, /\brouteBasePath\s*:\s*(['"`])([^'"`]*)\1/) ??
    literal(raw, /\brouteBasePath\s*:\s*(['"`])([^'"`]*)\1/) ??
    'docs';
  const staticList = /\bstaticDirectories\s*:\s*\[([^\]]*)\]/.exec(raw)?.[1];
  const staticDirs = staticList
    ? [...staticList.matchAll(/(['"`])([^'"`]+)\1/g)].map((m) => at(m[2] ?? ''))
    : [at('static')];
  const base = baseUrl.replace(/\/+$/, '');
  const site: DocsSite = {
    kind: 'docusaurus',
    config,
    root: at(docsPath),
    navigation: [],
    redirects: [],
    basePaths: base ? [base] : [],
    // Blog posts are served at dates and slugs that only the build knows.
    generatedPrefixes: ['blog'],
    ignored: () => false,
    docusaurus: {
      docsDir: at(docsPath),
      routeBasePath: routeBasePath.replace(/^\/+|\/+$/g, ''),
      staticDirs,
      pagesDir: at('src/pages'),
      blogDir: at('blog'),
    },
  };
  return { site, problems: [] };
}

function literal(text: string, pattern: RegExp): string | undefined {
  return pattern.exec(text)?.[2];
}

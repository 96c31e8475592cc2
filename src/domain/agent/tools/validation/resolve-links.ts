import { posix } from 'node:path';
import { clean } from './docusaurus-routes.ts';
import type { PageReference } from './markdown.ts';
import { inRepository, type RepositoryIndex } from './repository-index.ts';
import { type DocsSite, HAS_SCHEME } from './sites/site.ts';

/** ok: it leads somewhere (or somewhere only the build knows); missing; outside: it leaves the repository. */
export type Resolution = 'ok' | 'missing' | 'outside';

const IMPORT_EXTENSIONS = ['.mdx', '.md', '.js', '.jsx', '.ts', '.tsx', '.json'];

/**
 * Resolves a page's links the way its site generator serves it: Mintlify pages at their path
 * without extension (and their `.md` twin), mkdocs pages as directories or `.html`, Docusaurus
 * docs at their routes and static files at the root; redirects, generated pages and base paths
 * included. A page outside any site is read on its code host: links resolve to files.
 */
export class LinkResolver {
  private readonly index: RepositoryIndex;
  private readonly sites: DocsSite[];
  private readonly docusaurus: Map<DocsSite, { routes: Set<string>; urlOfDoc: Map<string, string> }>;
  constructor(
    index: RepositoryIndex,
    sites: DocsSite[],
    docusaurus: Map<DocsSite, { routes: Set<string>; urlOfDoc: Map<string, string> }>,
  ) {
    this.index = index;
    this.sites = sites;
    this.docusaurus = docusaurus;
  }

  /** The site a file belongs to: the one whose root holds it most closely. */
  siteFor(file: string): DocsSite | null {
    let best: DocsSite | null = null;
    let bestLength = -1;
    for (const site of this.sites) {
      for (const root of site.roots) {
        const inside = root === '.' || file === root || file.startsWith(`${root}/`);
        const length = root === '.' ? 0 : root.length;
        if (inside && length > bestLength) {
          best = site;
          bestLength = length;
        }
      }
    }
    return best;
  }

  resolve(page: string, reference: PageReference): Resolution {
    const url = reference.url;
    if (
      url === '' ||
      url.startsWith('#') ||
      url.startsWith('//') ||
      HAS_SCHEME.test(url) ||
      /[{}]/.test(url)
    ) {
      return 'ok';
    }
    const raw = url.replace(/[?#].*$/, '');
    if (raw === '') return 'ok';
    let path = raw;
    try {
      path = decodeURIComponent(raw);
    } catch {
      // Keep the raw path; a malformed escape is as good a name as any for a missing file.
    }
    const site = this.siteFor(page);
    if (reference.kind === 'import') return this.resolveImport(page, path, site);
    if (site?.docusaurus && (/\.mdx?$/i.test(path) || path.startsWith('@site/'))) {
      if (this.docusaurusFileExists(page, path, site)) return 'ok';
    }
    if (path.startsWith('/')) return this.resolveAbsolute(path, site);
    return this.resolveRelative(page, path, site);
  }

  /** A navigation entry: a page of the site. */
  navigationEntryExists(site: DocsSite, entry: string): boolean {
    const target = inRepository(posix.join(site.root, entry.replace(/^\/+/, '')));
    if (target === null) return false;
    if (site.kind === 'mkdocs') {
      if (this.index.resolvePage(target) !== null) return true;
      // An entry that names no Markdown file is a link, to a file mkdocs copies (`api/index.html`).
      if (!/\.md$/i.test(target) && this.index.files.has(posix.join(target, 'index.html'))) return true;
      // A page a hook writes at build time (a changelog made from HISTORY.md) is named in the hook.
      return site.mkdocs?.hookSources.some((source) => source.includes(posix.basename(target))) ?? false;
    }
    // Mintlify names pages without their extension.
    return [`${target}.mdx`, `${target}.md`].some(
      (file) => this.index.files.has(file) && this.served(site, file),
    );
  }

  /**
   * A link to a Markdown file (or an `@site/` path), as Docusaurus resolves it: unless it starts
   * with `./` or `../`, from the content folder of the page's version and then from the site's
   * folder; unless it starts with `/`, from the page's own folder.
   */
  private docusaurusFileExists(page: string, path: string, site: DocsSite): boolean {
    const layout = site.docusaurus;
    if (!layout) return false;
    if (path.startsWith('@site/')) return this.index.files.has(posix.join(layout.siteDir, path.slice(6)));
    const folders: string[] = [];
    if (!path.startsWith('./') && !path.startsWith('../')) {
      const content = layout.contentOf(page);
      if (content) folders.push(content.dir);
      folders.push(layout.siteDir);
    }
    if (!path.startsWith('/')) folders.push(posix.dirname(page));
    return folders.some((folder) => {
      const file = inRepository(posix.join(folder, path));
      return file !== null && this.index.files.has(file) && this.served(site, file);
    });
  }

  private resolveImport(page: string, specifier: string, site: DocsSite | null): Resolution {
    let target: string;
    if (specifier.startsWith('@site/')) {
      target = posix.join(site?.docusaurus?.siteDir ?? '.', specifier.slice('@site/'.length));
    } else if (!/^\.{0,2}\//.test(specifier)) {
      return 'ok'; // a package, or an alias the bundler resolves (@theme/…, @/components/…)
    } else {
      target = specifier.startsWith('/')
        ? posix.join(site?.root ?? '.', specifier)
        : posix.join(posix.dirname(page), specifier);
    }
    const file = inRepository(target);
    if (file === null) return 'outside';
    const candidates = [
      file,
      ...IMPORT_EXTENSIONS.map((extension) => `${file}${extension}`),
      ...IMPORT_EXTENSIONS.map((extension) => `${file}/index${extension}`),
    ];
    return candidates.some((candidate) => this.index.files.has(candidate)) ? 'ok' : 'missing';
  }

  private resolveAbsolute(path: string, site: DocsSite | null): Resolution {
    if (site === null) {
      const target = inRepository(path.slice(1) || '.');
      if (target === null) return 'outside';
      return this.index.resolvePage(target) !== null || this.index.directories.has(target) ? 'ok' : 'missing';
    }
    const urls = [path];
    for (const base of site.basePaths) {
      if (path === base || path.startsWith(`${base}/`)) urls.push(path.slice(base.length) || '/');
    }
    return urls.some((url) => this.urlExists(clean(url), site)) ? 'ok' : 'missing';
  }

  private resolveRelative(page: string, path: string, site: DocsSite | null): Resolution {
    const target = inRepository(posix.join(posix.dirname(page), path));
    if (target === null) return 'outside';
    // As a file next to the page: how code hosts, mkdocs and Docusaurus read `./other.md`.
    if (this.index.resolvePage(target, (file) => this.served(site, file)) !== null) return 'ok';
    if (site?.kind !== 'mintlify' && this.index.directories.has(target)) return 'ok';
    if (site?.kind === 'mintlify' && target.endsWith('.md') && this.pageExists(site, target.slice(0, -3))) {
      return 'ok';
    }
    // As a URL relative to the page's own URL: how a browser follows it on the built site.
    const pageUrl = site ? this.urlOf(page, site) : null;
    if (site && pageUrl !== null) {
      const url = new URL(path, `http://site${pageUrl}`).pathname;
      let decoded = url;
      try {
        decoded = decodeURIComponent(url);
      } catch {
        // as is
      }
      if (this.urlExists(clean(decoded), site)) return 'ok';
    }
    return 'missing';
  }

  /** Whether the built site answers `url` (site-absolute, without its base path). */
  private urlExists(url: string, site: DocsSite): boolean {
    if (site.generatedPages?.has(url)) return true;
    if (site.redirects.some((rule) => rule.matches(url))) return true;
    if (site.generatedPrefixes.some((prefix) => url === `/${prefix}` || url.startsWith(`/${prefix}/`)))
      return true;
    switch (site.kind) {
      case 'mintlify': {
        const target = inRepository(posix.join(site.root, url.slice(1)));
        if (target === null) return false;
        return (
          this.pageExists(site, target) || (url.endsWith('.md') && this.pageExists(site, target.slice(0, -3)))
        );
      }
      case 'mkdocs': {
        const target = inRepository(posix.join(site.root, url.slice(1).replace(/\.html$/, '')));
        return target !== null && this.index.resolvePage(target) !== null;
      }
      case 'docusaurus': {
        if (this.docusaurus.get(site)?.routes.has(url)) return true;
        return (site.docusaurus?.staticDirs ?? []).some((dir) => {
          const file = inRepository(posix.join(dir, url.slice(1)));
          return file !== null && this.index.files.has(file);
        });
      }
    }
  }

  private pageExists(site: DocsSite, target: string): boolean {
    return this.index.resolvePage(target, (file) => this.served(site, file)) !== null;
  }

  /** A file the site serves: in the repository and not left out of the site (`.mintignore`). */
  private served(site: DocsSite | null, file: string): boolean {
    return site === null || !site.ignored(file);
  }

  /** The URL a page is served at (site-absolute, without base path), or null. */
  private urlOf(page: string, site: DocsSite): string | null {
    if (site.kind === 'docusaurus') {
      const url = this.docusaurus.get(site)?.urlOfDoc.get(page);
      if (url === undefined) return null;
      // Served at /x/ with trailingSlash, where `y` then means /x/y.
      return site.docusaurus?.trailingSlash && url !== '/' ? `${url}/` : url;
    }
    const relative = rootRelative(site, page);
    if (relative === null) return null;
    const withoutExtension = relative.replace(/\.mdx?$/, '');
    const isIndex = /(^|\/)(index|README)$/i.test(withoutExtension);
    const folder = isIndex ? withoutExtension.replace(/(^|\/)(index|README)$/i, '') : withoutExtension;
    if (site.kind === 'mkdocs') {
      if (site.useDirectoryUrls) return folder ? `/${folder}/` : '/';
      return isIndex ? `/${folder}${folder ? '/' : ''}` : `/${withoutExtension}.html`;
    }
    return `/${folder}`;
  }
}

/** A file's path inside the site's root, or null when it is not in it. */
export function rootRelative(site: DocsSite, file: string): string | null {
  if (site.root === '.') return file;
  return file.startsWith(`${site.root}/`) ? file.slice(site.root.length + 1) : null;
}

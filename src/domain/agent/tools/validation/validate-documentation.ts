import { posix } from 'node:path';
import { blobIdOf, type DocsTree, type TreeFile, workingTree } from './docs-tree.ts';
import { docusaurusRoutes } from './docusaurus-routes.ts';
import type { PageReference, ParsedPage } from './markdown.ts';
import { mkdocsIncludes } from './mkdocs-includes.ts';
import { knownParses, parseAndCache } from './parse-cache.ts';
import { RepositoryIndex } from './repository-index.ts';
import { LinkResolver } from './resolve-links.ts';
import { DOCUSAURUS_CONFIGS, readDocusaurusSite } from './sites/docusaurus.ts';
import { MINTLIFY_CONFIGS, readMintlifySite } from './sites/mintlify.ts';
import { MKDOCS_CONFIGS, readMkdocsSite } from './sites/mkdocs.ts';
import type { DocsSite, ReadFile, SiteRead } from './sites/site.ts';

/** One thing that would break the documentation site. */
export interface ValidationFinding {
  /** Repository-relative path of the file at fault. */
  file: string;
  line?: number;
  /** `syntax`, `frontmatter`, `broken-link`, `broken-import`, `navigation` or `config`. */
  rule: string;
  message: string;
}

export interface ValidationReport {
  findings: ValidationFinding[];
  pagesChecked: number;
}

// Larger pages are skipped rather than parsed: nobody writes a 5 MB page by hand.
const MAX_PAGE_BYTES = 5_000_000;
const PAGE_EXTENSIONS = new Set(['.md', '.mdx']);

async function readSite(config: string, raw: string, read: ReadFile): Promise<SiteRead> {
  const name = posix.basename(config);
  if (MKDOCS_CONFIGS.has(name)) return readMkdocsSite(config, raw, read);
  if (DOCUSAURUS_CONFIGS.has(name)) return readDocusaurusSite(config, raw, read);
  return readMintlifySite(config, raw, read);
}

function isConfig(name: string): boolean {
  return MINTLIFY_CONFIGS.has(name) || MKDOCS_CONFIGS.has(name) || DOCUSAURUS_CONFIGS.has(name);
}

const hidden = (path: string) => path.split('/').some((part) => part.startsWith('.'));
// Outside any site, Markdown under these folders is test input (a parser's fixtures), not documentation.
const TEST_FOLDER =
  /^(tests?|__tests__|__fixtures__|fixtures?|__mocks__|__snapshots__|testdata|test[-_]data)$/i;
const inTestFolder = (path: string) =>
  path
    .split('/')
    .slice(0, -1)
    .some((part) => TEST_FOLDER.test(part));

/**
 * Checks what breaks a documentation site, the way its generator builds it (Mintlify, mkdocs,
 * Docusaurus, or pages read on a code host): pages whose Markdown/MDX does not parse, invalid
 * YAML frontmatter, internal links, images and imports that lead nowhere, and navigation
 * entries that name missing pages, `$ref`s of docs.json followed. Redirects, pages the
 * generator makes itself and files it leaves out (`.mintignore`) count as the generator counts
 * them. Symbolic links are not followed, and `.git`, `node_modules` and hidden folders are not
 * checked. `target` is a working copy's directory or any other tree (a commit).
 */
export async function checkDocumentation(target: string | DocsTree): Promise<ValidationReport> {
  const tree = typeof target === 'string' ? workingTree(target) : target;
  const files = await tree.files();
  const index = new RepositoryIndex(files.map((f) => f.path));
  const texts = new Map<string, string | null>();
  const read: ReadFile = async (path) => {
    if (!texts.has(path)) {
      const found = index.files.has(path) ? await tree.readMany([path], MAX_PAGE_BYTES) : new Map();
      texts.set(path, found.get(path) ?? null);
    }
    return texts.get(path) ?? null;
  };

  const findings: ValidationFinding[] = [];
  const sites: DocsSite[] = [];
  const configs = files.filter((f) => !hidden(f.path) && isConfig(posix.basename(f.path))).map((f) => f.path);
  const configTexts = await tree.readMany(configs, MAX_PAGE_BYTES);
  for (const config of configs) {
    const raw = configTexts.get(config);
    if (raw === undefined) continue;
    texts.set(config, raw);
    const { site, problems } = await readSite(config, raw, read);
    for (const problem of problems) {
      findings.push({
        file: problem.file,
        ...(problem.line === undefined ? {} : { line: problem.line }),
        rule: 'config',
        message: problem.message,
      });
    }
    if (site === null) continue;
    sites.push(site);
    if (site.kind === 'mkdocs' && !index.directories.has(site.root)) {
      findings.push({ file: site.config, rule: 'config', message: `docs_dir ${site.root} does not exist` });
    }
  }
  const provisional = new LinkResolver(index, sites, new Map());

  // Pages, each parsed once per content (see parse-cache.ts).
  const pages = files.filter((file) => {
    if (hidden(file.path) || !PAGE_EXTENSIONS.has(posix.extname(file.path).toLowerCase())) return false;
    const site = provisional.siteFor(file.path);
    return site ? !site.ignored(file.path) : !inTestFolder(file.path);
  });
  const formatOf = (page: string): 'md' | 'mdx' =>
    // Mintlify reads .md pages as MDX too; elsewhere .md is CommonMark, which accepts any input.
    page.toLowerCase().endsWith('.mdx') || provisional.siteFor(page)?.kind === 'mintlify' ? 'mdx' : 'md';
  const parsed = await parsePages(
    tree,
    pages.map((page) => page.path),
    pages,
    formatOf,
  );
  // Files mkdocs pages include as text are checked where they are included, even in a hidden folder.
  const siteOf = (file: string) => provisional.siteFor(file);
  let included = mkdocsIncludes(sites, siteOf, parsed, index);
  const unparsed = [...included.keys()].filter((file) => !parsed.has(file) && /\.mdx?$/i.test(file));
  if (unparsed.length > 0) {
    for (const [file, page] of await parsePages(tree, unparsed, [], formatOf)) parsed.set(file, page);
    included = mkdocsIncludes(sites, siteOf, parsed, index);
  }

  const routes = new Map(
    sites
      .filter((site) => site.kind === 'docusaurus')
      .map((site) => [site, docusaurusRoutes(site, index.files, parsed)]),
  );
  const resolver = new LinkResolver(index, sites, routes);
  const resolveFrom = (page: string, reference: PageReference) => {
    // An included file's links resolve from each page that includes it: broken if broken in one.
    for (const includer of included.get(page) ?? [page]) {
      const resolution = resolver.resolve(includer, reference);
      if (resolution !== 'ok') return resolution;
    }
    return 'ok';
  };
  for (const site of sites) {
    for (const entry of site.navigation) {
      if (resolver.navigationEntryExists(site, entry.page)) continue;
      findings.push({
        file: entry.file,
        ...(entry.line === undefined ? {} : { line: entry.line }),
        rule: 'navigation',
        message: `Navigation entry "${entry.page}" points at a page that does not exist`,
      });
    }
  }
  for (const [page, { problems, references }] of parsed) {
    for (const problem of problems) {
      findings.push({
        file: page,
        ...(problem.line === undefined ? {} : { line: problem.line }),
        rule: problem.rule,
        message: problem.message,
      });
    }
    for (const reference of references) {
      const resolution = resolveFrom(page, reference);
      if (resolution === 'ok') continue;
      findings.push({
        file: page,
        ...(reference.line === undefined ? {} : { line: reference.line }),
        rule: reference.kind === 'import' ? 'broken-import' : 'broken-link',
        message:
          resolution === 'outside'
            ? `${reference.url} points outside the repository`
            : `${reference.url} points at a page or file that does not exist`,
      });
    }
  }

  findings.sort((a, b) => (a.file === b.file ? (a.line ?? 0) - (b.line ?? 0) : a.file < b.file ? -1 : 1));
  return { findings, pagesChecked: parsed.size };
}

/** Each page's parse: known by its blob id (in memory or the store), else read and parsed. */
async function parsePages(
  tree: DocsTree,
  paths: readonly string[],
  known: readonly TreeFile[],
  formatOf: (page: string) => 'md' | 'mdx',
): Promise<Map<string, ParsedPage>> {
  const blobs = new Map(known.map((file) => [file.path, file.blob]));
  const parsed = new Map<string, ParsedPage>();
  // A commit's pages come with their blob ids: their parses may be known without reading them.
  const withBlob = paths.flatMap((path) => {
    const blob = blobs.get(path);
    return blob ? [{ path, blob, format: formatOf(path) }] : [];
  });
  const found = await knownParses(withBlob);
  for (const [i, page] of withBlob.entries()) {
    const hit = found[i];
    if (hit) parsed.set(page.path, hit);
  }
  const unread = paths.filter((path) => !parsed.has(path));
  const texts = await tree.readMany(unread, MAX_PAGE_BYTES);
  const toParse = unread.flatMap((path) => {
    const text = texts.get(path);
    return text === undefined ? [] : [{ path, text, blob: blobIdOf(text), format: formatOf(path) }];
  });
  // Shortest first. A cold process that met a 200 KB page among its first ones kept more of
  // the parser's short-lived objects (V8 decides that early, from what survives), and its
  // garbage collection cost twice as much for the rest of the site: cold, mintlify/docs took
  // 4.2 s in walk order and 3.4 s sorted, dify-docs 3.5 s and 2.6 s.
  toParse.sort((a, b) => a.text.length - b.text.length);
  const fresh = await parseAndCache(toParse);
  for (const [n, page] of toParse.entries()) parsed.set(page.path, fresh[n] as ParsedPage);
  // In the order asked, so findings come out in a stable order.
  return new Map(
    paths.filter((path) => parsed.has(path)).map((path) => [path, parsed.get(path) as ParsedPage]),
  );
}

/** The findings of {@link checkDocumentation}: empty when the documentation is sound. */
export async function validateDocumentation(target: string | DocsTree): Promise<ValidationFinding[]> {
  return (await checkDocumentation(target)).findings;
}

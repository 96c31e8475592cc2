import { open, realpath, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import { walkFiles } from '../walk.ts';
import { READ_FLAGS } from '../workspace.ts';
import { type ParsedPage, parsePage } from './markdown.ts';
import { type DocsSite, readSiteConfig, SITE_CONFIG_NAMES } from './sites.ts';

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
const PAGE_BATCH = 64;
const PAGE_EXTENSIONS = new Set(['.md', '.mdx']);
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

async function readSmallTextFile(absolute: string, maxBytes: number): Promise<string | null> {
  const info = await stat(absolute).catch(() => null);
  if (info === null || !info.isFile() || info.size > maxBytes) return null;
  const handle = await open(absolute, READ_FLAGS).catch(() => null);
  if (handle === null) return null;
  try {
    return (await handle.readFile()).toString('utf8');
  } finally {
    await handle.close();
  }
}

// Parsing is most of validation's cost (about 0.5 ms a page), and a turn validates the same
// working copy several times (the validate tool, then before committing): pages unchanged
// since the last run (same inode, size, mtime and ctime) reuse their parse.
const PARSE_CACHE_LIMIT = 50_000;
const parseCache = new Map<string, { signature: string; parsed: ParsedPage }>();

async function parseCached(absolute: string, format: 'md' | 'mdx'): Promise<ParsedPage | null> {
  const info = await stat(absolute, { bigint: true }).catch(() => null);
  if (info === null || !info.isFile() || info.size > MAX_PAGE_BYTES) return null;
  const key = `${format}:${absolute}`;
  const signature = `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  const cached = parseCache.get(key);
  if (cached?.signature === signature) return cached.parsed;
  const text = await readSmallTextFile(absolute, MAX_PAGE_BYTES);
  if (text === null) return null;
  const parsed = parsePage(text, format);
  parseCache.delete(key);
  parseCache.set(key, { signature, parsed });
  if (parseCache.size > PARSE_CACHE_LIMIT) {
    const oldest = parseCache.keys().next().value;
    if (oldest !== undefined) parseCache.delete(oldest);
  }
  return parsed;
}

/** Every file and directory of the repository, to resolve links against without touching the disk again. */
class RepositoryIndex {
  readonly files = new Set<string>();
  readonly directories = new Set<string>(['.']);

  add(relative: string): void {
    this.files.add(relative);
    for (
      let dir = posix.dirname(relative);
      dir !== '.' && !this.directories.has(dir);
      dir = posix.dirname(dir)
    ) {
      this.directories.add(dir);
    }
  }

  /** The page or file a path without its extension stands for, as docs sites resolve it. */
  resolvePage(target: string): string | null {
    const base = target.replace(/\/+$/, '') || '.';
    const candidates = [
      base,
      `${base}.mdx`,
      `${base}.md`,
      posix.join(base, 'index.mdx'),
      posix.join(base, 'index.md'),
      posix.join(base, 'README.md'),
    ];
    return candidates.find((candidate) => this.files.has(candidate)) ?? null;
  }
}

function siteFor(page: string, sites: DocsSite[]): DocsSite | null {
  let best: DocsSite | null = null;
  for (const site of sites) {
    const inside = site.root === '.' || page === site.root || page.startsWith(`${site.root}/`);
    if (inside && (best === null || site.root.length > best.root.length)) best = site;
  }
  return best;
}

/** Where a link inside `page` leads, or null for links this check leaves alone (external, anchors, templated). */
function linkTarget(url: string, page: string, siteRoot: string): string | null {
  if (url === '' || url.startsWith('#') || url.startsWith('//') || HAS_SCHEME.test(url) || /[{}]/.test(url))
    return null;
  const path = url.replace(/[?#].*$/, '');
  if (path === '') return null;
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Keep the raw path; a malformed escape is as good a name as any for a missing file.
  }
  const target = decoded.startsWith('/')
    ? posix.normalize(posix.join(siteRoot, decoded))
    : posix.normalize(posix.join(posix.dirname(page), decoded));
  return target.length > 1 ? target.replace(/\/+$/, '') : target;
}

function isOutside(target: string): boolean {
  return target === '..' || target.startsWith('../');
}

function checkReferences(
  page: string,
  references: ParsedPage['references'],
  site: DocsSite | null,
  index: RepositoryIndex,
): ValidationFinding[] {
  const siteRoot = site?.root ?? '.';
  // A link to a bare directory works on a code host (it lists the directory), not on a Mintlify site.
  const directoriesResolve = site?.kind !== 'mintlify';
  const findings: ValidationFinding[] = [];
  for (const reference of references) {
    // Bare import specifiers ("react", "@/components/x") come from packages or aliases, not files.
    if (reference.kind === 'import' && !/^\.{0,2}\//.test(reference.url)) continue;
    const target = linkTarget(reference.url, page, siteRoot);
    if (target === null) continue;
    const rule = reference.kind === 'import' ? 'broken-import' : 'broken-link';
    const base = { file: page, ...(reference.line === undefined ? {} : { line: reference.line }), rule };
    if (isOutside(target)) {
      findings.push({ ...base, message: `${reference.url} points outside the repository` });
    } else if (index.resolvePage(target) === null && !(directoriesResolve && index.directories.has(target))) {
      findings.push({ ...base, message: `${reference.url} points at a page or file that does not exist` });
    }
  }
  return findings;
}

function checkNavigation(site: DocsSite, index: RepositoryIndex): ValidationFinding[] {
  const findings: ValidationFinding[] = [];
  for (const entry of site.navigation) {
    const target = posix.normalize(posix.join(site.root, entry.page.replace(/^\/+/, '')));
    // mkdocs names files (`guides/auth.md`); Mintlify names pages without their extension.
    const found =
      !isOutside(target) &&
      (site.kind === 'mkdocs'
        ? index.resolvePage(target) !== null
        : index.files.has(`${target}.mdx`) || index.files.has(`${target}.md`));
    if (!found) {
      findings.push({
        file: site.config,
        ...(entry.line === undefined ? {} : { line: entry.line }),
        rule: 'navigation',
        message: `Navigation entry "${entry.page}" points at a page that does not exist`,
      });
    }
  }
  return findings;
}

/**
 * Checks what breaks a documentation site: pages whose Markdown/MDX does not parse, invalid
 * YAML frontmatter, internal links, images and imports to missing files, and navigation
 * entries in docs.json, mint.json or mkdocs.yml that point at missing pages. Symbolic links
 * are not followed, and `.git`, `node_modules` and hidden directories are not checked.
 */
export async function checkDocumentation(workdir: string): Promise<ValidationReport> {
  const root = await realpath(workdir);
  const index = new RepositoryIndex();
  const pages: { relative: string; absolute: string }[] = [];
  const configs: { relative: string; absolute: string }[] = [];
  for await (const entry of walkFiles({ absolute: root, relative: '.' })) {
    index.add(entry.relative);
    if (entry.kind !== 'file' || entry.relative.split('/').some((part) => part.startsWith('.'))) continue;
    if (PAGE_EXTENSIONS.has(posix.extname(entry.relative).toLowerCase())) pages.push(entry);
    else if (SITE_CONFIG_NAMES.has(posix.basename(entry.relative))) configs.push(entry);
  }

  const findings: ValidationFinding[] = [];
  const sites: DocsSite[] = [];
  for (const config of configs) {
    const raw = await readSmallTextFile(config.absolute, MAX_PAGE_BYTES);
    if (raw === null) continue;
    const { site, problems } = readSiteConfig(config.relative, raw);
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
    findings.push(...checkNavigation(site, index));
  }

  let pagesChecked = 0;
  // Pages are read (or found in the cache) a batch at a time, then checked in order.
  for (let i = 0; i < pages.length; i += PAGE_BATCH) {
    const batch = pages.slice(i, i + PAGE_BATCH).map((page) => {
      const site = siteFor(page.relative, sites);
      // Mintlify reads .md pages as MDX too; elsewhere .md is CommonMark, which accepts any input.
      const format: 'md' | 'mdx' =
        page.relative.toLowerCase().endsWith('.mdx') || site?.kind === 'mintlify' ? 'mdx' : 'md';
      return { page, site, format };
    });
    const parsedBatch = await Promise.all(
      batch.map(({ page, format }) => parseCached(page.absolute, format)),
    );
    for (const [n, { page, site }] of batch.entries()) {
      const parsed = parsedBatch[n];
      if (parsed === null || parsed === undefined) continue;
      pagesChecked++;
      for (const problem of parsed.problems) {
        findings.push({
          file: page.relative,
          ...(problem.line === undefined ? {} : { line: problem.line }),
          rule: problem.rule,
          message: problem.message,
        });
      }
      findings.push(...checkReferences(page.relative, parsed.references, site, index));
    }
  }

  findings.sort((a, b) => (a.file === b.file ? (a.line ?? 0) - (b.line ?? 0) : a.file < b.file ? -1 : 1));
  return { findings, pagesChecked };
}

/** The findings of {@link checkDocumentation}: empty when the documentation is sound. */
export async function validateDocumentation(workdir: string): Promise<ValidationFinding[]> {
  return (await checkDocumentation(workdir)).findings;
}

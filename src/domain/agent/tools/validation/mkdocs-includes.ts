import { posix } from 'node:path';
import type { ParsedPage } from './markdown.ts';
import type { RepositoryIndex } from './repository-index.ts';
import type { DocsSite } from './sites/site.ts';

/**
 * The files mkdocs pages include as text (`{!…!}`, `--8<--`, pymdownx.snippets' `auto_append`),
 * each with the pages it ends up in: an include of an include ends up in the outer page. The
 * include extension must be enabled in mkdocs.yml; files are looked for under its `base_path`,
 * then beside the including page.
 */
export function mkdocsIncludes(
  sites: readonly DocsSite[],
  siteOf: (file: string) => DocsSite | null,
  parsed: ReadonlyMap<string, Pick<ParsedPage, 'includes'>>,
  index: RepositoryIndex,
): Map<string, string[]> {
  const direct = new Map<string, Set<string>>();
  const add = (file: string, includer: string) => {
    if (file === includer) return;
    const set = direct.get(file) ?? new Set<string>();
    set.add(includer);
    direct.set(file, set);
  };
  for (const site of sites) {
    const settings = site.mkdocs?.includes;
    if (site.kind !== 'mkdocs' || !settings) continue;
    const locate = (path: string, bases: string[], from: string): string | null => {
      for (const folder of [...bases, posix.dirname(from)]) {
        const file = posix.normalize(posix.join(folder, path));
        if (!file.startsWith('../') && index.files.has(file)) return file;
      }
      return null;
    };
    for (const [page, { includes }] of parsed) {
      if (siteOf(page) !== site) continue;
      for (const include of includes) {
        const bases = settings.bases[include.syntax];
        if (bases === undefined) continue; // the extension is off: the directive is plain text
        const file = locate(include.path, bases, page);
        if (file !== null) add(file, page);
      }
      for (const appended of settings.autoAppend) {
        const file = locate(appended, settings.bases.snippets ?? [], page);
        if (file !== null) add(file, page);
      }
    }
  }
  // Follow includes of includes up to the pages that are not themselves included.
  const resolved = new Map<string, string[]>();
  const pagesOf = (file: string, seen: Set<string>): string[] => {
    const known = resolved.get(file);
    if (known) return known;
    const out = new Set<string>();
    for (const includer of direct.get(file) ?? []) {
      if (seen.has(includer)) continue;
      if (direct.has(includer)) for (const page of pagesOf(includer, new Set([...seen, file]))) out.add(page);
      else out.add(includer);
    }
    const list = [...out];
    resolved.set(file, list);
    return list;
  };
  for (const file of direct.keys()) pagesOf(file, new Set([file]));
  return resolved;
}

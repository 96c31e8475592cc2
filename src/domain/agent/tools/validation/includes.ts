/**
 * A file a page pulls in as text before Markdown sees it: `{!file.md!}` (markdown-include) or
 * `--8<-- "file.md"` (pymdownx.snippets, also its block form). The included text becomes part
 * of the page, so its links resolve from the page, not from where the file lives.
 */
export interface PageInclude {
  path: string;
  syntax: 'markdown-include' | 'snippets';
}

const MARKDOWN_INCLUDE = /\{!>?\s*([^!\n]+?)\s*!(?:[^}\n]*)\}/g;
const SNIPPET_MARKER = /^\s*-+8<-+(?:\s+(.*?))?\s*$/;

/** The includes of a page's text, in order (line ranges and sections dropped from the names). */
export function findIncludes(text: string): PageInclude[] {
  if (!text.includes('{!') && !text.includes('8<-')) return [];
  const found: PageInclude[] = [];
  for (const match of text.matchAll(MARKDOWN_INCLUDE)) {
    found.push({ path: withoutSelector(match[1] ?? ''), syntax: 'markdown-include' });
  }
  let inBlock = false;
  for (const line of text.split('\n')) {
    const marker = SNIPPET_MARKER.exec(line);
    if (marker) {
      const target = marker[1];
      if (target === undefined || target === '') inBlock = !inBlock;
      else if (/^(["']).+\1$/.test(target)) {
        found.push({ path: withoutSelector(target.slice(1, -1)), syntax: 'snippets' });
      }
      continue;
    }
    const name = line.trim();
    // Inside a block, each line names a file; `;` comments one out.
    if (inBlock && name !== '' && !name.startsWith(';'))
      found.push({ path: withoutSelector(name), syntax: 'snippets' });
  }
  return found.filter((include) => include.path !== '' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(include.path));
}

/** `file.md:3:9` and `file.md:section` name `file.md`. */
function withoutSelector(path: string): string {
  return path.trim().replace(/^(.*?\.[A-Za-z0-9]+):.*$/, '$1');
}

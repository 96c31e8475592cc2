import { canonicalPercentEncoding } from './escapes.ts';

/** A page path as the exports count it, and what the raw path said about the fetch. */
export interface PagePath {
  path: string;
  markdownPath: boolean;
  llmsTxt: boolean;
}

/** How paths name pages (part of the project's page-view rules, see page-rules.ts). */
export interface PageNaming {
  /** `/guide.html` (and `.htm`) counts as `/guide`. */
  stripHtmlExtension: boolean;
  /** `/guide/index.html`, `/guide/index.md`, `/guide/index` count as `/guide`. */
  mergeIndexPages: boolean;
}

const DEFAULT_NAMING: PageNaming = { stripHtmlExtension: true, mergeIndexPages: true };

export const MAX_PATH_LENGTH = 2048;

/**
 * Normalises a requested path (or full URL) to its page: `canonicalPath`, then `pageOf`. Returns
 * null when the value is not a path.
 */
export function normalisePath(raw: string, naming: PageNaming = DEFAULT_NAMING): PagePath | null {
  const path = canonicalPath(raw);
  return path === null ? null : pageOf(path, naming);
}

/**
 * The path of a request, spelled one way: the query and fragment dropped, repeated slashes
 * collapsed, percent-escapes made canonical (`/caf%c3%a9` → `/café`; see escapes.ts). Case is
 * kept: servers differ. Null when the value is not a path.
 */
export function canonicalPath(raw: string): string | null {
  let value = raw.trim();
  if (/^https?:\/\//i.test(value)) {
    if (!URL.canParse(value)) return null;
    value = new URL(value).pathname;
  }
  const cut = value.search(/[?#]/);
  if (cut >= 0) value = value.slice(0, cut);
  if (!value.startsWith('/') || value.length > MAX_PATH_LENGTH) return null;
  // Control characters and spaces never appear in a real request path.
  if (hasSpaceOrControl(value)) return null;
  if (value.includes('//')) value = value.replace(/\/{2,}/g, '/');
  return canonicalPercentEncoding(value);
}

/**
 * The page a canonical path shows: a `.md` suffix dropped (`/quickstart.md` → `/quickstart`),
 * then, as the naming says, `.html` and index pages (`/guide/index.html` → `/guide`), and the
 * trailing slash.
 */
export function pageOf(path: string, naming: PageNaming): PagePath {
  let value = path;
  let markdownPath = false;
  if (/\.md$/i.test(value)) {
    markdownPath = true;
    value = value.slice(0, -3);
  } else if (naming.stripHtmlExtension && /\.html?$/i.test(value)) {
    value = value.slice(0, value.lastIndexOf('.'));
  }
  if (naming.mergeIndexPages && /\/index$/i.test(value)) value = value.slice(0, -'index'.length);
  if (value.length > 1 && value.endsWith('/')) value = value.replace(/\/+$/, '') || '/';
  const llmsTxt = /\/llms(-full)?\.txt$/i.test(value);
  return { path: value, markdownPath, llmsTxt };
}

function hasSpaceOrControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return true;
  }
  return false;
}

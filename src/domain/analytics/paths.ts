/** A page path as the exports count it, and what the raw path said about the fetch. */
export interface PagePath {
  path: string;
  markdownPath: boolean;
  llmsTxt: boolean;
}

export const MAX_PATH_LENGTH = 2048;

/**
 * Normalises a requested path (or full URL) to its page: drops the query and fragment, the
 * trailing slash and a `.md` suffix (`/quickstart.md` → `/quickstart`, `/guide/index.md` →
 * `/guide`), and collapses repeated slashes. Case and percent-encoding are kept: servers differ.
 * Returns null when the value is not a path.
 */
export function normalisePath(raw: string): PagePath | null {
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
  value = value.replace(/\/{2,}/g, '/');

  let markdownPath = false;
  if (/\.md$/i.test(value)) {
    markdownPath = true;
    value = value.slice(0, -3);
    if (/\/index$/i.test(value)) value = value.slice(0, -'index'.length);
  }
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

/**
 * What a job's Markdown (the agent's words, a turn's summary) may link to once rendered. The
 * text comes from a model that read the repository and maybe the web, so it is untrusted: links
 * go to http(s) and mailto only (no `javascript:`, `data:`, or paths that would resolve against
 * the dashboard itself), and images are never loaded (the dashboard's CSP allows only its own,
 * and a remote image would tell its host who read the page); their alt text stands in.
 */

const LINK_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/** The link as written when it is an absolute http(s) or mailto URL; null otherwise (no link). */
export function safeLink(url: string): string | null {
  const trimmed = url.trim();
  // Absolute only: a relative link would open a dashboard page, not what the agent meant.
  if (!/^(https?:\/\/|mailto:)/i.test(trimmed)) return null;
  try {
    return LINK_PROTOCOLS.has(new URL(trimmed).protocol) ? trimmed : null;
  } catch {
    return null;
  }
}

/** react-markdown's `urlTransform`: links checked, every other URL (an image's source) dropped. */
export function markdownUrl(url: string, key: string): string | null {
  return key === 'href' ? safeLink(url) : null;
}

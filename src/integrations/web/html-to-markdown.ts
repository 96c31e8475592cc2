import type { Element, ElementContent, Nodes, Root } from 'hast';
import { fromParse5 } from 'hast-util-from-parse5';
import { toMdast } from 'hast-util-to-mdast';
import { gfmToMarkdown } from 'mdast-util-gfm';
import { toMarkdown } from 'mdast-util-to-markdown';
import { parse } from 'parse5';

/** Elements that are page furniture or machinery, never the page's text. */
const DROPPED = new Set([
  'nav',
  'button',
  'dialog',
  'form',
  'iframe',
  'noscript',
  'object',
  'embed',
  'canvas',
  'svg',
  'script',
  'style',
  'template',
]);

/**
 * A page's HTML as Markdown, with its title, by the syntax-tree utilities (the family MDX is
 * built on): parse5 parses as a browser does, hast-util-to-mdast maps the elements (tables,
 * code blocks with their language, definition lists), mdast-util-to-markdown writes GFM.
 * Parsed without source positions: they are not needed here, and they made the tree, which
 * hast-util-to-mdast copies whole, more than twice as slow to convert (2.3 MB: 8.8 s → 3.6 s).
 * It takes a few seconds for a page of megabytes: run it off the main thread (see
 * html-to-markdown-worker.ts).
 * Only the page's main content is kept when it marks one (`<main>`, `role="main"`, else
 * `<article>`); navigation, buttons, forms, scripts, styles and hidden elements are dropped.
 * Links and images are made absolute against the page's URL (or its `<base>`), so the model
 * can cite them or read on; inline `data:` images keep only their alt text.
 */
export function htmlToMarkdown(html: string, pageUrl: string): { title: string | null; markdown: string } {
  const tree = fromParse5(parse(html)) as Root;
  const base = baseUrl(tree, pageUrl);
  const title = textOf(find(tree, (e) => e.tagName === 'title')) || null;
  const content =
    find(tree, (e) => e.tagName === 'main' || e.properties.role === 'main') ??
    find(tree, (e) => e.tagName === 'article') ??
    find(tree, (e) => e.tagName === 'body');
  const kept: Root = {
    type: 'root',
    children: content ? clean([content], base, content.tagName === 'body') : [],
  };
  const markdown = toMarkdown(toMdast(kept), {
    extensions: [gfmToMarkdown()],
    bullet: '-',
    fences: true,
    resourceLink: true,
  }).trim();
  const heading = /^#{1,6} (.+)$/m.exec(markdown)?.[1]?.trim();
  return { title: title ?? heading ?? null, markdown };
}

/** The children worth keeping, with their URLs made absolute; `chrome`: header and footer are the site's. */
function clean(nodes: ElementContent[], base: string, chrome: boolean): ElementContent[] {
  const out: ElementContent[] = [];
  for (const node of nodes) {
    if (node.type === 'comment') continue;
    if (node.type !== 'element') {
      out.push(node);
      continue;
    }
    const props = node.properties;
    if (DROPPED.has(node.tagName) || props.hidden !== undefined || props.ariaHidden === 'true') continue;
    // Without a main element, the body's header and footer are the site's, not the page's.
    if (chrome && (node.tagName === 'header' || node.tagName === 'footer')) continue;
    if (node.tagName === 'img' && String(props.src ?? '').startsWith('data:')) {
      const alt = String(props.alt ?? '').trim();
      if (alt) out.push({ type: 'text', value: alt });
      continue;
    }
    const element: Element = { ...node, properties: { ...props }, children: [] };
    for (const name of ['href', 'src'] as const) {
      const value = element.properties[name];
      if (typeof value !== 'string') continue;
      const url = URL.parse(value, base);
      if (url && (url.protocol === 'http:' || url.protocol === 'https:')) element.properties[name] = url.href;
      // javascript:, data: and other links lead nowhere a reader can follow: keep the text only.
      else delete element.properties[name];
    }
    // A tag with no link left reads as its text.
    if (element.tagName === 'a' && element.properties.href === undefined) element.tagName = 'span';
    if (element.tagName === 'base') continue;
    element.children = clean(node.children, base, chrome && !isLandmark(node));
    out.push(element);
  }
  return out;
}

const isLandmark = (element: Element) => element.tagName === 'article' || element.tagName === 'section';

function baseUrl(tree: Root, pageUrl: string): string {
  const href = find(tree, (e) => e.tagName === 'base' && typeof e.properties.href === 'string')?.properties
    .href;
  return (typeof href === 'string' && URL.parse(href, pageUrl)?.href) || pageUrl;
}

/** The first element, depth first, that `match` accepts. */
function find(node: Nodes, match: (element: Element) => boolean): Element | null {
  if (node.type === 'element' && match(node)) return node;
  if (node.type !== 'element' && node.type !== 'root') return null;
  for (const child of node.children) {
    const found = find(child, match);
    if (found) return found;
  }
  return null;
}

function textOf(node: Nodes | null): string {
  if (node === null) return '';
  if (node.type === 'text') return node.value.replace(/\s+/g, ' ').trim();
  if (node.type !== 'element' && node.type !== 'root') return '';
  return node.children
    .map((child) => textOf(child))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

import { createProcessor } from '@mdx-js/mdx';
import { parseDocument } from 'yaml';
import { findIncludes, type PageInclude } from './includes.ts';

/** Something a page points at: a link, an image, a component's href/src, an import. */
export interface PageReference {
  url: string;
  line: number | undefined;
  kind: 'link' | 'import';
}

export interface PageProblem {
  line: number | undefined;
  rule: 'frontmatter' | 'syntax';
  message: string;
}

export interface ParsedPage {
  problems: PageProblem[];
  references: PageReference[];
  /** Frontmatter fields that change where a page is served (Docusaurus `id` and `slug`). */
  route: { id?: string; slug?: string };
  /** Files the page includes as text (mkdocs' `{!…!}` and `--8<--`). */
  includes: PageInclude[];
}

// The slice of mdast/MDX-AST this module reads, kept structural so the AST packages stay internal.
interface AstNode {
  type: string;
  name?: string | null;
  url?: string;
  identifier?: string;
  attributes?: { type: string; name?: string; value?: unknown }[];
  children?: AstNode[];
  position?: { start: { line: number } };
  data?: { estree?: { body?: { type: string; source?: { value?: unknown } }[] } };
}

const processors = {
  mdx: createProcessor({ format: 'mdx' }),
  md: createProcessor({ format: 'md' }),
};

const FRONTMATTER_OPEN = /^\uFEFF?---[ \t]*\r?\n/;

/**
 * Separates YAML frontmatter from the body. The body keeps the frontmatter's lines as empty
 * lines, so line numbers from the Markdown parser still match the file.
 */
export function splitFrontmatter(text: string): {
  yaml: string | null;
  body: string;
  problem: PageProblem | null;
} {
  const open = FRONTMATTER_OPEN.exec(text);
  if (open === null) return { yaml: null, body: text, problem: null };
  const lines = text.slice(open[0].length).split('\n');
  const close = lines.findIndex((line) => /^(---|\.\.\.)[ \t]*\r?$/.test(line));
  if (close === -1) {
    return {
      yaml: null,
      body: text,
      problem: { line: 1, rule: 'frontmatter', message: 'Frontmatter opens with --- but is never closed' },
    };
  }
  const yaml = lines
    .slice(0, close)
    .map((line) => line.replace(/\r$/, ''))
    .join('\n');
  const rest = lines.slice(close + 1).join('\n');
  return { yaml, body: '\n'.repeat(close + 2) + rest, problem: null };
}

function readFrontmatter(yaml: string): { problems: PageProblem[]; route: ParsedPage['route'] } {
  const document = parseDocument(yaml, { prettyErrors: true });
  const problems = document.errors.map((error) => ({
    // +1: the opening --- line comes before the YAML.
    line: error.linePos === undefined ? undefined : error.linePos[0].line + 1,
    rule: 'frontmatter' as const,
    message: `Invalid YAML frontmatter: ${(error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')}`,
  }));
  if (problems.length > 0) return { problems, route: {} };
  const value: unknown = document.toJS();
  if (value === null || value === undefined) return { problems: [], route: {} };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return {
      problems: [
        { line: 2, rule: 'frontmatter', message: 'Frontmatter must be a mapping of keys to values' },
      ],
      route: {},
    };
  }
  const fields = value as Record<string, unknown>;
  const route: ParsedPage['route'] = {};
  if (typeof fields.id === 'string' || typeof fields.id === 'number') route.id = String(fields.id);
  if (typeof fields.slug === 'string') route.slug = fields.slug;
  return { problems: [], route };
}

// Elements whose `src` names a file the page shows; elsewhere `src` is a component's own
// prop (`<Feedback src="docs-agent" />`), not a link.
const MEDIA_ELEMENTS = new Set([
  'img',
  'image',
  'video',
  'audio',
  'source',
  'track',
  'iframe',
  'embed',
  'frame',
]);

/** The attribute of a JSX element that links somewhere, if this one does. */
function linkAttribute(element: string, attribute: string): boolean {
  if (attribute === 'href') return true;
  if (attribute === 'src') return MEDIA_ELEMENTS.has(element.toLowerCase());
  // Docusaurus' <Link to="/docs/intro">.
  return attribute === 'to' && element === 'Link';
}

interface ParserMessage {
  reason?: string;
  message?: string;
  line?: number;
  place?: { line?: number; start?: { line?: number } };
}

function syntaxProblem(error: unknown): PageProblem {
  const message = error as ParserMessage;
  const reason = message.reason ?? message.message ?? 'The page does not parse';
  const position = /\((\d+):\d+(?:-\d+:\d+)?\)/.exec(reason);
  const line =
    message.line ?? message.place?.start?.line ?? message.place?.line ?? Number(position?.[1] ?? Number.NaN);
  return { line: Number.isFinite(line) ? line : undefined, rule: 'syntax', message: reason };
}

interface Collected {
  references: PageReference[];
  /** Link reference definitions (`[id]: url`) by identifier: they count only where a link uses them. */
  definitions: Map<string, PageReference>;
  used: Set<string>;
}

function collectReferences(node: AstNode, out: Collected): void {
  const line = node.position?.start.line;
  if ((node.type === 'link' || node.type === 'image') && typeof node.url === 'string') {
    out.references.push({ url: node.url, line, kind: 'link' });
  }
  if (node.type === 'definition' && typeof node.url === 'string' && typeof node.identifier === 'string') {
    // The first definition of an identifier wins, as in CommonMark.
    if (!out.definitions.has(node.identifier))
      out.definitions.set(node.identifier, { url: node.url, line, kind: 'link' });
  }
  if (
    (node.type === 'linkReference' || node.type === 'imageReference') &&
    typeof node.identifier === 'string'
  ) {
    out.used.add(node.identifier);
  }
  if (node.type === 'mdxJsxFlowElement' || node.type === 'mdxJsxTextElement') {
    for (const attribute of node.attributes ?? []) {
      if (
        attribute.type === 'mdxJsxAttribute' &&
        typeof attribute.name === 'string' &&
        linkAttribute(node.name ?? '', attribute.name) &&
        typeof attribute.value === 'string'
      ) {
        out.references.push({ url: attribute.value, line, kind: 'link' });
      }
    }
  }
  if (node.type === 'mdxjsEsm') {
    for (const statement of node.data?.estree?.body ?? []) {
      if (statement.type === 'ImportDeclaration' && typeof statement.source?.value === 'string') {
        out.references.push({ url: statement.source.value, line, kind: 'import' });
      }
    }
  }
  for (const child of node.children ?? []) collectReferences(child, out);
}

/**
 * Parses one page: its frontmatter as YAML, its body as MDX (or CommonMark, which accepts any
 * input), and collects what it links to. Parsing stops at the first syntax error, as MDX does.
 */
export function parsePage(text: string, format: 'md' | 'mdx'): ParsedPage {
  const { yaml, body, problem } = splitFrontmatter(text);
  const problems: PageProblem[] = problem === null ? [] : [problem];
  const frontmatter = yaml === null ? null : readFrontmatter(yaml);
  if (frontmatter) problems.push(...frontmatter.problems);
  const collected: Collected = { references: [], definitions: new Map(), used: new Set() };
  try {
    const tree = processors[format].parse(body) as unknown as AstNode;
    collectReferences(tree, collected);
  } catch (error) {
    problems.push(syntaxProblem(error));
  }
  // A definition nothing uses is not rendered: it breaks nothing on the site.
  const references = [...collected.references];
  for (const [identifier, definition] of collected.definitions) {
    if (collected.used.has(identifier)) references.push(definition);
  }
  references.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return { problems, references, route: frontmatter?.route ?? {}, includes: findIncludes(body) };
}

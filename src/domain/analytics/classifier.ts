import { isbot } from 'isbot';
import { AGENT_LIST_VERSION, AGENT_PATTERNS, type AgentPattern } from './agent-list.ts';
import type { Category } from './categories.ts';

/** Stored with every view so it can be reclassified when the list changes. */
export const CLASSIFIER_VERSION = AGENT_LIST_VERSION;

export interface Classification {
  category: Category;
  /** A display name: the recognised agent, "Browser", or a generic label. */
  agent: string;
}

/** How the page was fetched, beyond the user agent. */
export interface FetchHints {
  /** The path ended in `.md`. */
  markdownPath: boolean;
  /** The Accept header asked for `text/markdown`. */
  acceptsMarkdown: boolean;
  /** The path was llms.txt or llms-full.txt. */
  llmsTxt: boolean;
}

export const UNRECOGNISED_AGENT = 'Unrecognised client';
export const OTHER_BOT = 'Other bot';
export const BROWSER = 'Browser';

const COMPILED = AGENT_PATTERNS.map((entry) => ({ entry, regex: new RegExp(entry.pattern, 'i') }));
// A single alternation rejects the common case (a browser) in one pass instead of ~120.
const ANY_PATTERN = new RegExp(AGENT_PATTERNS.map((p) => `(?:${p.pattern})`).join('|'), 'i');

// User agents repeat heavily in real traffic; the match is pure, so remember it.
const MATCH_CACHE_LIMIT = 20_000;
const matchCache = new Map<string, AgentPattern | null>();

function matchAgent(userAgent: string): AgentPattern | null {
  const cached = matchCache.get(userAgent);
  if (cached !== undefined) return cached;
  let found: AgentPattern | null = null;
  if (ANY_PATTERN.test(userAgent)) {
    found = COMPILED.find((c) => c.regex.test(userAgent))?.entry ?? null;
  }
  if (matchCache.size >= MATCH_CACHE_LIMIT) matchCache.clear();
  matchCache.set(userAgent, found);
  return found;
}

/**
 * Classifies one view. Named agents keep their category whatever they fetch; HTTP libraries,
 * generic bots and empty user agents are `bot`, unless they fetch Markdown or llms.txt, which
 * only a model wants: then `ai`. A browser is `human`, unless it asks for `text/markdown`
 * (browsers never do on their own; agents that borrow a browser's user agent do).
 */
export function classify(userAgent: string, hints: FetchHints): Classification {
  const cache =
    resultCaches[(hints.markdownPath ? 1 : 0) | (hints.acceptsMarkdown ? 2 : 0) | (hints.llmsTxt ? 4 : 0)];
  const cached = cache?.get(userAgent);
  if (cached) return cached;
  const result = classifyUncached(userAgent, hints);
  if (cache) {
    if (cache.size >= MATCH_CACHE_LIMIT) cache.clear();
    cache.set(userAgent, result);
  }
  return result;
}

// One cache per combination of fetch hints: the classification is pure.
const resultCaches = Array.from({ length: 8 }, () => new Map<string, Classification>());

function classifyUncached(userAgent: string, hints: FetchHints): Classification {
  const ua = userAgent.trim();
  const wantsMarkdown = hints.markdownPath || hints.acceptsMarkdown || hints.llmsTxt;
  const named = ua === '' ? null : matchAgent(ua);
  if (named) {
    if (named.library && wantsMarkdown) return { category: 'ai', agent: named.name };
    return { category: named.category, agent: named.name };
  }
  if (ua === '' || isbot(ua)) {
    return wantsMarkdown
      ? { category: 'ai', agent: UNRECOGNISED_AGENT }
      : { category: 'bot', agent: OTHER_BOT };
  }
  if (hints.acceptsMarkdown) return { category: 'ai', agent: UNRECOGNISED_AGENT };
  return { category: 'human', agent: BROWSER };
}

/** True when an Accept header asks for Markdown (`text/markdown`, any parameters, q > 0). */
export function acceptsMarkdown(accept: string | undefined | null): boolean {
  if (!accept) return false;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (type !== 'text/markdown' && type !== 'text/x-markdown') continue;
    const q = params.find((p) => p.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

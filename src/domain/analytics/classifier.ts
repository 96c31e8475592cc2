import { isbot } from 'isbot';
import { AGENT_LIST_VERSION, AGENT_PATTERNS, type AgentPattern } from './agent-list.ts';
import { FirstMatch } from './agents/first-match.ts';
import type { Category, Purpose } from './categories.ts';

/** Stored with every view so it can be reclassified when the list changes. */
export const CLASSIFIER_VERSION = AGENT_LIST_VERSION;

export interface Classification {
  category: Category;
  /** A display name: the recognised agent, "Browser", or a generic label. */
  agent: string;
  /** Why an AI client fetched the page; null for human, search and bot views. */
  purpose: Purpose | null;
  /** Who runs the agent (OpenAI, Anthropic, …), when the list knows. */
  operator: string | null;
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

const AGENTS = new FirstMatch(AGENT_PATTERNS);

// User agents repeat heavily in real traffic; the match is pure, so remember it.
const MATCH_CACHE_LIMIT = 20_000;
const matchCache = new Map<string, AgentPattern | null>();

function matchAgent(userAgent: string): AgentPattern | null {
  const cached = matchCache.get(userAgent);
  if (cached !== undefined) return cached;
  const found = AGENTS.find(userAgent);
  if (matchCache.size >= MATCH_CACHE_LIMIT) matchCache.clear();
  matchCache.set(userAgent, found);
  return found;
}

/** The named agent a user agent matches in the list, if any (its first match). */
export function recognise(userAgent: string): AgentPattern | null {
  const ua = userAgent.trim();
  return ua === '' ? null : matchAgent(ua);
}

/**
 * Classifies one view. Named agents keep their category whatever they fetch; HTTP libraries,
 * generic bots and empty user agents are `bot`, unless they fetch Markdown or llms.txt, which
 * only a model wants: then `ai`. A browser (or a desktop app's built-in one) is `human`, unless
 * it asks for `text/markdown` (browsers never do on their own; agents that borrow a browser's
 * user agent do).
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

/** Forgets every remembered match (for measuring the classifier on unseen user agents). */
export function clearClassifierCaches(): void {
  matchCache.clear();
  for (const cache of resultCaches) cache.clear();
}

const UNRECOGNISED_AI: Classification = {
  category: 'ai',
  agent: UNRECOGNISED_AGENT,
  purpose: 'assistant',
  operator: null,
};
const GENERIC_BOT: Classification = { category: 'bot', agent: OTHER_BOT, purpose: null, operator: null };

function classifyUncached(userAgent: string, hints: FetchHints): Classification {
  const wantsMarkdown = hints.markdownPath || hints.acceptsMarkdown || hints.llmsTxt;
  const named = recognise(userAgent);
  if (named && named.category !== 'human') {
    // Coding agents fetch docs with plain HTTP libraries: for a person, now.
    if (named.library && wantsMarkdown)
      return { category: 'ai', agent: named.name, purpose: 'assistant', operator: null };
    return { category: named.category, agent: named.name, purpose: named.purpose, operator: named.operator };
  }
  if (!named && (userAgent.trim() === '' || isbot(userAgent))) {
    return wantsMarkdown ? UNRECOGNISED_AI : GENERIC_BOT;
  }
  if (hints.acceptsMarkdown) return UNRECOGNISED_AI;
  return { category: 'human', agent: named ? named.name : BROWSER, purpose: null, operator: null };
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

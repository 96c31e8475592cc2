import { createHash } from 'node:crypto';
import type { AgentPattern } from './agents/agent.ts';
import { CURATED_APPS, CURATED_ASSISTANTS, CURATED_BOTS, CURATED_SEARCH } from './agents/curated.ts';
import { fromAiRobotsTxt, fromCrawlerUserAgents } from './agents/public-lists.ts';

export type { AgentPattern } from './agents/agent.ts';

/**
 * The bundled list of user agents Docwright recognises by name: the AI agents of two public
 * lists — ai.robots.txt (vendored, agents/ai-robots-txt.json) and the `crawler-user-agents`
 * package (pinned) — plus our own curation (agents/curated.ts): coding agents, search
 * engines, other bots, HTTP libraries, desktop apps, and corrections to the lists.
 *
 * Every stored view records `AGENT_LIST_VERSION`, so traffic can be reclassified when the list
 * changes. Any change to the list (a curated entry, a refreshed robots.json, a new
 * crawler-user-agents version) changes `agentListFingerprint()`, and a unit test then fails
 * until the version is bumped and the new fingerprint recorded here.
 */
export const AGENT_LIST_VERSION = 2;
export const AGENT_LIST_FINGERPRINT = 'e34329896d815dc8';

function build(): AgentPattern[] {
  // Drop a public-list token that a curated assistant already names (Claude-User, …).
  const curated = CURATED_ASSISTANTS.map((p) => new RegExp(p.pattern, 'i'));
  const robots = fromAiRobotsTxt().filter((p) => !curated.some((re) => re.test(`${p.name}/1.0`)));
  const ai = [...CURATED_ASSISTANTS, ...robots];
  return [...ai, ...fromCrawlerUserAgents(ai), ...CURATED_APPS, ...CURATED_SEARCH, ...CURATED_BOTS];
}

/**
 * In match order: the first entry whose pattern matches names the agent. AI agents come first
 * (curated ones, which are more specific, before the public lists), then desktop apps, search
 * engines, other bots and HTTP libraries.
 */
export const AGENT_PATTERNS: readonly AgentPattern[] = build();

/** A short hash of the whole list, to notice any change (see AGENT_LIST_VERSION). */
export function agentListFingerprint(): string {
  return createHash('sha256').update(JSON.stringify(AGENT_PATTERNS)).digest('hex').slice(0, 16);
}

/**
 * Each named agent's operator, for the exports' operator breakdown: looked up by the agent name
 * stored with a view, at query time, so a list update applies to views already stored.
 */
export function agentOperators(patterns: readonly AgentPattern[] = AGENT_PATTERNS): Map<string, string> {
  const operators = new Map<string, string>();
  for (const p of patterns)
    if (p.operator !== null && !operators.has(p.name)) operators.set(p.name, p.operator);
  return operators;
}

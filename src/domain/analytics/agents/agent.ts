import type { Category, Purpose } from '../categories.ts';

/** Where an entry of the agent list comes from. */
export type AgentSource = 'curated' | 'ai.robots.txt' | 'crawler-user-agents';

/** One user agent Docwright recognises by name. */
export interface AgentPattern {
  /** Display name, stored with each view; one name is one agent (one purpose, one operator). */
  name: string;
  category: Category;
  /** Set for `ai` (always `assistant`) and `ai_crawler` agents; null for the others. */
  purpose: Purpose | null;
  /** Who runs it (OpenAI, Anthropic, …), when known. */
  operator: string | null;
  /** A regular expression, matched case-insensitively anywhere in the user agent. */
  pattern: string;
  /**
   * A general-purpose HTTP client or headless browser: a `bot` on its own, but coding agents
   * use these to fetch docs, so a Markdown or llms.txt fetch by one counts as `ai`.
   */
  library?: true;
  source: AgentSource;
}

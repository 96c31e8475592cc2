import crawlerUserAgents from 'crawler-user-agents';
import type { Category, Purpose } from '../categories.ts';
import type { AgentPattern } from './agent.ts';
import robots from './ai-robots-txt.json' with { type: 'json' };
import { AI_ROBOTS_CURATION, CRAWLER_LIST_CURATION, OPERATOR_ALIASES } from './curated.ts';
import { FirstMatch } from './first-match.ts';

/**
 * Where the vendored copy of ai.robots.txt's `robots.json` (ai-robots-txt.json beside this
 * file) comes from. To refresh both: `npm run agents:refresh` (see docs/analytics.md).
 */
export { default as AI_ROBOTS_TXT_SOURCE } from './ai-robots-txt.source.json' with { type: 'json' };

interface RobotsEntry {
  operator?: string;
  function?: string;
  has_name_and_version?: boolean;
}

interface CrawlerEntry {
  pattern: string;
  instances: string[];
  tags?: string[];
}

/** ai.robots.txt's function labels (from Known Agents' categories) and what they mean here. */
const FUNCTION_PURPOSES: Readonly<Record<string, Purpose>> = {
  'AI Assistants': 'assistant',
  'AI Agents': 'assistant',
  'AI Coding Agents': 'assistant',
  'AI Search Crawlers': 'search',
  'AI Data Scrapers': 'training',
  'AI data scraper': 'training',
  'AI Data Providers': 'other',
  'Undocumented AI Agents': 'other',
};

/** Older entries describe their function in free text: read the words that say it. */
function purposeOf(entry: RobotsEntry): Purpose {
  const text = entry.function ?? '';
  const labelled = FUNCTION_PURPOSES[text];
  if (labelled) return labelled;
  if (/user[- ]initiated|user prompts|user queries|when prompted/i.test(text)) return 'assistant';
  if (/\btrain|LLM scraper|for use in LLMs/i.test(text)) return 'training';
  if (/\bsearch\b/i.test(text)) return 'search';
  return 'other';
}

/**
 * The operator's name from ai.robots.txt's free text: a Markdown link's text, or the words
 * before "that …", "to …", ", a …" or "(…"; null when it says it does not know.
 */
export function operatorOf(text: string | undefined): string | null {
  if (!text || /unclear|unknown|^https?:|^anyone|^the /i.test(text)) return null;
  const link = /^\[([^\]]+)\]\(/.exec(text);
  const name = link ? (link[1] as string) : (text.split(/,| that | to | \(/)[0] as string).trim();
  if (name === '' || name.split(' ').length > 4) return null;
  return OPERATOR_ALIASES[name] ?? name;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * A robots.txt token as a word of the user agent: not inside another name, an address or a
 * URL (`GoogleOther` does not match `GoogleOther-Image`, nor `OpenAI` `https://openai.com`).
 */
export function tokenPattern(token: string): string {
  return `(?<![\\w.@/-])${escapeRegExp(token)}(?![\\w.@-])`;
}

const categoryFor = (purpose: Purpose | null): Category => (purpose === 'assistant' ? 'ai' : 'ai_crawler');

/** Every AI agent ai.robots.txt names, one entry per token (versions and case folded). */
export function fromAiRobotsTxt(): AgentPattern[] {
  const byToken = new Map<string, AgentPattern>();
  for (const [key, value] of Object.entries(robots as Record<string, RobotsEntry>)) {
    const curation = AI_ROBOTS_CURATION[key] ?? {};
    if (curation.skip) continue;
    // `iaskspider/2.0`, `Brightbot 1.0`: the token is the name, whatever the version.
    const token = key.replace(/[/ ]\d+(?:\.\d+)*$/, '');
    const folded = token.toLowerCase();
    const known = byToken.get(folded);
    if (known) {
      // Keep the first entry; its name as a vendor writes it (Meta-ExternalAgent, not all lower case).
      if (known.name === folded && token !== folded) known.name = token;
      continue;
    }
    const purpose = curation.purpose === undefined ? purposeOf(value) : curation.purpose;
    byToken.set(folded, {
      name: token,
      category: curation.category ?? categoryFor(purpose),
      purpose,
      operator: curation.operator === undefined ? operatorOf(value.operator) : curation.operator,
      pattern: curation.pattern ?? tokenPattern(token),
      source: 'ai.robots.txt',
    });
  }
  return [...byToken.values()];
}

/**
 * crawler-user-agents' AI crawlers that the entries before them do not already recognise
 * (each checked against its example user agents): their patterns as the list gives them.
 */
export function fromCrawlerUserAgents(before: readonly AgentPattern[]): AgentPattern[] {
  const known = new FirstMatch(before);
  const added: AgentPattern[] = [];
  for (const entry of crawlerUserAgents as readonly CrawlerEntry[]) {
    const tags = entry.tags ?? [];
    if (!tags.includes('ai-crawler')) continue;
    const examples = entry.instances.length > 0 ? entry.instances : [plainText(entry.pattern)];
    if (examples.every((ua) => known.find(ua) !== null)) continue;
    const name = plainText(entry.pattern);
    // The same agent under a pattern the token does not match (crawl4ai-adapter/1.0): one name.
    const same = before.find((p) => p.name.toLowerCase() === name.toLowerCase());
    if (same) {
      added.push({ ...same, pattern: entry.pattern, source: 'crawler-user-agents' });
      continue;
    }
    const curation = CRAWLER_LIST_CURATION[entry.pattern] ?? {};
    const purpose = curation.purpose ?? (tags.includes('search-engine') ? 'search' : 'other');
    added.push({
      name,
      category: categoryFor(purpose),
      purpose,
      operator: curation.operator ?? null,
      pattern: entry.pattern,
      source: 'crawler-user-agents',
    });
  }
  return added;
}

/** `newsai\/` → `newsai`, `bigsur\.ai` → `bigsur.ai`: the name a pattern stands for. */
function plainText(pattern: string): string {
  return pattern
    .replace(/\\(.)/g, '$1')
    .replace(/^\^|\$$/g, '')
    .replace(/\/$/, '');
}

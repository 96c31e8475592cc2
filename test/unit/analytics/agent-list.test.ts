import crawlerUserAgents from 'crawler-user-agents';
import topUserAgents from 'top-user-agents';
import { describe, expect, it } from 'vitest';
import {
  AGENT_LIST_FINGERPRINT,
  AGENT_LIST_VERSION,
  AGENT_PATTERNS,
  agentListFingerprint,
} from '../../../src/domain/analytics/agent-list.ts';
import robots from '../../../src/domain/analytics/agents/ai-robots-txt.json' with { type: 'json' };
import { AI_ROBOTS_CURATION } from '../../../src/domain/analytics/agents/curated.ts';
import { requiredLiterals } from '../../../src/domain/analytics/agents/first-match.ts';
import { operatorOf } from '../../../src/domain/analytics/agents/public-lists.ts';
import { classify, type FetchHints, recognise } from '../../../src/domain/analytics/classifier.ts';

const page: FetchHints = { markdownPath: false, acceptsMarkdown: false, llmsTxt: false };
const isAi = (ua: string) => {
  const { category } = classify(ua, page);
  return category === 'ai' || category === 'ai_crawler';
};
const percent = (n: number, of: number) => `${((100 * n) / of).toFixed(1)}%`;

// ai.robots.txt names robots.txt tokens, not user agents: each is tried in the two shapes AI
// agents send (a compatible-style browser string, and the bare token with a version).
const tokens = Object.keys(robots).map((key) => key.replace(/[/ ]\d+(?:\.\d+)*$/, ''));
const tokenAgents = (token: string) => [
  `Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ${token}/1.0; +https://example.com/bot)`,
  `${token}/1.0`,
];
const crawlerExamples = (crawlerUserAgents as ReadonlyArray<{ instances: string[]; tags?: string[] }>)
  .filter((c) => c.tags?.includes('ai-crawler'))
  .flatMap((c) => c.instances);

// ai.robots.txt entries we count as what they mainly are (see AI_ROBOTS_CURATION).
const NOT_AI = ['Applebot', 'Bravebot', 'PetalBot', 'facebookexternalhit'];

describe('the agent list against the public lists (issue 11: ≥ 98% AI, ≥ 99% human)', () => {
  it('counts the AI agents of ai.robots.txt and crawler-user-agents as AI', () => {
    const missedTokens = tokens.filter((t) => !tokenAgents(t).every(isAi));
    const missedExamples = crawlerExamples.filter((ua) => !isAi(ua));
    const total = tokens.length + crawlerExamples.length;
    const counted = total - missedTokens.length - missedExamples.length;
    console.log(
      `ai.robots.txt: ${tokens.length - missedTokens.length} of ${tokens.length} tokens counted as AI (${percent(tokens.length - missedTokens.length, tokens.length)}); ` +
        `crawler-user-agents: ${crawlerExamples.length - missedExamples.length} of ${crawlerExamples.length} AI examples (${percent(crawlerExamples.length - missedExamples.length, crawlerExamples.length)}); ` +
        `together ${percent(counted, total)}. Not AI by curation: ${missedTokens.join(', ')}`,
    );
    expect(missedExamples).toEqual([]);
    expect(missedTokens.sort()).toEqual([...NOT_AI].sort());
    expect(counted / total).toBeGreaterThanOrEqual(0.98);
  });

  it('counts the 100 most common browser user agents as human', () => {
    const human = topUserAgents.filter((ua) => classify(ua, page).category === 'human');
    console.log(`top-user-agents: ${human.length} of ${topUserAgents.length} counted as human`);
    expect(human.length / topUserAgents.length).toBeGreaterThanOrEqual(0.99);
  });

  it('counts the major search engines as search', () => {
    const engines: Array<[string, string]> = [
      ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Googlebot'],
      ['Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', 'Bingbot'],
      [
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
        'Applebot',
      ],
      ['DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)', 'DuckDuckBot'],
      ['Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)', 'YandexBot'],
      ['Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)', 'Baiduspider'],
      ['Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)', 'Yahoo Slurp'],
      ['Mozilla/5.0 (compatible;PetalBot;+https://webmaster.petalsearch.com/site/petalbot)', 'PetalBot'],
      [
        'Mozilla/5.0 (compatible; Bravebot/1.0; +https://search.brave.com/help/brave-search-crawler)',
        'Brave',
      ],
      ['Sogou web spider/4.0(+http://www.sogou.com/docs/help/webmasters.htm#07)', 'Sogou'],
    ];
    for (const [ua, agent] of engines)
      expect(classify(ua, page), ua).toMatchObject({ category: 'search', agent });
  });
});

describe('the agent list', () => {
  it('records its version with its fingerprint: any change to the list needs a new version', () => {
    // Failing here? The list changed (a curated entry, robots.json, crawler-user-agents):
    // bump AGENT_LIST_VERSION and set AGENT_LIST_FINGERPRINT to the value received.
    expect({ version: AGENT_LIST_VERSION, fingerprint: agentListFingerprint() }).toEqual({
      version: AGENT_LIST_VERSION,
      fingerprint: AGENT_LIST_FINGERPRINT,
    });
  });

  it('gives AI agents a purpose (assistant for ai, another for ai_crawler) and no other agent one', () => {
    for (const entry of AGENT_PATTERNS) {
      const expected =
        entry.category === 'ai'
          ? ['assistant']
          : entry.category === 'ai_crawler'
            ? ['search', 'training', 'other']
            : [null];
      expect(expected, `${entry.name}: ${entry.purpose}`).toContain(entry.purpose);
    }
  });

  it('names one agent with one name: the same category, purpose and operator', () => {
    const byName = new Map<string, string>();
    for (const { name, category, purpose, operator } of AGENT_PATTERNS) {
      const described = JSON.stringify({ category, purpose, operator });
      expect(byName.get(name) ?? described, name).toBe(described);
      byName.set(name, described);
    }
  });

  it('compiles every pattern and finds in each a literal the fast prefilter can look for', () => {
    for (const entry of AGENT_PATTERNS) {
      expect(() => new RegExp(entry.pattern, 'i'), entry.name).not.toThrow();
      expect(requiredLiterals(entry.pattern), entry.name).not.toBeNull();
    }
  });

  it('finds the first matching entry, as a plain scan of the list does', () => {
    const scan = AGENT_PATTERNS.map((p) => ({ p, re: new RegExp(p.pattern, 'i') }));
    const samples = [
      ...topUserAgents,
      ...(crawlerUserAgents as ReadonlyArray<{ instances: string[] }>).flatMap((c) => c.instances),
      ...tokens.flatMap(tokenAgents),
    ];
    for (const ua of samples) {
      expect(recognise(ua)?.name ?? null, ua).toBe(scan.find(({ re }) => re.test(ua.trim()))?.p.name ?? null);
    }
  });

  it('uses no ai.robots.txt curation for a token the list does not have', () => {
    for (const key of Object.keys(AI_ROBOTS_CURATION)) expect(Object.keys(robots), key).toContain(key);
  });

  it('reads operators from the free text of ai.robots.txt', () => {
    expect(operatorOf('[OpenAI](https://openai.com)')).toBe('OpenAI');
    expect(operatorOf('Amazon, used for fetching web content to answer user queries')).toBe('Amazon');
    expect(operatorOf('Moonshot AI that fetches web content on behalf of users')).toBe('Moonshot AI');
    expect(operatorOf('Meta/Facebook')).toBe('Meta');
    expect(operatorOf('Unclear at this time.')).toBeNull();
    expect(operatorOf('the Chinese company Huawei')).toBeNull();
    expect(operatorOf('https://brightdata.com/brightbot')).toBeNull();
  });
});

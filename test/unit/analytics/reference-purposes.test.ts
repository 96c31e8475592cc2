import { describe, expect, it } from 'vitest';
import { agentOperators } from '../../../src/domain/analytics/agent-list.ts';
import { CrawlerRanges } from '../../../src/domain/analytics/crawler-ranges.ts';
import { ReferenceAnalytics, type TestEvent } from './reference.ts';

const CHATGPT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot';
const CLAUDE_CODE = 'Claude-User (claude-code/2.1.158; +https://support.anthropic.com/)';
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot';
const SEARCHBOT = 'OAI-SearchBot/1.0; +https://openai.com/searchbot';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const ALL = { from: null, to: null };

function view(path: string, userAgent: string, visitorId: string): TestEvent {
  return { timestamp: '2025-03-01T10:00:00Z', path, userAgent, visitorId };
}

// The reference is the oracle the three stores are checked against: its purpose split and
// operator breakdown are checked here against counts worked out by hand.
describe('the reference purpose split and operator breakdown', () => {
  const reference = new ReferenceAnalytics();
  reference.add([
    view('/a', CHATGPT, 'v1'),
    view('/a', CHATGPT, 'v1'),
    view('/a', CLAUDE_CODE, 'v2'),
    view('/a', GPTBOT, 'v3'),
    view('/b', GPTBOT, 'v3'),
    view('/b', SEARCHBOT, 'v1'),
    view('/b', GOOGLEBOT, 'v4'),
    view('/b', FIREFOX, 'v5'),
  ]);

  it('counts distinct visitors per purpose among ai and ai_crawler views, whatever the crawler setting', () => {
    const { totals, pages } = reference.purposes(ALL, 'visitors');
    expect(totals).toEqual({ aiAssistant: 2, aiSearch: 1, aiTraining: 1, aiOther: 0 });
    expect(pages.get('/a')).toEqual({ aiAssistant: 2, aiSearch: 0, aiTraining: 1, aiOther: 0 });
    expect(pages.get('/b')).toEqual({ aiAssistant: 0, aiSearch: 1, aiTraining: 1, aiOther: 0 });
    // With the default setting, aiAssistant equals ai.
    expect(reference.pages(ALL, 'visitors', false).totals.ai).toBe(totals.aiAssistant);
  });

  it('counts views per purpose for the views measure', () => {
    expect(reference.purposes(ALL, 'views').totals).toEqual({
      aiAssistant: 3,
      aiSearch: 1,
      aiTraining: 2,
      aiOther: 0,
    });
  });

  it('groups every view whose agent has an operator, ordered by visitors then operator', () => {
    expect(reference.operators(ALL, agentOperators())).toEqual([
      { operator: 'OpenAI', visitors: 2, views: 5 },
      { operator: 'Anthropic', visitors: 1, views: 1 },
      { operator: 'Google', visitors: 1, views: 1 },
    ]);
  });

  it('takes the operator from the mapping given at query time', () => {
    const renamed = new Map([['GPTBot', 'Example']]);
    expect(reference.operators(ALL, renamed)).toEqual([{ operator: 'Example', visitors: 1, views: 2 }]);
  });
});

describe('the reference with verified agents only', () => {
  // GPTBot is verified from 192.0.2.1 only; nothing else publishes ranges here.
  const reference = new ReferenceAnalytics(
    new CrawlerRanges([
      { operator: 'OpenAI', agents: ['GPTBot'], source: 'test', prefixes: ['192.0.2.1/32'] },
    ]),
  );
  const from = (path: string, userAgent: string, ip: string): TestEvent => ({
    timestamp: '2025-03-01T10:00:00Z',
    path,
    userAgent,
    ip,
  });
  reference.add([
    from('/a', GPTBOT, '192.0.2.1'), // verified
    from('/a', GPTBOT, '198.51.100.1'), // claims GPTBot from elsewhere
    from('/a', CHATGPT, '192.0.2.1'), // ChatGPT's ranges are not GPTBot's
    from('/a', GOOGLEBOT, '192.0.2.1'),
    from('/a', FIREFOX, '198.51.100.2'),
  ]);

  it('counts unverified ai, ai_crawler and search views as bots, and humans as before', () => {
    const all = reference.pages(ALL, 'views', true, true).totals;
    expect(all).toEqual({
      human: 1,
      ai: 1,
      total: 2,
      aiAssistant: 0,
      aiSearch: 0,
      aiTraining: 1,
      aiOther: 0,
    });
    expect(reference.pages(ALL, 'views', true, false).totals).toEqual({
      human: 1,
      ai: 3,
      total: 4,
      aiAssistant: 1,
      aiSearch: 0,
      aiTraining: 2,
      aiOther: 0,
    });
  });

  it('moves unverified agents to the bot category and counts operators by verified views', () => {
    const breakdown = reference.breakdown(ALL, agentOperators(), true);
    expect(breakdown.categories.find((c) => c.category === 'bot')).toEqual({
      category: 'bot',
      visitors: 3,
      views: 3,
    });
    expect(breakdown.agents).toContainEqual({ agent: 'GPTBot', category: 'bot', visitors: 1, views: 1 });
    expect(breakdown.agents).toContainEqual({
      agent: 'GPTBot',
      category: 'ai_crawler',
      visitors: 1,
      views: 1,
    });
    expect(breakdown.operators).toEqual([{ operator: 'OpenAI', visitors: 1, views: 1 }]);
  });
});

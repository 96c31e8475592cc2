import { describe, expect, it } from 'vitest';
import { AGENT_PATTERNS } from '../../../src/domain/analytics/agent-list.ts';
import type { Purpose } from '../../../src/domain/analytics/categories.ts';
import {
  acceptsMarkdown,
  type Classification,
  classify,
  type FetchHints,
} from '../../../src/domain/analytics/classifier.ts';

const ai = (agent: string, operator: string | null): Classification => ({
  category: 'ai',
  agent,
  purpose: 'assistant',
  operator,
});
const crawler = (agent: string, purpose: Purpose, operator: string | null): Classification => ({
  category: 'ai_crawler',
  agent,
  purpose,
  operator,
});
const search = (agent: string, operator: string): Classification => ({
  category: 'search',
  agent,
  purpose: null,
  operator,
});
const bot = (agent: string, operator: string | null = null): Classification => ({
  category: 'bot',
  agent,
  purpose: null,
  operator,
});
const human = (agent = 'Browser'): Classification => ({
  category: 'human',
  agent,
  purpose: null,
  operator: null,
});
const unrecognisedAi = ai('Unrecognised client', null);

const page: FetchHints = { markdownPath: false, acceptsMarkdown: false, llmsTxt: false };
const mdPath: FetchHints = { ...page, markdownPath: true };
const mdAccept: FetchHints = { ...page, acceptsMarkdown: true };
const llms: FetchHints = { ...page, llmsTxt: true };

// Real user-agent strings, as sent by the clients (vendor documentation and access logs).
const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36',
];

const NAMED: Array<[string, Classification]> = [
  // AI assistants and agents acting for a person.
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
    ai('ChatGPT', 'OpenAI'),
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)',
    ai('Claude', 'Anthropic'),
  ],
  ['Claude-User (claude-code/2.1.158; +https://support.anthropic.com/)', ai('Claude Code', 'Anthropic')],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
    ai('Perplexity', 'Perplexity'),
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)',
    ai('Mistral', 'Mistral'),
  ],
  [
    'meta-externalfetcher/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
    ai('Meta AI', 'Meta'),
  ],
  ['DuckAssistBot/1.2; (+http://duckduckgo.com/duckassistbot.html)', ai('DuckDuckGo AI', 'DuckDuckGo')],
  ['Aider/0.82.1 +https://aider.chat', ai('Aider', null)],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Cursor/0.45.11 Chrome/128.0.6613.186 Electron/32.2.6 Safari/537.36',
    ai('Cursor', 'Anysphere'),
  ],
  // AI crawlers.
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot',
    crawler('GPTBot', 'training', 'OpenAI'),
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
    crawler('OAI-SearchBot', 'search', 'OpenAI'),
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    crawler('ClaudeBot', 'training', 'Anthropic'),
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
    crawler('PerplexityBot', 'search', 'Perplexity'),
  ],
  ['CCBot/2.0 (https://commoncrawl.org/faq/)', crawler('CCBot', 'training', 'Common Crawl')],
  [
    'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
    crawler('Bytespider', 'training', 'ByteDance'),
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36',
    crawler('Amazonbot', 'training', 'Amazon'),
  ],
  [
    'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
    crawler('Meta-ExternalAgent', 'training', 'Meta'),
  ],
  // Search engines.
  ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', search('Googlebot', 'Google')],
  [
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    search('Googlebot', 'Google'),
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
    search('Bingbot', 'Microsoft'),
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
    search('Applebot', 'Apple'),
  ],
  ['DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)', search('DuckDuckBot', 'DuckDuckGo')],
  ['Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)', search('YandexBot', 'Yandex')],
  // Other bots and HTTP libraries.
  [
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    bot('Facebook preview', 'Meta'),
  ],
  ['Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)', bot('AhrefsBot', 'Ahrefs')],
  [
    'Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)',
    bot('UptimeRobot', 'UptimeRobot'),
  ],
  ['curl/8.5.0', bot('curl')],
  ['Wget/1.21.4', bot('Wget')],
  ['python-requests/2.32.3', bot('python-requests')],
  ['python-httpx/0.27.2', bot('python-httpx')],
  ['Go-http-client/2.0', bot('Go http client')],
  ['axios/1.7.9', bot('axios')],
  ['node', bot('Node.js')],
  ['got (https://github.com/sindresorhus/got)', bot('got')],
  ['okhttp/4.12.0', bot('OkHttp')],
  [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
    bot('Headless Chrome'),
  ],
];

// Agents issue 11 names as counted wrong (plain bots): crawler-user-agents' example user agent
// where it has one, the token in the usual frame otherwise (Kimi-User, GoogleAgent-URLContext).
const PUBLIC_LIST_AGENTS: Array<[string, Classification]> = [
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityUser/1.0; +https://perplexity.ai)',
    ai('Perplexity', 'Perplexity'),
  ],
  ['Mozilla/5.0 (compatible; Amzn-User; +https://developer.amazon.com/)', ai('Amzn-User', 'Amazon')],
  ['kagi-fetcher/1.0', ai('kagi-fetcher', 'Kagi')],
  ['Mozilla/5.0 (compatible; Kimi-User/1.0; +https://kimi.com/)', ai('Kimi-User', 'Moonshot AI')],
  ['Mozilla/5.0 (compatible; GoogleAgent-URLContext)', ai('GoogleAgent-URLContext', 'Google')],
  ['opencode-smartfetch/1.0', ai('OpenCode', null)],
  [
    'Mozilla/5.0 (compatible; DeepSeekBot/1.0; +https://www.deepseek.com/bot)',
    crawler('DeepSeekBot', 'training', 'DeepSeek'),
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; AzureAI-SearchBot/1.0;',
    crawler('AzureAI-SearchBot', 'search', 'Microsoft'),
  ],
  [
    'Cloudflare-AutoRAG (https://developers.cloudflare.com/autorag; autorag@cloudflare.com)',
    crawler('Cloudflare-AutoRAG', 'search', 'Cloudflare'),
  ],
  ['Mozilla/5.0 (compatible; TavilyBot; +https://tavily.com/)', crawler('TavilyBot', 'other', 'Tavily')],
  [
    'Mozilla/5.0 (compatible; ChatGLM-Spider/1.0; +https://chatglm.cn/)',
    crawler('ChatGLM-Spider', 'training', 'Zhipu AI'),
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-SearchBot/1.0; +https://www.anthropic.com)',
    crawler('Claude-SearchBot', 'search', 'Anthropic'),
  ],
  [
    'Mozilla/5.0 (compatible; Google-Extended/1.0; +http://www.google.com/bot.html)',
    crawler('Google-Extended', 'training', 'Google'),
  ],
  // Exalead's search engine crawler is not Exa's ExaBot.
  ['Mozilla/5.0 (compatible; Exabot/3.0; +http://www.exabot.com/go/robot)', bot('Other bot')],
];

// Electron desktop apps: a person opening a docs link inside VS Code, Slack, Discord, …
const DESKTOP_APPS: Array<[string, string]> = [
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Code/1.95.3 Chrome/128.0.6613.186 Electron/32.2.1 Safari/537.36',
    'VS Code',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Slack/4.41.105 Chrome/130.0.6723.91 Electron/33.2.0 Safari/537.36 Sonic Slack_SSB/4.41.105',
    'Slack',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) discord/1.0.9173 Chrome/128.0.6613.186 Electron/32.2.7 Safari/537.36',
    'Discord',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Notion/4.2.0 Chrome/126.0.6478.234 Electron/31.7.3 Safari/537.36',
    'Notion',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) obsidian/1.11.7 Chrome/142.0.7444.265 Electron/39.5.1 Safari/537.36',
    'Obsidian',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edg/130.0.0.0 Teams/24295.605.3225.8804/49',
    'Microsoft Teams',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Teams/1.7.00.13456 Chrome/114.0.5735.289 Electron/25.9.4 Safari/537.36',
    'Microsoft Teams',
  ],
];

describe('classify', () => {
  it.each(BROWSERS)('counts a browser as human: %s', (ua) => {
    expect(classify(ua, page)).toEqual(human());
  });

  it.each(NAMED)('recognises %s', (ua, expected) => {
    expect(classify(ua, page)).toEqual(expected);
  });

  it.each(PUBLIC_LIST_AGENTS)('recognises the AI agents of the public lists: %s', (ua, expected) => {
    expect(classify(ua, page)).toEqual(expected);
  });

  it.each(DESKTOP_APPS)('counts a desktop app as human, by its name: %s', (ua, name) => {
    expect(classify(ua, page)).toEqual(human(name));
    // Like a browser, it never asks for Markdown itself: an agent borrowing its user agent does.
    expect(classify(ua, mdAccept)).toEqual(unrecognisedAi);
  });

  it('gives every AI agent a purpose: assistant, search or training', () => {
    const purposeOf = (ua: string) => classify(ua, page).purpose;
    const withToken = (token: string) =>
      `Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ${token}/1.0)`;
    for (const token of ['ChatGPT-User', 'Claude-User', 'Perplexity-User'])
      expect(purposeOf(withToken(token))).toBe('assistant');
    for (const token of ['OAI-SearchBot', 'Claude-SearchBot', 'PerplexityBot'])
      expect(purposeOf(withToken(token))).toBe('search');
    for (const token of ['GPTBot', 'ClaudeBot', 'CCBot', 'Google-Extended', 'Bytespider'])
      expect(purposeOf(withToken(token))).toBe('training');
    expect(purposeOf(BROWSERS[0] ?? '')).toBeNull();
    expect(purposeOf('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)')).toBeNull();
    expect(classify('curl/8.5.0', page).purpose).toBeNull();
    expect(classify('curl/8.5.0', mdPath).purpose).toBe('assistant');
  });

  it('keeps a named agent in its category whatever it fetches', () => {
    for (const hints of [mdPath, mdAccept, llms]) {
      expect(classify('CCBot/2.0 (https://commoncrawl.org/faq/)', hints).category).toBe('ai_crawler');
      expect(
        classify('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', hints).category,
      ).toBe('search');
    }
  });

  it('counts an HTTP library fetching Markdown or llms.txt as ai, keeping its name', () => {
    for (const hints of [mdPath, mdAccept, llms]) {
      expect(classify('curl/8.5.0', hints)).toEqual(ai('curl', null));
      expect(classify('axios/1.7.9', hints)).toEqual(ai('axios', null));
    }
  });

  it('counts an unrecognised bot or an empty user agent as bot, or as ai when it fetches Markdown', () => {
    const unknownBot = 'Mozilla/5.0 (compatible; SomeNewCrawler/0.1; +https://example.com/bot)';
    expect(classify(unknownBot, page)).toEqual(bot('Other bot'));
    expect(classify('', page)).toEqual(bot('Other bot'));
    expect(classify(unknownBot, mdPath)).toEqual(unrecognisedAi);
    expect(classify('', llms)).toEqual(unrecognisedAi);
    expect(classify('my-agent/1.0', mdAccept)).toEqual(unrecognisedAi);
  });

  it('counts a browser user agent asking for text/markdown as ai, but a person opening a .md link as human', () => {
    const chrome = BROWSERS[0] ?? '';
    expect(classify(chrome, mdAccept)).toEqual(unrecognisedAi);
    expect(classify(chrome, mdPath)).toEqual(human());
  });

  it('gives every pattern in the list a valid regular expression and a name', () => {
    for (const entry of AGENT_PATTERNS) {
      expect(() => new RegExp(entry.pattern, 'i'), entry.name).not.toThrow();
      expect(entry.name.length).toBeGreaterThan(0);
    }
  });
});

describe('acceptsMarkdown', () => {
  it.each([
    ['text/markdown', true],
    ['text/markdown, text/html;q=0.9', true],
    ['text/html, text/markdown;q=0.5', true],
    ['text/x-markdown', true],
    ['TEXT/MARKDOWN; charset=utf-8', true],
    ['text/markdown;q=0', false],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
    ['', false],
    [undefined, false],
  ])('%s → %s', (accept, expected) => {
    expect(acceptsMarkdown(accept)).toBe(expected);
  });
});

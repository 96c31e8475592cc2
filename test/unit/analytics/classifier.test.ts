import { describe, expect, it } from 'vitest';
import { AGENT_PATTERNS } from '../../../src/domain/analytics/agent-list.ts';
import {
  acceptsMarkdown,
  type Classification,
  classify,
  type FetchHints,
} from '../../../src/domain/analytics/classifier.ts';

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
    { category: 'ai', agent: 'ChatGPT' },
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)',
    { category: 'ai', agent: 'Claude' },
  ],
  [
    'Claude-User (claude-code/2.1.158; +https://support.anthropic.com/)',
    { category: 'ai', agent: 'Claude Code' },
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
    { category: 'ai', agent: 'Perplexity' },
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)',
    { category: 'ai', agent: 'Mistral' },
  ],
  [
    'meta-externalfetcher/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
    { category: 'ai', agent: 'Meta AI' },
  ],
  [
    'DuckAssistBot/1.2; (+http://duckduckgo.com/duckassistbot.html)',
    { category: 'ai', agent: 'DuckDuckGo AI' },
  ],
  ['Aider/0.82.1 +https://aider.chat', { category: 'ai', agent: 'Aider' }],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Cursor/0.45.11 Chrome/128.0.6613.186 Electron/32.2.6 Safari/537.36',
    { category: 'ai', agent: 'Cursor' },
  ],
  // AI crawlers.
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot',
    { category: 'ai_crawler', agent: 'GPTBot' },
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
    { category: 'ai_crawler', agent: 'OAI-SearchBot' },
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    { category: 'ai_crawler', agent: 'ClaudeBot' },
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
    { category: 'ai_crawler', agent: 'PerplexityBot' },
  ],
  ['CCBot/2.0 (https://commoncrawl.org/faq/)', { category: 'ai_crawler', agent: 'CCBot' }],
  [
    'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
    { category: 'ai_crawler', agent: 'Bytespider' },
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36',
    { category: 'ai_crawler', agent: 'Amazonbot' },
  ],
  [
    'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
    { category: 'ai_crawler', agent: 'Meta-ExternalAgent' },
  ],
  // Search engines.
  [
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    { category: 'search', agent: 'Googlebot' },
  ],
  [
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    { category: 'search', agent: 'Googlebot' },
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
    { category: 'search', agent: 'Bingbot' },
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
    { category: 'search', agent: 'Applebot' },
  ],
  [
    'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)',
    { category: 'search', agent: 'DuckDuckBot' },
  ],
  [
    'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
    { category: 'search', agent: 'YandexBot' },
  ],
  // Other bots and HTTP libraries.
  [
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    { category: 'bot', agent: 'Facebook preview' },
  ],
  [
    'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
    { category: 'bot', agent: 'AhrefsBot' },
  ],
  [
    'Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)',
    { category: 'bot', agent: 'UptimeRobot' },
  ],
  ['curl/8.5.0', { category: 'bot', agent: 'curl' }],
  ['Wget/1.21.4', { category: 'bot', agent: 'Wget' }],
  ['python-requests/2.32.3', { category: 'bot', agent: 'python-requests' }],
  ['python-httpx/0.27.2', { category: 'bot', agent: 'python-httpx' }],
  ['Go-http-client/2.0', { category: 'bot', agent: 'Go http client' }],
  ['axios/1.7.9', { category: 'bot', agent: 'axios' }],
  ['node', { category: 'bot', agent: 'Node.js' }],
  ['got (https://github.com/sindresorhus/got)', { category: 'bot', agent: 'got' }],
  ['okhttp/4.12.0', { category: 'bot', agent: 'OkHttp' }],
  [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
    { category: 'bot', agent: 'Headless Chrome' },
  ],
];

describe('classify', () => {
  it.each(BROWSERS)('counts a browser as human: %s', (ua) => {
    expect(classify(ua, page)).toEqual({ category: 'human', agent: 'Browser' });
  });

  it.each(NAMED)('recognises %s', (ua, expected) => {
    expect(classify(ua, page)).toEqual(expected);
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
      expect(classify('curl/8.5.0', hints)).toEqual({ category: 'ai', agent: 'curl' });
      expect(classify('axios/1.7.9', hints)).toEqual({ category: 'ai', agent: 'axios' });
    }
  });

  it('counts an unrecognised bot or an empty user agent as bot, or as ai when it fetches Markdown', () => {
    const unknownBot = 'Mozilla/5.0 (compatible; SomeNewCrawler/0.1; +https://example.com/bot)';
    expect(classify(unknownBot, page)).toEqual({ category: 'bot', agent: 'Other bot' });
    expect(classify('', page)).toEqual({ category: 'bot', agent: 'Other bot' });
    expect(classify(unknownBot, mdPath)).toEqual({ category: 'ai', agent: 'Unrecognised client' });
    expect(classify('', llms)).toEqual({ category: 'ai', agent: 'Unrecognised client' });
    expect(classify('my-agent/1.0', mdAccept)).toEqual({ category: 'ai', agent: 'Unrecognised client' });
  });

  it('counts a browser user agent asking for text/markdown as ai, but a person opening a .md link as human', () => {
    const chrome = BROWSERS[0] ?? '';
    expect(classify(chrome, mdAccept)).toEqual({ category: 'ai', agent: 'Unrecognised client' });
    expect(classify(chrome, mdPath)).toEqual({ category: 'human', agent: 'Browser' });
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

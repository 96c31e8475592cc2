import type { Category } from './categories.ts';

/**
 * The bundled list of user agents Docwright recognises by name, built from the vendors'
 * published user-agent tokens and the public lists of AI agents and crawlers (ai.robots.txt,
 * Dark Visitors). Every stored view records `AGENT_LIST_VERSION`, so traffic can be
 * reclassified when this list changes: bump the version with every edit.
 *
 * Order matters: the first match wins, so more specific patterns come first
 * (Claude Code before Claude-User, Applebot-Extended before Applebot).
 */
export const AGENT_LIST_VERSION = 1;

export interface AgentPattern {
  /** Display name, stored with each view. */
  name: string;
  category: Exclude<Category, 'human'>;
  /** Matched case-insensitively anywhere in the user agent. */
  pattern: string;
  /**
   * A general-purpose HTTP client or headless browser: a `bot` on its own, but coding agents
   * use these to fetch docs, so a Markdown or llms.txt fetch by one counts as `ai`.
   */
  library?: true;
}

const ai = (name: string, pattern: string): AgentPattern => ({ name, category: 'ai', pattern });
const aiCrawler = (name: string, pattern: string): AgentPattern => ({
  name,
  category: 'ai_crawler',
  pattern,
});
const search = (name: string, pattern: string): AgentPattern => ({ name, category: 'search', pattern });
const bot = (name: string, pattern: string): AgentPattern => ({ name, category: 'bot', pattern });
const library = (name: string, pattern: string): AgentPattern => ({
  name,
  category: 'bot',
  pattern,
  library: true,
});

export const AGENT_PATTERNS: readonly AgentPattern[] = [
  // AI assistants and agents fetching a page because a person asked (user-initiated).
  ai('Claude Code', 'claude-code/'),
  ai('Claude', 'Claude-User'),
  ai('Claude', 'Claude-Web'),
  ai('ChatGPT', 'ChatGPT-User'),
  ai('Perplexity', 'Perplexity-User'),
  ai('Mistral', 'MistralAI-User'),
  ai('Meta AI', 'Meta-ExternalFetcher'),
  ai('DuckDuckGo AI', 'DuckAssistBot'),
  ai('Gemini Deep Research', 'Gemini-Deep-Research'),
  ai('NotebookLM', 'Google-NotebookLM'),
  ai('Manus', 'Manus-User'),
  ai('Amazon Nova Act', 'NovaAct'),
  ai('Devin', '\\bDevin/'),
  ai('Cursor', '\\bCursor/\\d'),
  ai('Windsurf', '\\bWindsurf\\b'),
  ai('Aider', '\\bAider/'),
  ai('OpenCode', '\\bopencode/'),
  ai('Codex', 'codex_cli_rs/|\\bcodex-cli/'),
  ai('Gemini CLI', 'GeminiCLI/'),
  ai('Goose', '\\bgoose/\\d'),
  // AI training and AI search crawlers.
  aiCrawler('GPTBot', 'GPTBot'),
  aiCrawler('OAI-SearchBot', 'OAI-SearchBot'),
  aiCrawler('ClaudeBot', 'ClaudeBot'),
  aiCrawler('Claude-SearchBot', 'Claude-SearchBot'),
  aiCrawler('anthropic-ai', 'anthropic-ai'),
  aiCrawler('PerplexityBot', 'PerplexityBot'),
  aiCrawler('CCBot', 'CCBot'),
  aiCrawler('Bytespider', 'Bytespider'),
  aiCrawler('TikTokSpider', 'TikTokSpider'),
  aiCrawler('Amazonbot', 'Amazonbot'),
  aiCrawler('Applebot-Extended', 'Applebot-Extended'),
  aiCrawler('Google-Extended', 'Google-Extended'),
  aiCrawler('Google-CloudVertexBot', 'Google-CloudVertexBot'),
  aiCrawler('Meta-ExternalAgent', 'meta-externalagent'),
  aiCrawler('FacebookBot', 'FacebookBot'),
  aiCrawler('cohere-ai', 'cohere-ai|cohere-training-data-crawler'),
  aiCrawler('Diffbot', 'Diffbot'),
  aiCrawler('YouBot', 'YouBot'),
  aiCrawler('AI2Bot', 'AI2Bot|Ai2Bot-Dolma'),
  aiCrawler('PhindBot', 'PhindBot'),
  aiCrawler('Timpibot', 'Timpibot'),
  aiCrawler('ImagesiftBot', 'ImagesiftBot'),
  aiCrawler('Omgili', 'omgili'),
  aiCrawler('Kangaroo Bot', 'Kangaroo Bot'),
  aiCrawler('PanguBot', 'PanguBot'),
  aiCrawler('Webzio-Extended', 'Webzio-Extended'),
  aiCrawler('iAsk', 'iaskspider'),
  aiCrawler('Firecrawl', 'FirecrawlAgent'),
  aiCrawler('Crawlspace', 'Crawlspace'),
  aiCrawler('LinerBot', 'LinerBot'),
  aiCrawler('Cotoyogi', 'Cotoyogi'),
  aiCrawler('Brightbot', 'Brightbot'),
  aiCrawler('QualifiedBot', 'QualifiedBot'),
  // Search engine crawlers.
  search('Googlebot', 'Googlebot|Google-InspectionTool|Storebot-Google|GoogleOther'),
  search('Bingbot', 'bingbot|BingPreview|msnbot|adidxbot'),
  search('Applebot', 'Applebot'),
  search('DuckDuckBot', 'DuckDuckBot'),
  search('YandexBot', 'YandexBot|YandexRenderResourcesBot|YandexMobileBot'),
  search('Baiduspider', 'Baiduspider'),
  search('Yahoo Slurp', 'Yahoo! Slurp'),
  search('PetalBot', 'PetalBot'),
  search('SeznamBot', 'SeznamBot'),
  search('Sogou', 'Sogou web spider'),
  search('Qwant', 'Qwantbot|QwantBot'),
  search('MojeekBot', 'MojeekBot'),
  search('Naver Yeti', '\\bYeti/'),
  search('coccocbot', 'coccocbot'),
  search('Brave', 'Bravebot'),
  // Other named bots: link previews, SEO tools, monitors.
  bot('Facebook preview', 'facebookexternalhit|facebookcatalog'),
  bot('Twitterbot', 'Twitterbot'),
  bot('LinkedInBot', 'LinkedInBot'),
  bot('Slackbot', 'Slackbot|Slack-ImgProxy'),
  bot('Discordbot', 'Discordbot'),
  bot('TelegramBot', 'TelegramBot'),
  bot('WhatsApp', 'WhatsApp/'),
  bot('AhrefsBot', 'AhrefsBot|AhrefsSiteAudit'),
  bot('SemrushBot', 'SemrushBot'),
  bot('MJ12bot', 'MJ12bot'),
  bot('DotBot', 'DotBot'),
  bot('UptimeRobot', 'UptimeRobot'),
  bot('Pingdom', 'Pingdom'),
  bot('StatusCake', 'StatusCake'),
  bot('Datadog Synthetics', 'DatadogSynthetics'),
  bot('Site24x7', 'Site24x7'),
  bot('Better Stack', 'Better ?Uptime|BetterStack'),
  // HTTP libraries, command-line clients and headless browsers.
  library('curl', '^curl/|\\blibcurl\\b'),
  library('Wget', '^Wget/'),
  library('python-requests', 'python-requests'),
  library('python-httpx', 'python-httpx'),
  library('aiohttp', 'aiohttp'),
  library('Python urllib', 'Python-urllib'),
  library('Go http client', 'Go-http-client'),
  library('node-fetch', 'node-fetch'),
  library('axios', '^axios/'),
  library('undici', '^undici\\b'),
  library('got', '^got\\b|sindresorhus/got'),
  library('Node.js', '^node$|^Node\\.js/'),
  library('Deno', '^Deno/'),
  library('Bun', '^Bun/'),
  library('OkHttp', 'okhttp'),
  library('Java', '^Java/|Apache-HttpClient'),
  library('libwww-perl', 'libwww-perl'),
  library('Ruby', '^Ruby\\b|Faraday'),
  library('PHP', 'GuzzleHttp|^PHP/'),
  library('reqwest', '^reqwest/'),
  library('Dart', '^Dart/'),
  library('colly', 'colly'),
  library('HTTPie', 'HTTPie'),
  library('Postman', 'PostmanRuntime'),
  library('Insomnia', '^insomnia/'),
  library('Headless Chrome', 'HeadlessChrome'),
  library('Electron', '\\bElectron/'),
  library('Playwright', 'Playwright'),
  library('Puppeteer', 'Puppeteer'),
];

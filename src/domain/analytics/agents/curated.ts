import type { Category, Purpose } from '../categories.ts';
import type { AgentPattern } from './agent.ts';

/*
 * Our own curation of the agent list: what the public lists (public-lists.ts) do not say, or
 * say in a way a user-agent match cannot use. Every edit here changes classification: bump
 * AGENT_LIST_VERSION (agent-list.ts).
 */

const entry = (
  name: string,
  category: Category,
  purpose: Purpose | null,
  pattern: string,
  operator: string | null,
): AgentPattern => ({ name, category, purpose, operator, pattern, source: 'curated' });
const assistant = (name: string, pattern: string, operator: string | null = null) =>
  entry(name, 'ai', 'assistant', pattern, operator);
const search = (name: string, pattern: string, operator: string | null = null) =>
  entry(name, 'search', null, pattern, operator);
const human = (name: string, pattern: string) => entry(name, 'human', null, pattern, null);
const bot = (name: string, pattern: string, operator: string | null = null) =>
  entry(name, 'bot', null, pattern, operator);
const library = (name: string, pattern: string): AgentPattern => ({
  ...entry(name, 'bot', null, pattern, null),
  library: true,
});

/**
 * Assistants and coding agents that fetch a page because a person asked, matched before the
 * public lists: a more specific name must win (Claude Code sends `Claude-User (claude-code/…)`),
 * and some are in no list yet.
 */
export const CURATED_ASSISTANTS: readonly AgentPattern[] = [
  assistant('Claude Code', 'claude-code/', 'Anthropic'),
  assistant('Claude', 'Claude-User|Claude-Web', 'Anthropic'),
  assistant('ChatGPT', 'ChatGPT-User', 'OpenAI'),
  assistant('Perplexity', 'Perplexity-?User', 'Perplexity'),
  assistant('Mistral', 'MistralAI-User', 'Mistral'),
  assistant('Meta AI', 'Meta-ExternalFetcher', 'Meta'),
  assistant('DuckDuckGo AI', 'DuckAssistBot', 'DuckDuckGo'),
  assistant('Gemini Deep Research', 'Gemini-Deep-Research', 'Google'),
  assistant('NotebookLM', 'Google-NotebookLM', 'Google'),
  assistant('Manus', 'Manus-User', 'Butterfly Effect'),
  assistant('Amazon Nova Act', 'NovaAct', 'Amazon'),
  assistant('Amazon Bedrock AgentCore', 'Amazon-Bedrock-AgentCore-Browser', 'Amazon'),
  assistant('Devin', '\\bDevin/', 'Cognition'),
  // Cursor's own Electron user agent: its agent fetching docs, not a person browsing.
  assistant('Cursor', '\\bCursor/\\d', 'Anysphere'),
  assistant('Windsurf', '\\bWindsurf\\b', 'Windsurf'),
  assistant('Aider', '\\bAider/', null),
  assistant('OpenCode', '\\bopencode(?:-smartfetch)?/', null),
  assistant('Codex', 'codex_cli_rs/|\\bcodex-cli/', 'OpenAI'),
  assistant('Gemini CLI', 'GeminiCLI/|Google-Gemini-CLI', 'Google'),
  assistant('Goose', '\\bgoose/\\d', 'Block'),
];

/**
 * Desktop apps built on Electron whose built-in browser opens docs for a person (a link in
 * VS Code, Slack, Discord, Notion, Obsidian or Teams): human, though they name themselves.
 * Electron alone is no sign of a person (monitors and scrapers run it too): other Electron
 * user agents are left to isbot.
 */
export const CURATED_APPS: readonly AgentPattern[] = [
  human('VS Code', '\\) Code/\\d[^ ]* Chrome/'),
  human('Slack', '\\bSlack/\\d[^ ]* Chrome/'),
  human('Discord', '\\bdiscord/\\d[^ ]* Chrome/'),
  human('Notion', '\\bNotion/\\d[^ ]* Chrome/'),
  human('Obsidian', '\\bobsidian/\\d[^ ]* Chrome/'),
  human('Microsoft Teams', '\\bTeams/\\d'),
];

/** Search engine crawlers (their AI tokens, such as Applebot-Extended, come first). */
export const CURATED_SEARCH: readonly AgentPattern[] = [
  search('Googlebot', 'Googlebot|Google-InspectionTool|Storebot-Google', 'Google'),
  search('Bingbot', 'bingbot|BingPreview|msnbot|adidxbot', 'Microsoft'),
  search('Applebot', 'Applebot', 'Apple'),
  search('DuckDuckBot', 'DuckDuckBot', 'DuckDuckGo'),
  search('YandexBot', 'YandexBot|YandexRenderResourcesBot|YandexMobileBot', 'Yandex'),
  search('Baiduspider', 'Baiduspider', 'Baidu'),
  search('Yahoo Slurp', 'Yahoo! Slurp', 'Yahoo'),
  search('PetalBot', 'PetalBot', 'Huawei'),
  search('SeznamBot', 'SeznamBot', 'Seznam'),
  search('Sogou', 'Sogou web spider', 'Sogou'),
  search('Qwant', 'Qwantbot|QwantBot', 'Qwant'),
  search('MojeekBot', 'MojeekBot', 'Mojeek'),
  search('Naver Yeti', '\\bYeti/', 'Naver'),
  search('coccocbot', 'coccocbot', 'Cốc Cốc'),
  search('Brave', 'Bravebot', 'Brave'),
  search('Kagibot', 'Kagibot/', 'Kagi'),
];

/** Other named bots (link previews, SEO tools, monitors), then HTTP libraries. */
export const CURATED_BOTS: readonly AgentPattern[] = [
  bot('Facebook preview', 'facebookexternalhit|facebookcatalog', 'Meta'),
  bot('Twitterbot', 'Twitterbot', 'X'),
  bot('LinkedInBot', 'LinkedInBot', 'LinkedIn'),
  bot('Slackbot', 'Slackbot|Slack-ImgProxy', 'Slack'),
  bot('Discordbot', 'Discordbot', 'Discord'),
  bot('TelegramBot', 'TelegramBot', 'Telegram'),
  bot('WhatsApp', 'WhatsApp/', 'Meta'),
  bot('AhrefsBot', 'AhrefsBot|AhrefsSiteAudit', 'Ahrefs'),
  bot('SemrushBot', 'SemrushBot', 'Semrush'),
  bot('MJ12bot', 'MJ12bot', 'Majestic'),
  bot('DotBot', 'DotBot', 'Moz'),
  bot('UptimeRobot', 'UptimeRobot', 'UptimeRobot'),
  bot('Pingdom', 'Pingdom', 'SolarWinds'),
  bot('StatusCake', 'StatusCake', 'StatusCake'),
  bot('Datadog Synthetics', 'DatadogSynthetics', 'Datadog'),
  bot('Site24x7', 'Site24x7', 'Zoho'),
  bot('Better Stack', 'Better ?Uptime|BetterStack', 'Better Stack'),
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
  library('Playwright', 'Playwright'),
  library('Puppeteer', 'Puppeteer'),
];

/** What we change about one ai.robots.txt entry (keyed by its name, as in robots.json). */
export interface TokenCuration {
  /** Leave the entry out of the user-agent match, and why. */
  skip?: string;
  /** A regular expression instead of the token as a word. */
  pattern?: string;
  category?: Category;
  purpose?: Purpose | null;
  operator?: string | null;
}

/**
 * ai.robots.txt lists tokens for robots.txt, some of which are not AI crawlers by the way we
 * count (a major search engine, link previews), and some of whose purpose its free-text
 * description names better than the heuristic in public-lists.ts.
 */
export const AI_ROBOTS_CURATION: Readonly<Record<string, TokenCuration>> = {
  // Search engines whose index also serves AI answers (Apple publishes Applebot-Extended for
  // AI use), and link previews: counted as what they mainly are (CURATED_SEARCH, CURATED_BOTS).
  Applebot: { skip: 'a search engine (CURATED_SEARCH)' },
  Bravebot: { skip: 'a search engine (CURATED_SEARCH)' },
  PetalBot: { skip: 'a search engine (CURATED_SEARCH)' },
  facebookexternalhit: { skip: 'link previews of shared pages (CURATED_BOTS)' },
  // Tokens too generic to find as a plain word in a user agent.
  // GitHub Copilot's fetches; VS Code's own Electron user agent (Code/1.95.3 Chrome/…) is human.
  Code: { pattern: '(?<![\\w.@/-])Code/(?![\\d.]+ Chrome/)\\d', operator: 'GitHub' },
  // spider.cloud's "Spider;" or "Spider/1.0", not Sogou's "web spider/4.0(+http…".
  Spider: { pattern: '(?<![\\w.@/-])Spider(?:;|/[\\d.]+(?:;|$))', operator: 'Spider' },
  Scrapy: { purpose: 'other' }, // a framework: many uses, training only one of them
  // Exa's crawler, not Exalead's older Exabot (exabot.com), a search engine.
  ExaBot: { pattern: '(?<![\\w.@/-])ExaBot(?![\\w.@-])(?!.*exabot\\.com)', operator: 'Exa' },
  // Purposes the free text states in other words.
  Amazonbot: { purpose: 'training' }, // Amazon: "may be used to train Amazon AI models"
  'Applebot-Extended': { purpose: 'training' },
  CCBot: { purpose: 'training' },
  LAIONDownloader: { purpose: 'training', operator: 'LAION' },
  iaskspider: { purpose: 'search', operator: 'iAsk' },
  'iaskspider/2.0': { purpose: 'search', operator: 'iAsk' },
  iAskBot: { purpose: 'search', operator: 'iAsk' },
  'meta-webindexer': { category: 'ai_crawler', purpose: 'search', operator: 'Meta' },
  // Operators the list leaves unclear.
  'Amzn-SearchBot': { operator: 'Amazon' },
  'amazon-QBusiness': { operator: 'Amazon' },
  NovaAct: { operator: 'Amazon' },
  'AzureAI-SearchBot': { operator: 'Microsoft' },
  ApifyBot: { operator: 'Apify' },
  ApifyWebsiteContentCrawler: { operator: 'Apify' },
  Brightbot: { operator: 'Bright Data' },
  'Brightbot 1.0': { operator: 'Bright Data' },
  'ChatGLM-Spider': { operator: 'Zhipu AI' },
  'Claude-Code': { operator: 'Anthropic' },
  CloudVertexBot: { operator: 'Google' },
  Cursor: { operator: 'Anysphere' },
  Devin: { operator: 'Cognition' },
  DuckAssistBot: { operator: 'DuckDuckGo' },
  'Gemini-Deep-Research': { operator: 'Google' },
  'Google-Agent': { operator: 'Google' },
  'Google-Gemini-CLI': { operator: 'Google' },
  'Google-NotebookLM': { operator: 'Google' },
  NotebookLM: { operator: 'Google' },
  HenkBot: { operator: 'Valyu' },
  imageSpider: { operator: 'ByteDance' },
  'Kangaroo Bot': { operator: 'Kangaroo LLM' },
  LinerBot: { operator: 'Liner' },
  'Meta-ExternalAgent': { operator: 'Meta' },
  'meta-externalfetcher': { operator: 'Meta' },
  'Meta-ExternalFetcher': { operator: 'Meta' },
  Operator: { operator: 'OpenAI' },
  PanguBot: { operator: 'Huawei' },
  'Shap-User': { operator: 'Parallel' },
  TavilyBot: { operator: 'Tavily' },
  'Terra Cotta': { operator: 'Ceramic AI' },
  Trae: { operator: 'ByteDance' },
  'Webzio-Extended': { operator: 'Webz.io' },
  'webzio-extended': { operator: 'Webz.io' },
  Lightpanda: { operator: null },
};

/** The same operator as ai.robots.txt spells it in several ways. */
export const OPERATOR_ALIASES: Readonly<Record<string, string>> = {
  'Meta/Facebook': 'Meta',
  'Mistral AI': 'Mistral',
  'Common Crawl Foundation': 'Common Crawl',
  'Devin AI': 'Cognition',
  phind: 'Phind',
  Quillbot: 'QuillBot',
  'Velen Crawler': 'Velen',
  'Naget Inc': 'Naget',
};

/**
 * Purposes and operators of crawler-user-agents' AI crawlers that ai.robots.txt does not list
 * (keyed by the entry's pattern); the rest are `other`, or `search` when also tagged so.
 */
export const CRAWLER_LIST_CURATION: Readonly<Record<string, { purpose?: Purpose; operator?: string }>> = {
  KendraBot: { purpose: 'search', operator: 'Amazon' },
  'Spawning-AI': { purpose: 'training', operator: 'Spawning' },
  'linkReader\\/': { purpose: 'assistant' },
};

import { createHash } from 'node:crypto';
import { acceptsMarkdown, classify } from '../../src/domain/analytics/classifier.ts';
import { normalisePath } from '../../src/domain/analytics/paths.ts';
import type { PreparedEvent } from '../../src/domain/analytics/store.ts';

/**
 * The benchmark's traffic, generated deterministically from a seed: `days` days from
 * 2025-01-01, `visitors` visitors (20% AI agents, 1% seen both as a browser and as an agent
 * asking for Markdown), Zipf-like page popularity over `paths` pages, events in time order.
 */
export interface DatasetOptions {
  events: number;
  visitors: number;
  paths: number;
  days: number;
  seed: number;
}

export interface BenchEvent {
  timestamp: number;
  path: string;
  userAgent: string;
  ip: string;
  accept: string | undefined;
  /** As the classifier sees it, for the DuckDB baseline. */
  category: string;
  /** The normalised page, for the DuckDB baseline. */
  page: string;
}

export const START = Date.UTC(2025, 0, 1);
export const DAY = 86_400_000;

/**
 * A generated event as the ingestion pipeline would hand it to a store, for the benches that
 * write to a store directly: the visitor key from IP and user agent, every `ai` view's purpose
 * assistant (as the classifier gives it), `eventKey` the idempotency key or null.
 */
export function preparedEvent(e: BenchEvent, eventKey: string | null, agent = 'x'): PreparedEvent {
  const c = e.category;
  return {
    eventKey,
    timestamp: e.timestamp,
    path: e.page,
    visitorKey: createHash('sha256').update(`${e.ip}|${e.userAgent}`).digest().subarray(0, 16),
    category: c === 'human' || c === 'ai' || c === 'ai_crawler' ? c : 'bot',
    purpose: c === 'ai' ? 'assistant' : null,
    agent,
    classifierVersion: 1,
    userAgent: e.userAgent,
    flags: 0,
    status: 200,
    referrer: null,
    verified: false,
  };
}

const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36',
];
const AGENTS = [
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  'Claude-User (claude-code/2.1.158; +https://support.anthropic.com/)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
  'curl/8.5.0',
];

/** xorshift128+-style 32-bit generator: fast and the same on every machine. */
export function random(seed: number): () => number {
  let a = seed >>> 0 || 1;
  let b = (seed * 2654435761) >>> 0 || 2;
  let c = 0x9e3779b9;
  let d = 0x7f4a7c15;
  return () => {
    const t = a ^ (a << 11);
    a = b;
    b = c;
    c = d;
    d = (d ^ (d >>> 19) ^ (t ^ (t >>> 8))) >>> 0;
    return d / 4294967296;
  };
}

/** Yields the events day by day, in time order. */
export function* generate(options: DatasetOptions): Generator<BenchEvent> {
  const rnd = random(options.seed);
  const cdf = new Float64Array(options.paths);
  let sum = 0;
  for (let i = 0; i < options.paths; i++) sum += 1 / (i + 1);
  let acc = 0;
  for (let i = 0; i < options.paths; i++) {
    acc += 1 / (i + 1) / sum;
    cdf[i] = acc;
  }
  const pickPath = () => {
    const r = rnd();
    let lo = 0;
    let hi = options.paths - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] as number) < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const categoryCache = new Map<string, string>();
  const perDay = Math.floor(options.events / options.days);
  for (let day = 0; day < options.days; day++) {
    const count = day === options.days - 1 ? options.events - perDay * (options.days - 1) : perDay;
    const times = new Float64Array(count);
    for (let i = 0; i < count; i++) times[i] = START + day * DAY + Math.floor(rnd() * DAY);
    times.sort();
    for (let i = 0; i < count; i++) {
      const v = Math.floor(rnd() * options.visitors);
      const page = pickPath();
      const both = v % 100 === 0;
      const agent = !both && v % 5 === 1;
      let userAgent: string;
      let accept: string | undefined;
      let suffix = '';
      if (agent) {
        userAgent = AGENTS[v % AGENTS.length] as string;
        if (userAgent.startsWith('curl') || rnd() < 0.3) suffix = '.md';
      } else {
        userAgent = BROWSERS[v % BROWSERS.length] as string;
        if (both && rnd() < 0.5) accept = 'text/markdown';
      }
      const path = `/docs/section-${page % 40}/page-${page}${suffix}`;
      const normalised = normalisePath(path);
      const key = `${userAgent}|${suffix}|${accept ?? ''}`;
      let category = categoryCache.get(key);
      if (category === undefined) {
        category = classify(userAgent, {
          markdownPath: normalised?.markdownPath ?? false,
          acceptsMarkdown: acceptsMarkdown(accept),
          llmsTxt: false,
        }).category;
        categoryCache.set(key, category);
      }
      yield {
        timestamp: times[i] as number,
        path,
        userAgent,
        ip: `10.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`,
        accept,
        category,
        page: normalised?.path ?? path,
      };
    }
  }
}

/** One event of a `POST …/events` body, with the event id `id`. */
export function apiEvent(e: BenchEvent, id: string): Record<string, unknown> {
  return {
    id,
    timestamp: new Date(e.timestamp).toISOString(),
    path: e.path,
    userAgent: e.userAgent,
    ip: e.ip,
    ...(e.accept ? { accept: e.accept } : {}),
  };
}

/** One JSON line as a CDN log export would have it. */
export function jsonLine(e: BenchEvent): string {
  return JSON.stringify({
    timestamp: new Date(e.timestamp).toISOString(),
    client_ip: e.ip,
    method: 'GET',
    path: e.path,
    status: 200,
    user_agent: e.userAgent,
    ...(e.accept ? { accept: e.accept } : {}),
  });
}

const CLF_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** One nginx/Apache combined log line. */
export function combinedLine(e: BenchEvent): string {
  const d = new Date(e.timestamp);
  const pad = (n: number) => String(n).padStart(2, '0');
  const time = `${pad(d.getUTCDate())}/${CLF_MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
  return `${e.ip} - - [${time}] "GET ${e.path} HTTP/1.1" 200 5120 "-" "${e.userAgent}"`;
}

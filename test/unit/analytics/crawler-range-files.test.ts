import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCrawlerRanges, loadRangeLists, refreshedRangesDir } from '../../../src/app/crawler-ranges.ts';
import { AGENT_PATTERNS } from '../../../src/domain/analytics/agent-list.ts';
import {
  CRAWLER_RANGE_SOURCES,
  parsePublishedRanges,
  parseSourcesManifest,
  SHIPPED_CRAWLER_RANGES,
} from '../../../src/domain/analytics/crawler-range-files.ts';

describe('the shipped crawler ranges', () => {
  it('reads every shipped copy in its published shape, and ships none where the manifest says so', () => {
    for (const source of CRAWLER_RANGE_SOURCES) {
      const file = fileURLToPath(new URL(source.file, SHIPPED_CRAWLER_RANGES));
      expect(existsSync(file), source.file).toBe(source.copy !== null);
      if (source.copy === null) continue;
      const list = parsePublishedRanges(readFileSync(file, 'utf8'), source.file);
      expect(list.prefixes.length, source.file).toBeGreaterThan(0);
      expect(list.creationTime, source.file).toBe(source.copy.creationTime);
    }
  });

  it('names agents of the agent list, with the operator the list gives them', () => {
    const operatorOf = new Map(AGENT_PATTERNS.map((p) => [p.name, p.operator]));
    const operators = new Set(AGENT_PATTERNS.map((p) => p.operator));
    for (const source of CRAWLER_RANGE_SOURCES) {
      expect(operators.has(source.operator), source.file).toBe(true);
      for (const agent of source.agents ?? [])
        expect(operatorOf.get(agent), `${source.file}: ${agent}`).toBe(source.operator);
      expect(source.url, source.file).toMatch(/^https:\/\/[^/]+\/.*\.json$/);
    }
  });

  it('verifies agents from their operators’ published addresses, and not from elsewhere', () => {
    const ranges = loadCrawlerRanges(mkdtempSync(path.join(tmpdir(), 'dw-ranges-none-')));
    expect(ranges.verifies('GPTBot', 'OpenAI', '20.171.206.7')).toBe(true);
    expect(ranges.verifies('GPTBot', 'OpenAI', '203.0.113.1')).toBe(false);
    // ChatGPT-User's addresses are not GPTBot's.
    expect(ranges.verifies('GPTBot', 'OpenAI', '9.129.0.1')).toBe(false);
    expect(ranges.verifies('ChatGPT', 'OpenAI', '9.129.0.1')).toBe(true);
    expect(ranges.verifies('Googlebot', 'Google', '66.249.66.1')).toBe(true);
    expect(ranges.verifies('Googlebot', 'Google', '2001:4860:4801:10::1')).toBe(true);
    expect(ranges.verifies('Bingbot', 'Microsoft', '157.55.39.12')).toBe(true);
    expect(ranges.verifies('ClaudeBot', 'Anthropic', '216.73.216.40')).toBe(true);
    expect(ranges.verifies('Claude Code', 'Anthropic', '216.73.216.40')).toBe(false);
    expect(ranges.verifies('PerplexityBot', 'Perplexity', '18.97.9.97')).toBe(true);
    expect(ranges.verifies('Applebot', 'Apple', '17.241.208.161')).toBe(true);
    expect(ranges.verifies('CCBot', 'Common Crawl', '2600:1f28:365:8000::5')).toBe(true);
    expect(ranges.verifies('DuckDuckBot', 'DuckDuckGo', '20.191.45.212')).toBe(true);
    expect(ranges.operators()).toEqual([
      'Anthropic',
      'Apple',
      'Common Crawl',
      'DuckDuckGo',
      'Google',
      'Microsoft',
      'OpenAI',
      'Perplexity',
    ]);
  });
});

describe('parsePublishedRanges', () => {
  it('reads the published shape: creationTime (optional), other fields ignored, both families', () => {
    const text = JSON.stringify({
      creationTime: '2026-01-02T11:00:00Z',
      syncToken: '1',
      prefixes: [{ ipv4Prefix: '192.0.2.0/24' }, { ipv6Prefix: '2001:db8::/32' }],
    });
    expect(parsePublishedRanges(text, 'x.json')).toEqual({
      creationTime: '2026-01-02T11:00:00Z',
      prefixes: ['192.0.2.0/24', '2001:db8::/32'],
    });
    expect(parsePublishedRanges('{"prefixes":[]}', 'x.json')).toEqual({ creationTime: null, prefixes: [] });
  });

  it('refuses anything else, naming the file and the entry', () => {
    const bad: Array<[string, RegExp]> = [
      ['<html>', /^gptbot\.json: not JSON/],
      ['[]', /^gptbot\.json: expected an object/],
      ['{"prefixes":{}}', /^gptbot\.json: "prefixes" must be an array/],
      ['{"creationTime":1,"prefixes":[]}', /^gptbot\.json: "creationTime" must be a string/],
      ['{"prefixes":["192.0.2.0/24"]}', /^gptbot\.json: prefixes\[0\] must be an object/],
      ['{"prefixes":[{"ip_prefix":"192.0.2.0/24"}]}', /^gptbot\.json: prefixes\[0\] must have exactly one/],
      [
        '{"prefixes":[{"ipv4Prefix":"2001:db8::/32"}]}',
        /^gptbot\.json: prefixes\[0\]: ipv4Prefix .* is not an IPv4 prefix/,
      ],
      [
        '{"prefixes":[{"ipv4Prefix":"192.0.2.0/24"},{"ipv6Prefix":"2001:db8::/129"}]}',
        /prefixes\[1\]: ipv6Prefix/,
      ],
      ['{"prefixes":[{"ipv4Prefix":"192.0.2.0"}]}', /prefixes\[0\]: ipv4Prefix "192\.0\.2\.0" is not/],
    ];
    for (const [text, message] of bad)
      expect(() => parsePublishedRanges(text, 'gptbot.json')).toThrow(message);
  });

  it('checks the manifest', () => {
    const good = {
      file: 'a.json',
      operator: 'X',
      agents: null,
      url: 'https://x.example/a.json',
      shape: 'prefixes',
      copy: null,
    };
    expect(parseSourcesManifest([good])).toHaveLength(1);
    expect(() => parseSourcesManifest([good, good])).toThrow(/sources\[1\]: "file"/);
    expect(() => parseSourcesManifest([{ ...good, url: 'http://x.example/a.json' }])).toThrow(
      /"url" must be an https/,
    );
    expect(() => parseSourcesManifest([{ ...good, agents: 'GPTBot' }])).toThrow(/"agents"/);
    expect(() => parseSourcesManifest([{ ...good, copy: {} }])).toThrow(/"copy" must be null/);
  });
});

describe('a refreshed copy in the data dir (where versions before 2026-12-02 wrote them)', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'dw-ranges-'));
    mkdirSync(refreshedRangesDir(dataDir));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('replaces the shipped copy of its source, and only that one', () => {
    const refreshed = { creationTime: '2026-11-01T00:00:00Z', prefixes: [{ ipv4Prefix: '198.51.100.0/24' }] };
    writeFileSync(path.join(refreshedRangesDir(dataDir), 'gptbot.json'), JSON.stringify(refreshed));
    const ranges = loadCrawlerRanges(dataDir);
    expect(ranges.verifies('GPTBot', 'OpenAI', '198.51.100.9')).toBe(true);
    expect(ranges.verifies('GPTBot', 'OpenAI', '20.171.206.7')).toBe(false);
    expect(ranges.verifies('OAI-SearchBot', 'OpenAI', '51.8.102.1')).toBe(true);
    const gptbot = loadRangeLists(dataDir).find((l) => l.source.file === 'gptbot.json');
    expect(gptbot).toMatchObject({ origin: 'refreshed', creationTime: '2026-11-01T00:00:00Z' });
  });

  it('is ignored, with a warning, when it does not read; the shipped copy serves', () => {
    writeFileSync(path.join(refreshedRangesDir(dataDir), 'gptbot.json'), '{"prefixes": [');
    const warnings: unknown[] = [];
    const logger = { warn: (...args: unknown[]) => warnings.push(args) } as never;
    const ranges = loadCrawlerRanges(dataDir, logger);
    expect(ranges.verifies('GPTBot', 'OpenAI', '20.171.206.7')).toBe(true);
    expect(warnings).toHaveLength(1);
  });

  it("comes after the main database's copy, which a copy that does not read there falls back from", () => {
    const inDataDir = { prefixes: [{ ipv4Prefix: '198.51.100.0/24' }] };
    writeFileSync(path.join(refreshedRangesDir(dataDir), 'gptbot.json'), JSON.stringify(inDataDir));
    const stored = new Map([['gptbot.json', JSON.stringify({ prefixes: [{ ipv4Prefix: '192.0.2.0/24' }] })]]);
    const ranges = loadCrawlerRanges(dataDir, undefined, stored);
    expect(ranges.verifies('GPTBot', 'OpenAI', '192.0.2.9')).toBe(true);
    expect(ranges.verifies('GPTBot', 'OpenAI', '198.51.100.9')).toBe(false);
    const warnings: unknown[] = [];
    const logger = { warn: (...args: unknown[]) => warnings.push(args) } as never;
    const broken = loadCrawlerRanges(dataDir, logger, new Map([['gptbot.json', '{"prefixes": [']]));
    expect(broken.verifies('GPTBot', 'OpenAI', '198.51.100.9')).toBe(true);
    expect(warnings).toHaveLength(1);
  });

  it('serves a source that ships no copy', () => {
    const assist = { prefixes: [{ ipv4Prefix: '192.0.2.0/28' }] };
    expect(loadCrawlerRanges(dataDir).verifies('DuckDuckGo AI', 'DuckDuckGo', '192.0.2.1')).toBe(false);
    writeFileSync(path.join(refreshedRangesDir(dataDir), 'duckassistbot.json'), JSON.stringify(assist));
    expect(loadCrawlerRanges(dataDir).verifies('DuckDuckGo AI', 'DuckDuckGo', '192.0.2.1')).toBe(true);
    expect(loadCrawlerRanges(dataDir).verifies('DuckDuckGo AI', 'DuckDuckGo', '192.0.2.16')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { CrawlerRanges } from '../../../src/domain/analytics/crawler-ranges.ts';

const ranges = new CrawlerRanges([
  { operator: 'OpenAI', agents: ['GPTBot'], source: 'gptbot.json', prefixes: ['192.0.2.0/24'] },
  { operator: 'OpenAI', agents: ['ChatGPT'], source: 'chatgpt-user.json', prefixes: ['198.51.100.8/29'] },
  { operator: 'Google', agents: null, source: 'googlebot.json', prefixes: ['2001:db8:4000::/36'] },
]);

describe('CrawlerRanges', () => {
  it('verifies an agent from a range its operator publishes for it', () => {
    expect(ranges.verifies('GPTBot', 'OpenAI', '192.0.2.77')).toBe(true);
    expect(ranges.verifies('ChatGPT', 'OpenAI', '198.51.100.15')).toBe(true);
    expect(ranges.verifies('Googlebot', 'Google', '2001:db8:4abc::1')).toBe(true);
  });

  it('reads an IPv4 client reported by a dual-stack socket', () => {
    expect(ranges.verifies('GPTBot', 'OpenAI', '::ffff:192.0.2.1')).toBe(true);
  });

  it('does not verify outside the ranges, another agent’s range, another operator, or no IP', () => {
    expect(ranges.verifies('GPTBot', 'OpenAI', '192.0.3.1')).toBe(false);
    expect(ranges.verifies('ChatGPT', 'OpenAI', '198.51.100.16')).toBe(false);
    expect(ranges.verifies('ChatGPT', 'OpenAI', '192.0.2.77')).toBe(false);
    expect(ranges.verifies('ClaudeBot', 'Anthropic', '192.0.2.77')).toBe(false);
    expect(ranges.verifies('GPTBot', undefined, '192.0.2.77')).toBe(false);
    expect(ranges.verifies('GPTBot', 'OpenAI', null)).toBe(false);
    expect(ranges.verifies('GPTBot', 'OpenAI', 'not an ip')).toBe(false);
    expect(ranges.verifies('Googlebot', 'Google', '2001:db8:5000::1')).toBe(false);
  });

  it('lists the operators with ranges', () => {
    expect(ranges.operators()).toEqual(['Google', 'OpenAI']);
    expect(CrawlerRanges.none.operators()).toEqual([]);
  });

  it('refuses a prefix that is not a CIDR, naming its source', () => {
    for (const prefix of ['192.0.2.0', '192.0.2.0/33', 'x/8', '2001:db8::/129']) {
      expect(
        () => new CrawlerRanges([{ operator: 'X', agents: null, source: 'x.json', prefixes: [prefix] }]),
      ).toThrow(/x\.json: .* is not an IPv4 or IPv6 prefix/);
    }
  });
});

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IdentityCache, parseIPv4 } from '../../../src/domain/analytics/identity-cache.ts';

const keyOf = (text: string) => createHash('sha256').update(text).digest().subarray(0, 16);

describe('parseIPv4', () => {
  it('reads canonical dotted quads', () => {
    expect(parseIPv4('0.0.0.0')).toBe(0);
    expect(parseIPv4('10.1.146.52')).toBe(((10 * 256 + 1) * 256 + 146) * 256 + 52);
    expect(parseIPv4('255.255.255.255')).toBe(0xffffffff);
  });

  it('refuses anything that is not one canonical IPv4 spelling', () => {
    for (const ip of [
      '010.1.1.1',
      '1.1.1.01',
      '1.1.1',
      '1.1.1.1.1',
      '256.1.1.1',
      '1..1.1',
      '1.1.1.',
      '::1',
      '2001:db8::1',
      ' 1.1.1.1',
      '1.1.1.1 ',
      '',
    ]) {
      expect(parseIPv4(ip), ip).toBe(-1);
    }
  });
});

describe('IdentityCache', () => {
  it('returns each stored key for its own (user agent, IP), across growth, for IPv4 and IPv6', () => {
    const cache = new IdentityCache(16);
    const agents = ['Mozilla/5.0 A', 'Mozilla/5.0 B', 'curl/8.5.0'];
    const ips: string[] = [];
    for (let i = 0; i < 5000; i++) ips.push(`10.${(i >> 8) & 255}.${i & 255}.${i % 7}`);
    for (let i = 0; i < 300; i++) ips.push(`2001:db8::${i.toString(16)}`);
    for (const agent of agents) for (const ip of ips) expect(cache.get(agent, ip)).toBeUndefined();
    for (const agent of agents) for (const ip of ips) cache.set(agent, ip, keyOf(`${agent}|${ip}`));
    expect(cache.size).toBe(agents.length * ips.length);
    for (const agent of agents) {
      for (const ip of ips) expect(cache.get(agent, ip)?.equals(keyOf(`${agent}|${ip}`))).toBe(true);
    }
    expect(cache.get('Mozilla/5.0 C', '10.0.0.0')).toBeUndefined();
    expect(cache.get('Mozilla/5.0 A', '10.99.0.0')).toBeUndefined();
  });

  it('hands out views that keep their bytes when the cache grows', () => {
    const cache = new IdentityCache(16);
    cache.set('ua', '192.0.2.1', keyOf('first'));
    const view = cache.get('ua', '192.0.2.1');
    for (let i = 0; i < 10_000; i++) cache.set('ua', `198.51.${i >> 8}.${i & 255}`, keyOf(String(i)));
    expect(view?.equals(keyOf('first'))).toBe(true);
    expect(cache.get('ua', '192.0.2.1')?.equals(keyOf('first'))).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { forbiddenAddressReason } from '../../../src/domain/network/address-ranges.ts';
import { OutboundPolicy } from '../../../src/domain/network/outbound-policy.ts';
import { nextAttemptAt } from '../../../src/domain/webhooks/backoff.ts';
import { checkEndpointUrl } from '../../../src/domain/webhooks/endpoint-url.ts';

describe('webhook address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.3.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['64:ff9b::7f00:1', 'loopback address (127.0.0.1 in NAT64 form)'],
    ['::7f00:1', 'IPv4-compatible'],
    ['2002:7f00:1::1', '6to4'],
  ])('refuses %s (%s)', (address, words) => {
    expect(forbiddenAddressReason(address)).toContain(words);
  });

  it.each(['93.184.215.14', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8'])(
    'allows %s',
    (address) => {
      expect(forbiddenAddressReason(address)).toBeNull();
    },
  );
});

describe('webhook URL check at creation', () => {
  const strict = OutboundPolicy.publicOnly();
  it.each([
    ['ftp://example.com/hook', /http/],
    ['not a url', /absolute/],
    ['https://user:pass@example.com/hook', /user name or password/],
    ['https://token@example.com/hook', /user name or password/],
    ['http://127.0.0.1:8080/hook', /loopback/],
    ['http://[::1]/hook', /loopback/],
    ['http://169.254.169.254/latest/meta-data', /link-local/],
    ['http://[fd00:ec2::254]/', /unique-local/],
    ['http://10.1.2.3/', /private/],
  ])('refuses %s', (url, message) => {
    expect(() => checkEndpointUrl(url, strict)).toThrow(message);
    expect(() => checkEndpointUrl(url, strict)).toThrow(/^url /);
  });

  it('takes a public URL, or a private one when private networks are allowed', () => {
    expect(checkEndpointUrl(' https://hooks.example.com/a?b=1 ', strict)).toBe(
      'https://hooks.example.com/a?b=1',
    );
    expect(checkEndpointUrl('http://localhost:3000/hook', strict)).toBe('http://localhost:3000/hook');
    expect(checkEndpointUrl('http://127.0.0.1:8080/hook', OutboundPolicy.allowAll())).toBe(
      'http://127.0.0.1:8080/hook',
    );
  });
});

describe('retry backoff', () => {
  const policy = { baseMs: 10_000, maxDelayMs: 3_600_000, windowMs: 86_400_000 };
  it('doubles from the base, with the jitter between half and all of the delay, capped', () => {
    expect(nextAttemptAt(policy, 1, 0, 0, () => 0)).toBe(5_000);
    expect(nextAttemptAt(policy, 1, 0, 0, () => 1)).toBe(10_000);
    expect(nextAttemptAt(policy, 3, 0, 0, () => 1)).toBe(40_000);
    expect(nextAttemptAt(policy, 30, 0, 0, () => 1)).toBe(3_600_000);
  });
  it('gives up once the next attempt would fall after the retry window', () => {
    expect(nextAttemptAt(policy, 20, 86_000_000, 0, () => 1)).toBeNull();
    expect(nextAttemptAt(policy, 20, 80_000_000, 0, () => 1)).toBe(83_600_000);
  });
});

import { describe, expect, it } from 'vitest';
import { allowsAddress, compileAllowlist, normaliseAllowlist } from '../../src/domain/keys/ip-allowlist.ts';

describe('IP allowlists', () => {
  it('writes every entry one way, so equal lists look equal', () => {
    expect(
      normaliseAllowlist([
        '192.0.2.77/24',
        '2001:0DB8:0000::/48',
        '2001:db8:0:0:1:0:0:1',
        '::ffff:198.51.100.0/120',
        '::ffff:198.51.100.9',
        '0.0.0.0/0',
        '::/0',
        '192.0.2.0/24',
      ]),
    ).toEqual([
      '192.0.2.0/24',
      '2001:db8::/48',
      '2001:db8::1:0:0:1',
      '198.51.100.0/24',
      '198.51.100.9',
      '0.0.0.0/0',
      '::/0',
    ]);
  });

  it('matches addresses of either family, IPv4-mapped IPv6 peers and link-local zones', () => {
    const list = compileAllowlist(normaliseAllowlist(['192.0.2.0/24', '2001:db8::/32', 'fe80::/10']));
    const verdicts = Object.fromEntries(
      [
        '192.0.2.1',
        '::ffff:192.0.2.1',
        '192.0.3.1',
        '2001:db8:ffff::1',
        '2001:db9::1',
        'fe80::1%eth0',
        'not an address',
        '',
      ].map((ip) => [ip, allowsAddress(list, ip)]),
    );
    expect(verdicts).toEqual({
      '192.0.2.1': true,
      '::ffff:192.0.2.1': true,
      '192.0.3.1': false,
      '2001:db8:ffff::1': true,
      '2001:db9::1': false,
      'fe80::1%eth0': true,
      'not an address': false,
      '': false,
    });
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/config.ts';
import { OutboundPolicy } from '../../../src/domain/network/outbound-policy.ts';

const policy = (value: string) => {
  const parsed = OutboundPolicy.parse(value);
  if (!(parsed instanceof OutboundPolicy)) throw new Error(parsed.problems.join('; '));
  return parsed;
};

describe('the outgoing-network policy', () => {
  it('allows public addresses only by default', () => {
    const strict = policy('false');
    expect(strict.allowsAll).toBe(false);
    expect(strict.refusal('example.com', '93.184.215.14')).toBeNull();
    expect(strict.refusal('gitlab.internal', '10.0.0.5')).toBe(
      'gitlab.internal resolves to 10.0.0.5 is a private address',
    );
    expect(strict.literalRefusal('[::1]')).toBe('::1 is a loopback address');
    expect(strict.literalRefusal('169.254.169.254')).toMatch(/link-local/);
    expect(strict.literalRefusal('gitlab.internal')).toBeNull();
  });

  it('allows everything with true', () => {
    expect(policy('true').allowsAll).toBe(true);
    expect(policy('1').refusal('x', '127.0.0.1')).toBeNull();
  });

  it('opens the host names, *.domains, addresses and CIDR ranges it lists, and nothing else', () => {
    const list = policy(' GitLab.Internal , *.corp.example, 10.0.0.0/8, 192.168.1.7, fd00::/8 ');
    expect(list.allowsAll).toBe(false);
    expect(list.refusal('gitlab.internal', '172.16.0.9')).toBeNull();
    expect(list.refusal('GITLAB.internal.', '127.0.0.1')).toBeNull();
    expect(list.refusal('git.corp.example', '172.16.0.9')).toBeNull();
    expect(list.refusal('corp.example', '172.16.0.9')).toMatch(/private/);
    expect(list.refusal('evil.example', '10.200.0.1')).toBeNull();
    expect(list.refusal('evil.example', '::ffff:10.200.0.1')).toBeNull();
    expect(list.literalRefusal('192.168.1.7')).toBeNull();
    expect(list.literalRefusal('192.168.1.8')).toMatch(/private/);
    expect(list.literalRefusal('[fd00:ec2::254]')).toBeNull();
    expect(list.literalRefusal('127.0.0.1')).toMatch(/loopback/);
    expect(list.refusal('gitlab.internal.evil.example', '127.0.0.1')).toMatch(/loopback/);
  });

  it('is read from DOCWRIGHT_ALLOW_PRIVATE_NETWORKS, checked at start-up with the entries named', () => {
    expect(loadConfig({}, '/srv').outbound.allowsAll).toBe(false);
    expect(loadConfig({ DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: 'true' }, '/srv').outbound.allowsAll).toBe(true);
    const listed = loadConfig({ DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: 'gitlab.internal,10.0.0.0/8' }, '/srv');
    expect(listed.outbound.refusal('x', '10.1.1.1')).toBeNull();
    expect(listed.deprecations).toEqual([]);
    const error = (() => {
      try {
        loadConfig(
          { DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: 'gitlab.internal, 10.0.0.0/33, http://x, yes please' },
          '/srv',
        );
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'DOCWRIGHT_ALLOW_PRIVATE_NETWORKS must be true, false or a comma-separated list of host names, *.domains, IP addresses and CIDR ranges: "10.0.0.0/33" is not a CIDR range such as 10.0.0.0/8 or fd00::/8; "http://x" is not a CIDR range such as 10.0.0.0/8 or fd00::/8; "yes please" is not a host name, *.domain, IP address or CIDR range',
    ]);
  });

  it('takes DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE_NETWORKS as a deprecated alias, not together with the new name', () => {
    const old = loadConfig({ DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' }, '/srv');
    expect(old.outbound.allowsAll).toBe(true);
    expect(old.deprecations).toEqual([
      'DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE_NETWORKS is deprecated: use DOCWRIGHT_ALLOW_PRIVATE_NETWORKS=true (it covers webhooks, code-host APIs and git remotes)',
    ]);
    expect(
      loadConfig({ DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'false' }, '/srv').outbound.allowsAll,
    ).toBe(false);
    expect(() =>
      loadConfig(
        { DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true', DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: '10.0.0.0/8' },
        '/srv',
      ),
    ).toThrow(
      /deprecated alias of DOCWRIGHT_ALLOW_PRIVATE_NETWORKS: set only DOCWRIGHT_ALLOW_PRIVATE_NETWORKS/,
    );
  });
});

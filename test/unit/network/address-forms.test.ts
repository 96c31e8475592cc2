import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forbiddenAddressReason, RANGE_WORDS } from '../../../src/domain/network/address-ranges.ts';
import { OutboundPolicy } from '../../../src/domain/network/outbound-policy.ts';
import { checkEndpointUrl } from '../../../src/domain/webhooks/endpoint-url.ts';
import { allowedAddresses, ForbiddenAddressError } from '../../../src/integrations/network/guarded-lookup.ts';
import {
  allowedAddress,
  IPV4_SPECIAL,
  IPV6_SPECIAL,
  ipv4Forms,
  ipv6Forms,
  refusedAddress,
  urlHostForms,
} from '../../helpers/address-forms.ts';

const strict = OutboundPolicy.publicOnly();
const RUNS = { numRuns: 1000 };

/** How getaddrinfo is given a host: IPv4 in any inet_aton form, IPv6 bare or in brackets. */
const lookupForms = (bytes: number[]) =>
  bytes.length === 4
    ? ipv4Forms(bytes)
    : fc.tuple(ipv6Forms(bytes), fc.boolean()).map(([form, brackets]) => (brackets ? `[${form}]` : form));

/** A URL with the address in any form as its host, and a port (a trailing dot is a form too for IPv4). */
const urlOf = (bytes: number[]) =>
  fc
    .tuple(urlHostForms(bytes), fc.boolean())
    .map(([host, dot]) => `http://${host}${dot && bytes.length === 4 ? '.' : ''}:8080/hook`);

describe('the outgoing-network policy over every way of writing an address', () => {
  it('names every range ipaddr.js knows in words', () => {
    for (const [name] of [...IPV4_SPECIAL, ...IPV6_SPECIAL]) expect(RANGE_WORDS[name], name).toBeDefined();
  });

  it.each([
    ['::7f00:1', 'IPv4-compatible'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['::8.8.8.8', 'IPv4-compatible'],
    ['0:0:0:0:0:0:7F00:0001', 'IPv4-compatible'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:127.0.0.1', 'loopback'],
    [
      '64:ff9b::169.254.169.254',
      'link-local (metadata service range) address (169.254.169.254 in NAT64 form)',
    ],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['2002:7f00:1::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['::ffff:0:7f00:1', 'IPv4-translated'],
    ['2001:db8::1', 'documentation'],
    ['fec0::1', 'site-local'],
    ['4000::1', 'outside 2000::/3'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'reserved'],
    ['192.31.196.1', 'AS112'],
  ])('refuses %s as %s', (address, words) => {
    expect(forbiddenAddressReason(address)).toContain(words);
  });

  it('refuses every form of a special address, as a literal, through getaddrinfo and in a URL', async () => {
    await fc.assert(
      fc.asyncProperty(
        refusedAddress.chain((bytes) => fc.tuple(fc.constant(bytes), lookupForms(bytes), urlOf(bytes))),
        async ([, host, url]) => {
          await expect(allowedAddresses(strict, host)).rejects.toBeInstanceOf(ForbiddenAddressError);
          expect(() => checkEndpointUrl(url, strict)).toThrow(/^url must not point at a non-public address/);
          expect(strict.literalRefusal(new URL(url).hostname)).toMatch(/ address/);
        },
      ),
      RUNS,
    );
  });

  it('allows every form of a public address, and reads it as the address it is', async () => {
    await fc.assert(
      fc.asyncProperty(
        allowedAddress.chain((bytes) => fc.tuple(fc.constant(bytes), lookupForms(bytes), urlOf(bytes))),
        async ([bytes, host, url]) => {
          const [resolved] = await allowedAddresses(strict, host);
          expect(resolved?.family).toBe(bytes.length === 4 ? 4 : 6);
          expect(checkEndpointUrl(url, strict)).toBe(url);
          expect(strict.literalRefusal(new URL(url).hostname)).toBeNull();
        },
      ),
      RUNS,
    );
  });

  it('opens a listed IPv4 range in its IPv6 forms too, and nothing else', () => {
    const listed = OutboundPolicy.parse('10.0.0.0/8, ::ffff:192.168.0.0/112');
    if (!(listed instanceof OutboundPolicy)) throw new Error('not parsed');
    expect(listed.literalRefusal('[::ffff:10.1.2.3]')).toBeNull();
    expect(listed.literalRefusal('[64:ff9b::10.1.2.3]')).toBeNull();
    expect(listed.literalRefusal('192.168.4.5')).toBeNull();
    expect(listed.literalRefusal('[::10.1.2.3]')).toMatch(/IPv4-compatible/);
    expect(listed.literalRefusal('[2002:a01:203::1]')).toMatch(/6to4/);
    // getaddrinfo would read 10/8 as 0.0.0.10/8: refused rather than misread.
    expect(OutboundPolicy.parse('10/8')).toEqual({
      problems: ['"10/8" is not a CIDR range such as 10.0.0.0/8 or fd00::/8'],
    });
  });
});

import { describe, expect, it } from 'vitest';
import {
  canonicalPercentEncoding,
  percentDecodeText,
  unescapeLogText,
} from '../../../src/domain/analytics/escapes.ts';

describe('unescapeLogText (nginx, Apache)', () => {
  it.each([
    ['/caf\\xC3\\xA9', '/café'],
    ['\\"quoted\\" and \\\\ backslash', '"quoted" and \\ backslash'],
    ['tab\\tand\\nline', 'tab\tand\nline'],
    ['\\xE2\\x80\\x9C“', '““'],
    ['plain', 'plain'],
  ])('%s → %s', (raw, expected) => {
    expect(unescapeLogText(raw)).toBe(expected);
  });

  it('keeps bytes that are not UTF-8 as %HH, never a replacement character', () => {
    expect(unescapeLogText('/a\\xFFb\\xC3')).toBe('/a%FFb%C3');
    expect(unescapeLogText('\\x16\\x03\\x01')).toBe('%16%03%01');
  });
});

describe('percentDecodeText (CloudFront user agents and referrers)', () => {
  it('decodes every escape, keeping invalid ones', () => {
    expect(percentDecodeText('Slackbot%201.0%20(+https://api.slack.com/robots)')).toBe(
      'Slackbot 1.0 (+https://api.slack.com/robots)',
    );
    expect(percentDecodeText('caf%C3%A9 %ZZ %E2%82')).toBe('café %ZZ %E2%82');
  });
});

describe('canonicalPercentEncoding (paths)', () => {
  it.each([
    ['/caf%C3%A9', '/café'],
    ['/caf%c3%a9', '/café'],
    ['/café', '/café'],
    ['/%7Euser/%41bc', '/~user/Abc'],
    ['/a%2fb', '/a%2Fb'],
    ['/a%20b', '/a%20b'],
    ['/%C2%A0nbsp', '/%C2%A0nbsp'],
    ['/bad%FF%C3', '/bad%FF%C3'],
    ['/%', '/%'],
  ])('%s → %s', (raw, expected) => {
    expect(canonicalPercentEncoding(raw)).toBe(expected);
  });
});

import { describe, expect, it } from 'vitest';
import { detectFormat, parseClfTime, parseLine } from '../../../src/domain/analytics/log-formats.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

describe('access log lines', () => {
  it('parses an nginx combined line, honouring the time offset', () => {
    const line = `203.0.113.7 - - [10/Oct/2024:13:55:36 +0200] "GET /docs/quickstart?x=1 HTTP/1.1" 200 2326 "https://www.google.com/" "${FIREFOX}"`;
    expect(detectFormat(line)).toBe('combined');
    expect(parseLine('combined', line)).toEqual({
      time: '10/Oct/2024:13:55:36 +0200',
      event: {
        timestamp: Date.parse('2024-10-10T11:55:36Z'),
        path: '/docs/quickstart?x=1',
        userAgent: FIREFOX,
        ip: '203.0.113.7',
        referrer: 'https://www.google.com/',
        status: 200,
        accept: undefined,
      },
    });
  });

  it('parses common lines (no user agent) and escaped quotes in combined ones', () => {
    const common = '2001:db8::1 - alice [01/Mar/2025:00:00:00 -0500] "GET / HTTP/2.0" 304 -';
    expect(detectFormat(common)).toBe('common');
    const parsed = parseLine('common', common);
    expect('event' in parsed && parsed.event).toMatchObject({
      ip: '2001:db8::1',
      userAgent: '',
      status: 304,
    });
    const quoted = `1.2.3.4 - - [01/Mar/2025:00:00:00 +0000] "GET /a HTTP/1.1" 200 1 "-" "agent \\"quoted\\" 1.0"`;
    const q = parseLine('combined', quoted);
    expect('event' in q && q.event.userAgent).toBe('agent "quoted" 1.0');
  });

  it.each([
    ['1.2.3.4 - - [01/Mar/2025:00:00:00 +0000] "POST /api HTTP/1.1" 200 1 "-" "curl/8"', 'method POST'],
    ['1.2.3.4 - - [01/Mar/2025:00:00:00 +0000] "GET /x HTTP/1.1" 404 1 "-" "curl/8"', 'status 404'],
    [
      '1.2.3.4 - - [01/Mar/2025:00:00:00 +0000] "GET /app.js?v=2 HTTP/1.1" 200 1 "-" "curl/8"',
      'asset (not a page)',
    ],
    ['1.2.3.4 - - [01/Foo/2025:00:00:00 +0000] "GET /x HTTP/1.1" 200 1 "-" "curl/8"', 'bad timestamp'],
    ['1.2.3.4 - - [01/Mar/2025:00:00:00 +0000] "\\x16\\x03\\x01" 400 1 "-" "-"', 'malformed request line'],
    ['this is not a log line', 'not a combined log line'],
  ])('skips %s (%s)', (line, reason) => {
    expect(parseLine('combined', line)).toEqual({ skip: reason });
  });

  it('parses JSON lines with CDN field names and numeric timestamps', () => {
    const cloudflare = JSON.stringify({
      EdgeStartTimestamp: 1740787200000000000,
      ClientIP: '203.0.113.9',
      ClientRequestMethod: 'GET',
      ClientRequestURI: '/guide.md',
      EdgeResponseStatus: 200,
      ClientRequestUserAgent: 'curl/8.5.0',
    });
    expect(detectFormat(cloudflare)).toBe('json');
    expect(parseLine('json', cloudflare)).toMatchObject({
      event: {
        timestamp: Date.parse('2025-03-01T00:00:00Z'),
        path: '/guide.md',
        ip: '203.0.113.9',
        status: 200,
      },
    });
    expect(parseLine('json', '{"time": 1740787200, "ip": "1.1.1.1", "uri": "/", "ua": "x"}')).toMatchObject({
      event: { timestamp: Date.parse('2025-03-01T00:00:00Z') },
    });
    expect(parseLine('json', '{oops')).toEqual({ skip: 'not valid JSON' });
    expect(parseLine('json', '[1]')).toEqual({ skip: 'not a JSON object' });
  });

  it('reads CLF times with any offset', () => {
    expect(parseClfTime('01/Jan/2025:00:30:00 +0100')).toBe(Date.parse('2024-12-31T23:30:00Z'));
    expect(parseClfTime('31/Dec/2024:23:30:00 -0930')).toBe(Date.parse('2025-01-01T09:00:00Z'));
    expect(parseClfTime('nope')).toBeNull();
  });
});

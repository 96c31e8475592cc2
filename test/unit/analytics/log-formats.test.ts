import { describe, expect, it } from 'vitest';
import {
  detectFormat,
  LineParser,
  type ParsedLine,
  parseClfTime,
  parseLine,
} from '../../../src/domain/analytics/log-formats.ts';

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
        contentType: undefined,
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
    expect(parseLine('json', '[1]')).toEqual({ items: [{ skip: 'not a JSON object' }] });
    expect(parseLine('json', '"text"')).toEqual({ skip: 'not a JSON object' });
  });

  it('reads CLF times with any offset', () => {
    expect(parseClfTime('01/Jan/2025:00:30:00 +0100')).toBe(Date.parse('2024-12-31T23:30:00Z'));
    expect(parseClfTime('31/Dec/2024:23:30:00 -0930')).toBe(Date.parse('2025-01-01T09:00:00Z'));
    expect(parseClfTime('nope')).toBeNull();
  });
});

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const eventOf = (parsed: ParsedLine) => ('event' in parsed ? parsed.event : parsed);

describe('log shapes as the CDNs document them', () => {
  it('reads CloudFront standard logs: the #Fields columns, date and time apart, URL-encoded user agents', () => {
    const parser = new LineParser();
    expect(parser.parse('#Version: 1.0')).toEqual({ skip: 'directive or comment (#)' });
    parser.parse(
      '#Fields: date time c-ip cs-method cs-uri-stem sc-status cs(Referer) cs(User-Agent) sc-content-type',
    );
    expect(parser.format).toBe('w3c');
    const line = [
      '2025-03-01',
      '10:00:07',
      '203.0.113.9',
      'GET',
      '/caf%C3%A9',
      '200',
      'https://www.google.com/search%3Fq=x',
      'Mozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)%20AppleWebKit/537.36%20(KHTML,%20like%20Gecko)%20Chrome/131.0.0.0%20Safari/537.36',
      'text/html',
    ].join('\t');
    expect(parser.parse(line)).toEqual({
      time: '2025-03-01 10:00:07',
      event: {
        timestamp: Date.parse('2025-03-01T10:00:07Z'),
        path: '/caf%C3%A9',
        userAgent: CHROME,
        ip: '203.0.113.9',
        referrer: 'https://www.google.com/search?q=x',
        status: 200,
        accept: undefined,
        contentType: 'text/html',
      },
    });
    expect(parser.parse('2025-03-01\t10:00:07\tonly three')).toEqual({ skip: 'not 9 W3C fields' });
  });

  it('reads CloudFront real-time logs with the columns given, and W3C lines before any #Fields are skipped', () => {
    expect(new LineParser('w3c').parse('1740823200.123\t203.0.113.7')).toEqual({
      skip: 'no #Fields: line before it (give the columns with --fields)',
    });
    const parser = new LineParser('w3c', [
      'timestamp',
      'c-ip',
      'sc-status',
      'cs-uri-stem',
      'cs-user-agent',
      'cs-accept',
    ]);
    const parsed = parser.parse(
      '1740823201.456\t203.0.113.30\t200\t/quickstart\tcurl/8.5.0\ttext%2Fmarkdown',
    );
    expect(eventOf(parsed)).toMatchObject({
      timestamp: Date.parse('2025-03-01T10:00:01.456Z'),
      path: '/quickstart',
      userAgent: 'curl/8.5.0',
      accept: 'text%2Fmarkdown',
    });
  });

  it('reads IIS-style W3C lines: space-separated, spaces in values written as +', () => {
    const parser = new LineParser();
    parser.parse('#Fields: date time c-ip cs-method cs-uri-stem sc-status cs(User-Agent)');
    expect(
      eventOf(parser.parse('2025-03-01 10:00:00 203.0.113.7 GET /guide 200 Mozilla/5.0+(X11;+Linux)')),
    ).toMatchObject({
      userAgent: 'Mozilla/5.0 (X11; Linux)',
    });
  });

  it('reads CloudFront v2 JSON: date and time apart, not a bad ISO 8601 timestamp', () => {
    const line = JSON.stringify({
      date: '2025-03-01',
      time: '11:00:02',
      'c-ip': '198.51.100.21',
      'cs-method': 'GET',
      'cs-uri-stem': '/guide.md',
      'sc-status': '200',
      'cs(User-Agent)': 'curl/8.5.0%20(x)',
    });
    expect(parseLine('json', line)).toMatchObject({
      time: '2025-03-01 11:00:02',
      event: { timestamp: Date.parse('2025-03-01T11:00:02Z'), userAgent: 'curl/8.5.0 (x)', status: 200 },
    });
    expect(parseLine('json', JSON.stringify({ date: '2025-03-01', 'c-ip': '1.1.1.1' }))).toEqual({
      skip: 'no timestamp field (timestamp, time, date and time, EdgeStartTimestamp…)',
    });
    expect(parseLine('json', JSON.stringify({ timestamp: 'yesterday', ip: '1.1.1.1', path: '/' }))).toEqual({
      skip: 'unreadable timestamp (timestamp)',
    });
  });

  it('reads Vercel log drains: the request in proxy, build output skipped, a JSON delivery as one array', () => {
    const proxy = {
      timestamp: 1740823200000,
      method: 'GET',
      path: '/guide/',
      userAgent: [CHROME],
      referer: 'https://docs.example.com/',
      statusCode: 200,
      clientIp: '203.0.113.7',
    };
    const record = {
      id: '1',
      deploymentId: 'dpl_1',
      source: 'static',
      path: '/[slug]',
      timestamp: 1740823200003,
      proxy,
    };
    expect(parseLine('json', JSON.stringify(record))).toEqual({
      time: '1740823200',
      event: {
        timestamp: 1740823200000,
        path: '/guide/',
        userAgent: CHROME,
        ip: '203.0.113.7',
        referrer: 'https://docs.example.com/',
        status: 200,
        accept: undefined,
        contentType: undefined,
      },
    });
    const build = { id: '2', deploymentId: 'dpl_1', source: 'build', timestamp: 1, message: 'done' };
    expect(parseLine('json', JSON.stringify(build))).toEqual({
      skip: 'Vercel log of no request (build or function output)',
    });
    const batch = parseLine('json', JSON.stringify([record, build]));
    expect('items' in batch && batch.items.map((i) => ('skip' in i ? i.skip : i.event.path))).toEqual([
      '/guide/',
      'Vercel log of no request (build or function output)',
    ]);
  });

  it('reads Cloudflare Logpush: Accept from the RequestHeaders custom field, nanosecond timestamps', () => {
    const line = JSON.stringify({
      ClientIP: '203.0.113.40',
      ClientRequestMethod: 'GET',
      ClientRequestURI: '/quickstart?x=1',
      ClientRequestUserAgent: CHROME,
      EdgeStartTimestamp: 1740823201000000000,
      EdgeResponseStatus: 200,
      EdgeResponseContentType: 'text/markdown',
      RequestHeaders: { accept: 'text/markdown' },
    });
    expect(eventOf(parseLine('json', line))).toMatchObject({
      timestamp: Date.parse('2025-03-01T10:00:01Z'),
      path: '/quickstart?x=1',
      accept: 'text/markdown',
      contentType: 'text/markdown',
    });
  });

  it('reads Fastly JSON: the method in request, a +0000 offset; and a time without offset as UTC', () => {
    const line = JSON.stringify({
      timestamp: '2025-03-01T10:00:00+0000',
      client_ip: '203.0.113.7',
      request: 'POST',
      url: '/guide',
      request_user_agent: CHROME,
      response_status: 200,
    });
    expect(parseLine('json', line)).toEqual({ skip: 'method POST' });
    const utc = JSON.stringify({
      timestamp: '2025-03-01T10:00:00',
      client_ip: '1.1.1.1',
      url: '/a',
      request: 'GET',
    });
    expect(eventOf(parseLine('json', utc))).toMatchObject({ timestamp: Date.parse('2025-03-01T10:00:00Z') });
    // A request line in `request` (other JSON log formats) is split as in combined logs.
    const requestLine = JSON.stringify({
      time: '2025-03-01T10:00:00Z',
      ip: '1.1.1.1',
      request: 'GET /b HTTP/1.1',
    });
    expect(eventOf(parseLine('json', requestLine))).toMatchObject({ path: '/b' });
  });

  it('reads Netlify log drains: traffic logs only', () => {
    const traffic = {
      log_type: 'traffic',
      timestamp: '2025-03-01T10:00:00Z',
      client_ip: '203.0.113.7',
      method: 'GET',
      url: '/quickstart/',
      status_code: 200,
      user_agent: CHROME,
      referrer: '',
      content_type: 'text/html; charset=UTF-8',
    };
    expect(eventOf(parseLine('json', JSON.stringify(traffic)))).toMatchObject({
      path: '/quickstart/',
      contentType: 'text/html; charset=UTF-8',
    });
    expect(parseLine('json', JSON.stringify({ ...traffic, log_type: 'functions' }))).toEqual({
      skip: 'Netlify functions log, not traffic',
    });
  });

  it('decodes what nginx escapes: \\xHH bytes as UTF-8, in the request line and the user agent', () => {
    const line =
      '203.0.113.7 - - [01/Mar/2025:10:00:00 +0000] "GET /caf\\xC3\\xA9 HTTP/1.1" 200 5120 "-" "agent \\xE2\\x80\\x9Cquoted\\xE2\\x80\\x9D \\"x\\""';
    expect(eventOf(parseLine('combined', line))).toMatchObject({
      path: '/café',
      userAgent: 'agent “quoted” "x"',
      referrer: undefined,
    });
  });
});

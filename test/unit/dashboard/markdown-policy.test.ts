import { describe, expect, it } from 'vitest';
import { markdownUrl, safeLink } from '../../../src/dashboard/pages/jobs/markdown-policy.ts';

describe("the links a job's rendered Markdown may have", () => {
  it('keeps absolute http(s) and mailto links', () => {
    expect(safeLink('https://example.com/api?x=1#y')).toBe('https://example.com/api?x=1#y');
    expect(safeLink('http://example.com')).toBe('http://example.com');
    expect(safeLink('  HTTPS://Example.com/ ')).toBe('HTTPS://Example.com/');
    expect(safeLink('mailto:docs@example.com')).toBe('mailto:docs@example.com');
  });

  it('drops every other scheme, and relative links that would open a dashboard page', () => {
    for (const url of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'ftp://example.com/x',
      '//evil.example/x',
      '/projects/prj_1/keys',
      'guides/rate-limits.mdx',
      '#changes',
      'https://',
      '',
    ]) {
      expect(safeLink(url), url).toBeNull();
    }
  });

  it('never keeps an image source: the dashboard loads no image the agent names', () => {
    expect(markdownUrl('https://example.com/pixel.png', 'src')).toBeNull();
    expect(markdownUrl('https://example.com/', 'href')).toBe('https://example.com/');
    expect(markdownUrl('javascript:alert(1)', 'href')).toBeNull();
  });
});

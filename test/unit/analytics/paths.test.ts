import { describe, expect, it } from 'vitest';
import { normalisePath } from '../../../src/domain/analytics/paths.ts';

describe('normalisePath', () => {
  it.each([
    ['/quickstart', '/quickstart'],
    ['/quickstart/', '/quickstart'],
    ['/quickstart.md', '/quickstart'],
    ['/quickstart.MD', '/quickstart'],
    ['/guide/index.md', '/guide'],
    ['/index.md', '/'],
    ['/', '/'],
    ['/quickstart?utm_source=x', '/quickstart'],
    ['/quickstart/#install', '/quickstart'],
    ['/quickstart.md?raw=1#top', '/quickstart'],
    ['https://docs.example.com/api/keys/?a=1', '/api/keys'],
    ['//double//slashes/', '/double/slashes'],
    ['/llms.txt', '/llms.txt'],
    ['/Case/Kept', '/Case/Kept'],
    ['/index.html', '/'],
    ['/guide.html', '/guide'],
    ['/guide/index', '/guide'],
    ['/caf%c3%a9', '/café'],
    ['/a%2fb/', '/a%2Fb'],
  ])('%s → %s', (raw, expected) => {
    expect(normalisePath(raw)?.path).toBe(expected);
  });

  it('reports Markdown and llms.txt fetches', () => {
    expect(normalisePath('/a.md')).toEqual({ path: '/a', markdownPath: true, llmsTxt: false });
    expect(normalisePath('/a')).toEqual({ path: '/a', markdownPath: false, llmsTxt: false });
    expect(normalisePath('/llms-full.txt')).toEqual({
      path: '/llms-full.txt',
      markdownPath: false,
      llmsTxt: true,
    });
    expect(normalisePath('/docs/llms.txt?x')?.llmsTxt).toBe(true);
  });

  it.each(['', 'quickstart', 'ftp://x/y', '/with space', `/${'a'.repeat(3000)}`, '/tab\there'])(
    'rejects %j',
    (raw) => {
      expect(normalisePath(raw)).toBeNull();
    },
  );
});

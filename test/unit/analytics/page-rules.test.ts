import { describe, expect, it } from 'vitest';
import {
  changePageRules,
  DEFAULT_PAGE_RULES,
  PageRuleSet,
  withDefaults,
} from '../../../src/domain/analytics/page-rules.ts';
import { DomainError } from '../../../src/domain/errors.ts';

const defaults = new PageRuleSet(DEFAULT_PAGE_RULES);
const pageOf = (rules: PageRuleSet, raw: string) => {
  const result = rules.page(raw);
  return result === null ? null : 'notPage' in result ? result.notPage : result.path;
};

describe('page-view rules', () => {
  it.each([
    ['/quickstart', '/quickstart'],
    ['/index.html', '/'],
    ['/guide.html', '/guide'],
    ['/guide.htm', '/guide'],
    ['/guide/index.html', '/guide'],
    ['/guide/index.md', '/guide'],
    ['/guide/', '/guide'],
    ['/llms.txt', '/llms.txt'],
    ['/api/keys', '/api/keys'],
    ['/assets/app.css?v=3', 'not a page: asset'],
    ['/img/Logo.PNG', 'not a page: asset'],
    ['/api/search?q=install', 'not a page: excluded path /api/search'],
    ['/robots.txt', 'not a page: excluded path /robots.txt'],
    ['/sitemap-0.xml', 'not a page: asset'],
    ['/.well-known/security.txt', 'not a page: excluded path /.well-known/**'],
    ['/_next/static/chunks/app.txt', 'not a page: excluded path /_next/**'],
    ['no path', null],
  ])('by default, %s → %s', (raw, expected) => {
    expect(pageOf(defaults, raw)).toBe(expected);
  });

  it('are configurable: no .html or index merging, other exclusions, other assets', () => {
    const rules = new PageRuleSet(
      changePageRules(DEFAULT_PAGE_RULES, {
        stripHtmlExtension: false,
        mergeIndexPages: false,
        excludePaths: ['/api/**', '/internal/*'],
        assetExtensions: ['.PDF', 'css'],
      }),
    );
    expect(pageOf(rules, '/guide.html')).toBe('/guide.html');
    expect(pageOf(rules, '/guide/index.md')).toBe('/guide/index');
    expect(pageOf(rules, '/api/keys')).toBe('not a page: excluded path /api/**');
    expect(pageOf(rules, '/internal/x')).toBe('not a page: excluded path /internal/*');
    expect(pageOf(rules, '/internal/x/y')).toBe('/internal/x/y');
    expect(pageOf(rules, '/robots.txt')).toBe('/robots.txt');
    expect(pageOf(rules, '/app.js')).toBe('/app.js');
    expect(pageOf(rules, '/manual.pdf')).toBe('not a page: asset');
    expect(rules.rules.assetExtensions).toEqual(['pdf', 'css']);
  });

  it('filter by the content type only where the log records it', () => {
    expect(defaults.contentTypeProblem(undefined)).toBeNull();
    expect(defaults.contentTypeProblem('text/html; charset=UTF-8')).toBeNull();
    expect(defaults.contentTypeProblem('TEXT/MARKDOWN')).toBeNull();
    expect(defaults.contentTypeProblem('application/json')).toBe('not a page: content type application/json');
  });

  it.each([
    [{ excludePaths: ['api/**'] }, 'pageRules.excludePaths: "api/**" must start with /'],
    [{ assetExtensions: ['c ss'] }, 'pageRules.assetExtensions: "c ss" is not a file extension like "css"'],
    [
      { pageContentTypes: ['html'] },
      'pageRules.pageContentTypes: "html" is not a media type like "text/html"',
    ],
    [
      { excludePaths: Array.from({ length: 201 }, (_, i) => `/p${i}`) },
      'pageRules.excludePaths: at most 200 entries',
    ],
  ])('refuses %j, naming the field', (change, message) => {
    expect(() => changePageRules(DEFAULT_PAGE_RULES, change)).toThrow(new DomainError('invalid', message));
  });

  it('fill what older stored settings lack with the defaults', () => {
    expect(withDefaults(undefined)).toEqual(DEFAULT_PAGE_RULES);
    expect(withDefaults({ mergeIndexPages: false })).toEqual({
      ...DEFAULT_PAGE_RULES,
      mergeIndexPages: false,
    });
  });
});
